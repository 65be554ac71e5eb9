"""TalkItOut (SocialAI 0.1): move and talk to scripted NPCs to find the exit.

* ``env``: :class:`~socialbench.talkitout.env.TalkItOutEnv`, the Gymnasium/MiniGrid environment
  (registered as ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``).
* ``grammar``: the 64-utterance grammar and the (primitive, template, noun) action helpers.
* ``world``: doors and NPCs (wizard, true guide, liar) that encode and render themselves.
* ``agents`` (with ``egomap``): the random, door-guess and oracle reference agents.
* ``evaluate``: the fixed test set, per-seed success rates, Welch's t-test.
* ``planner``: the shortest informed plan with full knowledge (what t_max leaves solvable).
"""

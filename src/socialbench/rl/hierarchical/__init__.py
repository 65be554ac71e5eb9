"""A hierarchical TalkItOut agent: built-in options below, a learned high-level policy above.

* Built in (``options.py``): a map of what the agent has seen (``talkitout.egomap``, from its
  own views and moves), breadth-first navigation on it, and eleven options: explore, go to
  NPC slot k and say "Where is the exit" (k = 0..2, NPCs in the order they were first seen),
  go to the door of colour c and say "Open sesame" (seven colour words).
* Built in (``dialogue_memory.py``, ``features.py``): a generic parse of what was heard into
  who said which words, which speakers name other speakers, which colours each speaker gave,
  and per-option features of that dialogue graph.
* Learned (``network.py``, ``trainer.py``): which option to take, scored by one small network
  shared across options, trained with PPO on the environment's reward only.

Nothing here reads the environment's hidden state: the controller is fed observation dicts.
"""

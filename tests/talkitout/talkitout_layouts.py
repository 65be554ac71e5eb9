"""Hand-built TalkItOut layouts shared by the tests."""

from socialbench.talkitout.env import TalkItOutEnv

# A 6x6 room (interior x, y in 1..4). Door fronts: (2,1) red, (3,4) green, (1,3) blue,
# (4,2) yellow. Target: green. John tells the truth.
BASIC = {
    "room_size": (6, 6),
    "doors": [((2, 0), "red"), ((3, 5), "green"), ((0, 3), "blue"), ((5, 2), "yellow")],
    "target_colour": "green",
    "true_guide_name": "John",
    "npcs": [("wizard", "Gandalf", "blue", (1, 1)), ("guide", "John", "blue", (4, 4)),
             ("liar", "Jack", "purple", (3, 2))],
    "agent": ((2, 3), 0),
}


def layout(**changes):
    return {**BASIC, **changes}


# The wizard in the top-left corner with a guide on each of its two free neighbours.
WALLED_IN = layout(
    doors=[((3, 0), "red"), ((3, 5), "green"), ((0, 3), "blue"), ((5, 2), "yellow")],
    npcs=[("wizard", "Gandalf", "grey", (1, 1)), ("guide", "John", "red", (2, 1)),
          ("liar", "Jack", "red", (1, 2))],
    agent=((4, 4), 2),
)


def start(lay, seed=0, **env_kwargs):
    """A fresh environment reset onto ``lay``; returns (env, first observation)."""
    env = TalkItOutEnv(**env_kwargs)
    obs, _ = env.reset(seed=seed, options={"layout": lay})
    return env, obs

"""How a generated BIB scene looks: the released files' style, or the earlier tidy one.

Measured on the real preference episodes (``benchmarks/bib_scene_stats.py`` prints the table):
8-16 interior wall cells a trial; objects up to 10 px off their cell's centre (home up to 8);
trials of 136-160 frames; an object roaming ~2 cells across familiarization; 2-4 border cells
listed among the random walls (so listed twice, besides the ring's own ``(0, 0)``); named
colours such as navy, dark orange and dodger blue; the agent's steps (a 1-px step at every
turn, as at a trial's start), and objects placed in view of the start at a slant, so that walks
go straight about as often, and at the same slants, as the real ones.
:data:`RELEASED` reproduces these (the default), splits the preference test's coin (is the
expected walk the shorter?) evenly over a task's episodes (:mod:`.tasks.counterbalance`) and
draws multi_agent's two objects both in view where it can. :data:`TIDY` is the generator's
earlier look, byte for byte (``--scene-style tidy``); :data:`RELEASED_V3` is the released style
with that coin tossed per episode and the second object in view only where the first leaves
room (``--scene-style released-v3``), :data:`RELEASED_V2` that before objects were placed in
view (``--scene-style released-v2``) and :data:`RELEASED_V1` that with the earlier motion too
(no 1-px turn steps, ``--scene-style released-v1``), each byte for byte as the default was
before the change.

The style is set for the duration of one episode's build (:func:`using`) and read by the scene
helpers in :mod:`socialbench.bib.world`, so task recipes keep their signatures.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from socialbench.core.errors import UserError

Color = tuple[int, int, int]

# Colours seen in the real files (bib real samples): objects wheat, cyan, magenta, dodger blue;
# agents navy and dark orange. The rest are X11/CSS named colours of the same kind (ours), none
# pink (home), black (walls), green (barrier), gold (key), saddle brown (lock) or white.
RELEASED_OBJECT_COLORS: tuple[Color, ...] = (
    (245, 222, 179),  # wheat (real)
    (0, 255, 255),  # cyan (real)
    (255, 0, 255),  # magenta (real)
    (30, 144, 255),  # dodger blue (real)
    (255, 0, 0),  # red
    (0, 0, 255),  # blue
    (128, 0, 128),  # purple
    (210, 105, 30),  # chocolate
    (128, 128, 0),  # olive
    (64, 224, 208),  # turquoise
    (106, 90, 205),  # slate blue
    (0, 128, 128),  # teal
    (220, 20, 60),  # crimson
    (70, 130, 180),  # steel blue
)
# Agents: dark or saturated colours that stay readable on the pink home (255, 105, 180): each is
# at least 150 from it in RGB and at least 50 from every object colour (tests check).
RELEASED_AGENT_COLORS: tuple[Color, ...] = (
    (0, 0, 128),  # navy (real)
    (255, 140, 0),  # dark orange (real)
    (128, 0, 0),  # maroon
    (75, 0, 130),  # indigo
    (47, 79, 79),  # dark slate grey
    (148, 0, 211),  # dark violet
)


@dataclass(frozen=True)
class SceneStyle:
    """The scene statistics a generated episode follows (see the module docstring)."""

    name: str
    object_reach: int  # px an object's centre may sit off its cell's centre, per axis
    home_reach: int  # the same for the agent's start
    walls: tuple[int, int] | None  # interior wall cells of an open scene; None: the task's own
    region_radius: int  # cells an object roams around its region (preference-like tasks)
    region_gap: int  # cells between the two objects' regions (Chebyshev, at least)
    border_repeats: tuple[int, int]  # border cells also listed among the random walls
    trial_frames: tuple[int, int] | None  # a trial's frames, where the task's design allows
    released_colors: bool  # the named palettes above, or the tidy palette of world.PALETTE
    # The agent's first step after a turn, px (motion.walk's turn_first); None: a full step.
    turn_step: float | None = None
    # Objects a real trial's walk from the start are drawn, where any are, among the cells the
    # agent sees from its start at a slope (minor / major axis) in this band (world.in_view);
    # None: anywhere in reach.
    view_slopes: tuple[float, float] | None = None
    # Preference: whether the expected test's walk is the shorter one is split evenly over a
    # task's episodes (tasks.counterbalance), not a fair coin per episode.
    counterbalanced: bool = False
    # Multi-agent: the two objects drawn together, both in view (view_slopes) where such a pair
    # exists, else either drawn first by a coin, so the test's walk to the other object's place
    # is shaped like familiarization's walks to the preferred one.
    paired_view: bool = False


TIDY = SceneStyle("tidy", object_reach=4, home_reach=4, walls=None, region_radius=1,
                  region_gap=3, border_repeats=(0, 0), trial_frames=None,
                  released_colors=False)
# Real trials are 136-160 frames (31 at home, 21-45 moving, 84 holding). Offsets: the real
# files' cell offsets span -10..9 px (a centre stays in its cell); home up to 8.
RELEASED = SceneStyle("released", object_reach=10, home_reach=8, walls=(8, 16), region_radius=2,
                      region_gap=2, border_repeats=(2, 5), trial_frames=(136, 160),
                      released_colors=True, turn_step=1.0, view_slopes=(0.2, 0.7),
                      counterbalanced=True, paired_view=True)
# The released style before the preference coin was counterbalanced (and multi_agent's objects
# paired in view), byte for byte as the
# default made it from commit 498d6b9 up to this option (docs/bib.md, "Audit").
RELEASED_V3 = replace(RELEASED, name="released-v3", counterbalanced=False, paired_view=False)
# The released style before objects were drawn in view of the start, byte for byte as the
# default made it from commit db82b19 up to this option (docs/bib.md, "The agent's steps").
RELEASED_V2 = replace(RELEASED_V3, name="released-v2", view_slopes=None)
# ... and before the 1-px turn steps too (the default up to commit 775409a).
RELEASED_V1 = replace(RELEASED_V2, name="released-v1", turn_step=None)
STYLES = {s.name: s for s in (RELEASED, TIDY, RELEASED_V1, RELEASED_V2, RELEASED_V3)}
DEFAULT_STYLE = RELEASED.name

_CURRENT: ContextVar[SceneStyle] = ContextVar("bib_scene_style", default=RELEASED)


def fits_real_length(frames: int) -> bool:
    """Whether a trial of this many frames is as long as the real ones (released style; always
    True in the tidy style)."""
    window = current().trial_frames
    return window is None or window[0] <= frames <= window[1]


def get_style(name: str) -> SceneStyle:
    if name not in STYLES:
        raise UserError(f"unknown scene style {name!r}; choose one of {', '.join(STYLES)}")
    return STYLES[name]


def current() -> SceneStyle:
    """The style of the episode being built."""
    return _CURRENT.get()


@contextmanager
def using(style: SceneStyle) -> Iterator[None]:
    """Build with ``style`` inside the block."""
    token = _CURRENT.set(style)
    try:
        yield
    finally:
        _CURRENT.reset(token)

"""TalkItOut stepped as arrays: N environments at once, with the single environment's semantics.

Every environment's state lives in NumPy arrays indexed by environment; a step is a fixed number
of array operations whatever N is (Python loops only over rare events: refilling an environment's
block of random numbers). Lockstep equality with ``SyncVectorEnv`` of
:class:`~socialbench.talkitout.env.TalkItOutEnv` is tested.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from socialbench.talkitout.env import _DIR_VEC, _VIEW_X, _VIEW_Y, GRID_SIZE, MIN_ROOM, VIEW
from socialbench.talkitout.env import PAPER_T_MAX as _PAPER_T_MAX
from socialbench.talkitout.grammar import ACTION_NVEC, OPEN_SESAME, PRIMITIVES, WHERE_IS_THE_EXIT
from socialbench.talkitout.grammar import action_from_words as _words
from socialbench.talkitout.vocabulary import (
    GUIDE_LINE_TOKENS,
    MAX_STEP_TOKENS,
    TOKEN,
    VOCAB_SIZE,
    WIZARD_LINE_TOKENS,
    decode,
    guide_line,
    wizard_line,
)
from socialbench.talkitout.world import (
    GUIDE_NAMES,
    GUIDE_TYPE,
    NO_LIAR_GUIDE_NAME,
    NPC_OBJECT_INDEX,
    SEVEN_COLOURS,
    WIZARD_NAME,
    WIZARD_TYPE,
)


def _said(template: Any, noun: Any) -> Any:
    """One code per (template, noun) pair, the undefined indices included."""
    return template * ACTION_NVEC[2] + noun


# Each environment's grid: the 64 cells, x * 8 + y, then one wall for everything beyond the
# grid's edge (MiniGrid's Grid.slice shows walls there).
_OUTSIDE = GRID_SIZE * GRID_SIZE
_CELLS = _OUTSIDE + 1
_STEP = np.array([dx * GRID_SIZE + dy for dx, dy in _DIR_VEC], dtype=np.int64)


def _views() -> np.ndarray:
    """The grid cells of the 7x7 view from cell q facing d, at row q * 4 + d: (256, 49)."""
    views = np.empty((_OUTSIDE, 4, VIEW * VIEW), dtype=np.int64)
    for q, d in itertools.product(range(_OUTSIDE), range(4)):
        x, y = _VIEW_X[d].reshape(-1) + q // GRID_SIZE, _VIEW_Y[d].reshape(-1) + q % GRID_SIZE
        inside = (x >= 0) & (x < GRID_SIZE) & (y >= 0) & (y < GRID_SIZE)
        views[q, d] = np.where(inside, x * GRID_SIZE + y, _OUTSIDE)
    return views.reshape(_OUTSIDE * 4, VIEW * VIEW)


_VIEWS = _views()
_ROOM_SIZES = GRID_SIZE - MIN_ROOM + 1  # w, h in 5..8
_DOOR_CHOICES = GRID_SIZE - 4  # a door lies at 2 + (0..w-5) along its wall: at most 4 places
_FREE_MAX = (GRID_SIZE - 2) ** 2 - 4  # the longest free-cell list: an 8x8 room's

# A cell packed as one uint32, little-endian bytes (type, colour, state, NPC direction): one
# 4-byte gather builds a whole 7x7 view.
_EMPTY, _WALL = 1, 2 | 5 << 8  # MiniGrid's empty cell and grey wall
_CLOSED_DOOR = 4 | 1 << 16
_UNIFORMS_PER_LAYOUT = 24  # TalkItOutEnv._gen_grid: np_random.random(24)
_LIAR_SLOT = WIZARD_LINE_TOKENS + GUIDE_LINE_TOKENS + 4  # "<liar> go to the [colour] door"
_NOOP = np.array(_words(None), dtype=np.int64)  # no move, nothing said
# By primitive index (the 7 primitives, then no move): the turn, and whether it ends the
# episode (SocialAI 0.1, A.1.1: toggle and done end it with 0 reward).
_TURN = np.array([{"left": -1, "right": 1}.get(p, 0) for p in (*PRIMITIVES, None)])
_ENDS = np.array([p in ("toggle", "done") for p in (*PRIMITIVES, None)])
_FORWARD = PRIMITIVES.index("forward")
_WHERE_IS_THE_EXIT = _said(*_words(WHERE_IS_THE_EXIT)[1:])
_OPEN_SESAME = _said(*_words(OPEN_SESAME)[1:])
_NVEC = np.array(ACTION_NVEC, dtype=np.uint64)  # negative actions wrap round to huge values
_PARTS = ("primitive", "template", "noun")
_OTHER_DOORS = np.array([[j for j in range(4) if j != t] for t in range(4)], dtype=np.int64)
_COLOUR_TOKEN0 = TOKEN["red"]  # colour tokens follow MiniGrid's colour index order
# AutoresetMode's values ("NextStep") and the snake-case names, compared without "_" and case.
_AUTORESET_MODES = {m.value.lower(): m for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)}
_NAME_TOKEN = {name: TOKEN[name.lower()] for name in (WIZARD_NAME, *GUIDE_NAMES)}


# Which NPCs are 4-adjacent, from (NPC cell - agent cell + 64); both lie inside the room, so
# y never wraps round.
_NEXT_TO = np.zeros(2 * _OUTSIDE + 1, dtype=bool)
_NEXT_TO[_OUTSIDE + np.array([1, -1, GRID_SIZE, -GRID_SIZE])] = True
_NPC_BITS = np.array([1, 2, 4])


def _answer_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each set of answering NPCs (bits: wizard 1, guide 2, liar 4): the columns of the
    (wizard, guide, liar) line row that make the step's utterance, left-aligned, padded with
    the row's last column (always 0), (8, 15); and its length, (8,)."""
    spans = [range(0, WIZARD_LINE_TOKENS), range(WIZARD_LINE_TOKENS, _LIAR_SLOT - 4),
             range(_LIAR_SLOT - 4, MAX_STEP_TOKENS)]
    columns = np.full((8, MAX_STEP_TOKENS), MAX_STEP_TOKENS, dtype=np.int64)
    lengths = np.zeros(8, dtype=np.int64)
    for who in range(8):
        said = [c for j, span in enumerate(spans) if who >> j & 1 for c in span]
        columns[who, :len(said)] = said
        lengths[who] = len(said)
    return columns, lengths


_ANSWER_TOKENS, _ANSWER_LENGTH = _answer_tables()
_STEP_SLOTS = np.arange(MAX_STEP_TOKENS)


def _cell(x: Any, y: Any) -> Any:
    return x * GRID_SIZE + y


def _rooms() -> tuple[np.ndarray, np.ndarray]:
    """Every room size s = (w - 5) * 4 + (h - 5): the packed empty grid, (16, 65) uint32, and
    the cells of its interior in row-major order (y, then x), (16, 36), padded with -1."""
    rooms = np.full((_ROOM_SIZES**2, _CELLS), _WALL, dtype=np.uint32)
    interiors = np.full((_ROOM_SIZES**2, (GRID_SIZE - 2) ** 2), -1, dtype=np.int8)
    for s, (w, h) in enumerate(itertools.product(range(MIN_ROOM, GRID_SIZE + 1), repeat=2)):
        grid = rooms[s, :_OUTSIDE].reshape(GRID_SIZE, GRID_SIZE)  # [x, y]
        grid[:] = _EMPTY  # outside the room but inside the grid: empty
        grid[:w, :h] = _WALL
        grid[1:w - 1, 1:h - 1] = _EMPTY
        cells = [_cell(x, y) for y in range(1, h - 1) for x in range(1, w - 1)]
        interiors[s, :len(cells)] = cells
    return rooms, interiors


def _door_layouts() -> tuple[np.ndarray, ...]:
    """For every room size and door offsets, c = s * 256 + ((top * 4 + bottom) * 4 + left) * 4
    + right: the door cells (c, 4), the cells in front of them (c, 4), and the single env's
    free-cell list for NPCs (the interior without those, row-major) as cells and as interior
    ranks, (c, 32) each (combinations the draw cannot make are filled but never read)."""
    doors, fronts, free_cells, free_ranks = [], [], [], []
    for w, h in itertools.product(range(MIN_ROOM, GRID_SIZE + 1), repeat=2):
        interior = [(x, y) for y in range(1, h - 1) for x in range(1, w - 1)]
        for tx, bx, ly, ry in itertools.product(range(2, 2 + _DOOR_CHOICES), repeat=4):
            front = [(tx, 1), (bx, h - 2), (1, ly), (w - 2, ry)]
            doors.append([_cell(tx, 0), _cell(bx, h - 1), _cell(0, ly), _cell(w - 1, ry)])
            fronts.append([_cell(x, y) for x, y in front])
            free = [(rank, c) for rank, c in enumerate(interior) if c not in front]
            free += [(0, (1, 1))] * (_FREE_MAX - len(free))
            free_ranks.append([rank for rank, _ in free])
            free_cells.append([_cell(*c) for _, c in free])
    # int8 (cells are 0..64): small tables stay in cache for the random look-ups of resets.
    return tuple(np.array(a, dtype=np.int8) for a in (doors, fronts, free_cells, free_ranks))


_ROOMS, _INTERIORS = _rooms()
_DOORS, _FRONTS, _FREE_CELLS, _FREE_RANKS = _door_layouts()


def _colour_draws(n_colours: int) -> np.ndarray:
    """Four distinct door colours for every sequence of ``pool.pop(k)`` draws, indexed by the
    mixed-radix number of the four k's: (n * (n-1) * (n-2) * (n-3), 4)."""
    table = []
    for ks in itertools.product(*(range(n_colours - j) for j in range(4))):
        pool = list(range(n_colours))
        table.append([pool.pop(k) for k in ks])
    return np.array(table, dtype=np.int64)


@functools.cache
def _pick_table(n_npcs: int) -> np.ndarray:
    """The free-list indices the NPCs and then the agent take, for every sequence of draws
    k_0 < 32, k_1 < 31, ... (``list.pop(k)`` in turn), indexed by the draws as a mixed-radix
    number: (32 * 31 * ..., n_npcs + 1) int8 (3.5 MB with the liar)."""
    draws = np.indices([_FREE_MAX - j for j in range(n_npcs)]).reshape(n_npcs, -1)
    picks = np.empty_like(draws)
    for j, k in enumerate(draws):
        picks[j] = _skip(k, np.sort(picks[:j], axis=0).T)
    agent = np.tile(np.arange(_FREE_MAX - n_npcs), (picks.shape[1], 1))
    for taken in np.sort(picks, axis=0):
        agent += taken[:, None] <= agent
    table = np.empty((*agent.shape, n_npcs + 1), dtype=np.int8)
    table[..., :n_npcs] = picks.T[:, None, :]
    table[..., n_npcs] = agent
    return table.reshape(-1, n_npcs + 1)


def _skip(k: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """The k-th entry of a list once the entries at ``taken`` (rows sorted ascending) are
    popped: ``list.pop(k)`` after earlier pops, counted in the original list."""
    for j in range(taken.shape[1]):
        k = k + (taken[:, j] <= k)
    return k


class TalkItOutVectorEnv(VectorEnv):
    """N TalkItOut environments stepped together as NumPy arrays.

    ## Description
    The same environment as :class:`~socialbench.talkitout.env.TalkItOutEnv` (see its
    docstring for the task), with every parameter that changes its behaviour: a run from the
    same seeds and actions gives the same layouts, views, answers (the liar's included), rewards,
    terminations and truncations as ``gymnasium.vector.SyncVectorEnv`` of single environments,
    across autoresets. Utterances travel as token ids (:mod:`socialbench.talkitout.vocabulary`).

    ## Action space
    ``MultiDiscrete`` of shape (N, 3): one (primitive, template, noun) row per environment, as
    the single environment's ``MultiDiscrete([8, 5, 17])``. Anything outside it raises a
    ValueError naming the environment index and the part.

    ## Observation space
    ``Dict`` of arrays, one row per environment:
    - ``image``: (N, 7, 7, 3) uint8, or (N, 7, 7, 4) with ``npc_direction_channel=True``. The
      3-channel image is a view of the 4-byte cells (strides (196, 28, 4, 1)), which saves a
      copy; ``torch.from_numpy`` takes it as it is, ``np.ascontiguousarray`` packs it.
    - ``direction``: (N,) int64, 0..3.
    - ``utterance``: (N, 15) uint8, the token ids heard this step, left-aligned, zero-padded;
      all zeros when nothing was heard (the single env's ``"NA\\n"``).
    - ``utterance_history_length``: (N,) int64, how many tokens were heard this episode.
    - ``utterance_history`` (only with ``history_in_obs=True``): (N, 15 * t_max) uint8, every
      token heard this episode, left-aligned, zero-padded (the single env's history string,
      tokenised). Copying it costs 15 * t_max bytes an environment a step (at 1024 envs a
      quarter of a step's time), and a learner that feeds each step's ``utterance`` to a
      recurrent encoder never needs it, so by default it stays out of the observation and
      :meth:`utterance_history` returns it on demand.
    :func:`~socialbench.talkitout.vocabulary.decode` turns a row back into the single env's text;
    :meth:`utterance_texts` does it for every environment's current utterance and history.

    ## Rewards, termination
    As the single environment: "Open sesame" in front of the exit pays ``1 - 0.9 * t / t_max``;
    "Open sesame" at a wrong door, toggle and done end the episode with 0; truncation after
    ``t_max`` steps.

    ## Autoreset
    ``autoreset_mode`` is ``AutoresetMode.NEXT_STEP`` (or ``"next_step"``; Gymnasium's default:
    the step after an episode ends resets that environment, ignoring its action, with reward 0)
    or ``AutoresetMode.SAME_STEP`` (``"same_step"``: the step that ends an episode returns the
    next episode's first observation with the final reward, terminated and truncated; of the
    final observation only the utterance is kept: ``info["final_obs"]["utterance"]``, rows of
    ``info["_final_obs"]`` valid). It is in ``metadata["autoreset_mode"]``.

    ## Seeding
    ``reset(seed=s)`` seeds environment i with ``s + i`` (a list gives one seed each), as
    ``SyncVectorEnv`` does; each environment consumes its generator's doubles in the same order
    as the single environment (24 a layout, one a liar's answer), drawn in blocks of
    ``block_size``.

    ## Parameters
    ``num_envs``, then the single environment's ``liar``, ``t_max``,
    ``agent_start_in_front_of_door``, ``n_colours``, ``npc_direction_channel`` and
    ``see_through_walls`` (True only: occluding walls are not vectorised), and ``autoreset_mode``,
    ``history_in_obs`` (see above) and ``block_size``.
    """

    def __init__(
        self,
        num_envs: int,
        liar: bool = True,
        t_max: int = _PAPER_T_MAX,
        agent_start_in_front_of_door: bool = False,
        n_colours: int = 6,
        npc_direction_channel: bool = False,
        see_through_walls: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        history_in_obs: bool = False,
        block_size: int = 4096,
        render_mode: str | None = None,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if n_colours not in (6, 7):
            raise ValueError(f"n_colours must be 6 (paper) or 7 (released code), got {n_colours}")
        if int(t_max) < 1:
            raise ValueError(f"t_max must be a positive number of steps, got {t_max}")
        if not see_through_walls:
            raise ValueError("TalkItOutVectorEnv supports see_through_walls=True only (the "
                             "paper's and released setting); use SyncVectorEnv of TalkItOutEnv "
                             "for occluding walls")
        if render_mode is not None:
            raise ValueError("TalkItOutVectorEnv does not render; use TalkItOutEnv for frames")
        mode = _AUTORESET_MODES.get(str(getattr(autoreset_mode, "value", autoreset_mode))
                                    .replace("_", "").lower())
        if mode is None:
            raise ValueError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP "
                             f"(or 'next_step' / 'same_step'), got {autoreset_mode!r}")
        if int(block_size) < 2 * _UNIFORMS_PER_LAYOUT:
            raise ValueError(f"block_size must be at least {2 * _UNIFORMS_PER_LAYOUT}")
        self.num_envs = n = int(num_envs)
        self.liar = bool(liar)
        self.t_max = int(t_max)
        self.agent_start_in_front_of_door = bool(agent_start_in_front_of_door)
        self.n_colours = int(n_colours)
        self.npc_direction_channel = bool(npc_direction_channel)
        self.autoreset_mode = mode
        self.history_in_obs = bool(history_in_obs)
        self.render_mode = None
        self.metadata = {"render_modes": [], "autoreset_mode": mode}
        self.history_size = MAX_STEP_TOKENS * self.t_max  # at most 15 tokens a step

        channels = 4 if self.npc_direction_channel else 3
        tokens = spaces.Box(0, VOCAB_SIZE - 1, (MAX_STEP_TOKENS,), dtype=np.uint8)
        obs_spaces: dict[str, spaces.Space] = {
            "image": spaces.Box(0, 255, (VIEW, VIEW, channels), dtype=np.uint8),
            "direction": spaces.Discrete(4),
            "utterance": tokens,
            "utterance_history_length": spaces.Box(0, self.history_size, (), dtype=np.int64),
        }
        if self.history_in_obs:
            obs_spaces["utterance_history"] = spaces.Box(0, VOCAB_SIZE - 1, (self.history_size,),
                                                         dtype=np.uint8)
        self.single_observation_space = spaces.Dict(obs_spaces)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.single_action_space = spaces.MultiDiscrete(np.array(ACTION_NVEC, dtype=np.int64))
        self.action_space = batch_space(self.single_action_space, n)

        self._n_npcs = 3 if self.liar else 2
        # NPC codes without colour and direction: (11, -, npc_type) in roles order.
        self._npc_kind = np.array([NPC_OBJECT_INDEX | t << 16
                                   for t in (WIZARD_TYPE, GUIDE_TYPE, GUIDE_TYPE)[:self._n_npcs]],
                                  dtype=np.uint32)
        self._multipliers = self._draw_sizes()
        nc = self.n_colours
        self._colour_draws = _colour_draws(nc)
        self._colour_radix = np.array([(nc - 1) * (nc - 2) * (nc - 3), (nc - 2) * (nc - 3),
                                       nc - 3, 1])
        self._line_table = self._lines_said()
        self._picks = _pick_table(self._n_npcs)
        self._pick_radix = np.array([math.prod(range(_FREE_MAX - self._n_npcs, _FREE_MAX - j))
                                     for j in range(self._n_npcs + 1)])
        self._bounds = np.tile(_NVEC, n)
        self._rows = np.arange(n)
        self._row_cells = self._rows * _CELLS
        self._block = int(block_size)
        self._rngs: list[np.random.Generator] = []
        self._uniforms = np.empty((n, self._block))
        self._next = np.full(n, self._block, dtype=np.int64)  # next unused double of each row
        self._cells = np.empty((n, _CELLS), dtype=np.uint32)
        self._pos = np.zeros(n, dtype=np.int64)  # the agent's cell, x * 8 + y
        self._dir = np.zeros(n, dtype=np.int64)
        self._npc_pos = np.zeros((n, self._n_npcs), dtype=np.int64)
        # The rest of a layout as codes, read back only when someone speaks: the door cells
        # (row of _DOORS), the door colours (row of the colour table), the exit, whether the
        # guides' names are swapped.
        self._doors = np.zeros(n, dtype=np.int64)
        self._colours = np.zeros(n, dtype=np.int64)
        self._target = np.zeros(n, dtype=np.int64)
        self._swapped = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._history = np.zeros((n, self.history_size), dtype=np.uint8)
        self._history_len = np.zeros(n, dtype=np.int64)
        self._utterance = np.zeros((n, MAX_STEP_TOKENS), dtype=np.uint8)
        self._autoreset = np.zeros(n, dtype=bool)
        self._started = False
        self._bind()

    def _bind(self) -> None:
        """Views derived from the state arrays (again after set_state replaces them)."""
        # Each row's next 24 doubles as one row of a strided view: a layout's draws come with
        # one index per environment instead of 24.
        self._windows = np.lib.stride_tricks.sliding_window_view(self._uniforms.reshape(-1),
                                                                 _UNIFORMS_PER_LAYOUT)
        # Each environment's first grid cell, repeated over the 49 view cells (adding it
        # without broadcasting is ~2x cheaper).
        self._view_base = np.repeat(self._row_cells[:, None], VIEW * VIEW, axis=1)
        self._view_cells = np.empty_like(self._view_base)  # reused: no fresh pages each step

    def _draw_sizes(self) -> np.ndarray:
        """The n of each draw int(u * n) of TalkItOutEnv._gen_grid, by room size: (16, used)."""
        nc, n = self.n_colours, self._n_npcs
        table = []
        for w, h in itertools.product(range(MIN_ROOM, GRID_SIZE + 1), repeat=2):
            free = (w - 2) * (h - 2) - 4  # the interior less the cells in front of doors
            agent = free - n + (4 if self.agent_start_in_front_of_door else 0)
            table.append([_ROOM_SIZES, _ROOM_SIZES, w - 4, w - 4, h - 4, h - 4,
                          nc, nc - 1, nc - 2, nc - 3, 4, 2, nc, nc, nc, 4, 4, 4,
                          *(free - j for j in range(n)), agent, 4])
        return np.array(table, dtype=np.float64)  # u * float(n) == u * n exactly

    def _lines_said(self) -> np.ndarray:
        """The NPCs' answers, wizard, guide, liar, as tokens, then a 0 that pads a step's
        utterance, for every (names swapped, exit colour): (2 * n_colours, 16); the liar's
        colour slot is filled at each question."""
        table = np.zeros((2, self.n_colours, MAX_STEP_TOKENS + 1), dtype=np.uint8)
        for swapped, colour in itertools.product(range(2), range(self.n_colours)):
            if self.liar:
                true, liar = GUIDE_NAMES[::-1] if swapped else GUIDE_NAMES
                liar_line = guide_line(liar, SEVEN_COLOURS[0])
            else:
                true, liar_line = NO_LIAR_GUIDE_NAME, []
            said = [*wizard_line(true), *guide_line(true, SEVEN_COLOURS[colour]), *liar_line]
            table[swapped, colour, :len(said)] = said
        return table.reshape(2 * self.n_colours, MAX_STEP_TOKENS + 1)

    # ---------------------------------------------------------------- randomness
    def _seed(self, rows: np.ndarray, seeds: list[int | None]) -> None:
        if not self._rngs:
            self._rngs = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        for i, s in zip(rows.tolist(), seeds, strict=True):
            self._rngs[i] = seeding.np_random(s)[0]
            self._uniforms[i] = self._rngs[i].random(self._block)
            self._next[i] = 0

    def _refill(self, need: int) -> None:
        """Keep at least ``need`` unused doubles in every row (rare: once a block)."""
        for i in np.flatnonzero(self._next > self._block - need).tolist():
            left = self._block - self._next[i]
            self._uniforms[i, :left] = self._uniforms[i, self._next[i]:]
            self._uniforms[i, left:] = self._rngs[i].random(self._block - left)
            self._next[i] = 0

    def _take(self, rows: np.ndarray, count: int, used: int | None = None) -> np.ndarray:
        """The next ``count`` doubles of each row's stream, of which the first ``used`` are
        returned, (len(rows), used)."""
        first = self._next[rows]
        self._next[rows] = first + count
        return self._windows[rows * self._block + first, :used or count]

    # ---------------------------------------------------------------- layouts
    def _new_layouts(self, rows: np.ndarray) -> None:
        """TalkItOutEnv._gen_grid for every environment in ``rows``, as table look-ups."""
        n = self._n_npcs
        u = self._take(rows, _UNIFORMS_PER_LAYOUT, self._multipliers.shape[1])
        # Every draw int(u * n) at once; the n of most draws depends on the room size only.
        size = (u[:, :2] * _ROOM_SIZES).astype(np.int64) @ np.array([_ROOM_SIZES, 1])
        k = (u * self._multipliers[size]).astype(np.int64)
        layout = size * _DOOR_CHOICES**4 + k[:, 2:6] @ _DOOR_CHOICES ** np.arange(3, -1, -1)
        colour_code = k[:, 6:10] @ self._colour_radix
        colours = self._colour_draws[colour_code]
        # NPCs pop from the free-cell list in turn, then the agent picks from what is left.
        draws = k[:, 18:18 + n] @ self._pick_radix[:n]
        if not self.agent_start_in_front_of_door:  # (the agent's own draw may exceed 28 there)
            draws += k[:, 18 + n]
        picks = self._picks[draws]
        cells = _FREE_CELLS[layout[:, None], picks]
        npc_cells, agent = cells[:, :n], cells[:, n]
        if self.agent_start_in_front_of_door:  # the list is the whole interior but the NPCs
            taken = _FREE_RANKS[layout[:, None], np.sort(picks[:, :n], axis=1)]
            agent = _INTERIORS[size, _skip(k[:, 18 + n], taken)]

        # The packed grid: the empty room, then doors and NPCs.
        self._cells[rows] = _ROOMS[size]
        grid = self._cells.reshape(-1)
        base = rows[:, None] * _CELLS
        grid[base + _DOORS[layout]] = _CLOSED_DOOR | colours.astype(np.uint32) << 8
        codes = self._npc_kind | k[:, 12:12 + n].astype(np.uint32) << 8
        if self.npc_direction_channel:
            codes |= k[:, 15:15 + n].astype(np.uint32) << 24
        grid[base + npc_cells] = codes
        self._npc_pos[rows] = npc_cells
        self._pos[rows] = agent
        self._dir[rows] = k[:, 19 + n]
        self._doors[rows] = layout
        self._colours[rows] = colour_code
        self._target[rows] = k[:, 10]
        self._swapped[rows] = k[:, 11]

    def _start_episodes(self, rows: np.ndarray, heard: bool = True) -> None:
        """Reset the environments in ``rows`` (their streams continue); ``heard=False`` when
        no environment heard anything this step (its utterance is already blank)."""
        self._new_layouts(rows)
        self._steps[rows] = 0
        if heard:
            self._utterance[rows] = 0
        heard = rows[self._history_len[rows] > 0]
        self._history[heard] = 0
        self._history_len[rows] = 0

    # ---------------------------------------------------------------- gymnasium API
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every environment (``options={"reset_mask": mask}``: only those in the mask),
        seeding them as ``SyncVectorEnv`` does."""
        n = self.num_envs
        mask = np.ones(n, dtype=bool)
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (n,) or mask.dtype != np.bool_ or not mask.any():
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},) "
                                 f"with at least one True")
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"a list of seeds must have num_envs={n} entries, "
                                 f"got {len(seeds)}")
        rows = np.flatnonzero(mask)
        # Unseeded environments keep their streams once started (as a single env's reset()).
        fresh = [i for i in rows.tolist() if seeds[i] is not None or not self._started]
        self._seed(np.array(fresh, dtype=np.int64), [seeds[i] for i in fresh])
        self._refill(_UNIFORMS_PER_LAYOUT)
        self._start_episodes(rows)
        self._autoreset[rows] = False
        self._started = True
        return self._observation(), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        """Step every environment; see the class docstring for autoreset."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        action = self._check(actions)
        pending = np.flatnonzero(self._autoreset)  # next_step mode: these only reset
        if len(pending):
            action = action.copy()
            action[pending] = _NOOP
        self._refill(_UNIFORMS_PER_LAYOUT + 1)  # a liar's answer and a new layout at most
        move, template, noun = action[:, 0], action[:, 1], action[:, 2]

        # The primitive first: turns, forward into an empty cell, toggle/done end the episode.
        d = (self._dir + _TURN[move]) & 3
        self._dir = d
        ahead = self._pos + _STEP[d]
        free = np.take(self._cells.reshape(-1), self._row_cells + ahead, mode="clip") == _EMPTY
        self._pos = np.where((move == _FORWARD) & free, ahead, self._pos)
        terminated = _ENDS[move]

        # Then the sentence, from the new cell (nothing is said in a step that ended).
        reward = np.zeros(self.num_envs)
        self._steps += 1
        said = _said(template, noun)
        said[terminated] = -1
        self._utterance.fill(0)
        asking = np.flatnonzero(said == _WHERE_IS_THE_EXIT)
        if len(asking):
            self._answer(asking)
        opening = np.flatnonzero(said == _OPEN_SESAME)
        if len(opening):
            at_door = _FRONTS[self._doors[opening]] == self._pos[opening, None]
            ends = opening[at_door.any(axis=1)]
            terminated[ends] = True
            wins = opening[at_door[np.arange(len(opening)), self._target[opening]]]
            reward[wins] = 1.0 - 0.9 * (self._steps[wins] / self.t_max)  # Eq. 1
        truncated = ~terminated & (self._steps >= self.t_max)

        info: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            ended = terminated | truncated
            done = np.flatnonzero(ended)
            if len(done):
                # What the ended envs heard on their last step (a language bonus counts it);
                # the rest of the final observation is not kept.
                info = {"final_obs": {"utterance": self._utterance.copy()}, "_final_obs": ended}
                self._start_episodes(done, heard=len(asking) > 0)
        else:
            if len(pending):
                self._start_episodes(pending, heard=False)  # they did nothing this step
                reward[pending] = 0.0
                terminated[pending] = truncated[pending] = False
            self._autoreset = terminated | truncated
        return self._observation(), reward, terminated, truncated, info

    def _check(self, actions: Any) -> np.ndarray:
        """Actions as an (N, 3) int64 array; a ValueError names the first wrong env and part."""
        raw = np.asarray(actions)
        if raw.shape != (self.num_envs, 3):
            raise ValueError(f"actions must have shape ({self.num_envs}, 3) = one (primitive, "
                             f"template, noun) row per environment, got {raw.shape}")
        action = np.ascontiguousarray(raw, dtype=np.int64)
        if raw.dtype.kind not in "iub" and not np.array_equal(action, raw):
            raise ValueError(f"actions must be integers, got dtype {raw.dtype}")
        # One flat comparison (negatives wrap round as unsigned); broadcasting over rows of 3
        # costs several times more.
        if (action.reshape(-1).view(np.uint64) >= self._bounds).any():
            i, part = np.argwhere(action.view(np.uint64) >= _NVEC)[0]
            raise ValueError(f"environment {i}: action {_PARTS[part]} index {action[i, part]} "
                             f"is outside 0..{_NVEC[part] - 1} ({_NVEC[part] - 1} means "
                             f"undefined)")
        return action

    def _answer(self, rows: np.ndarray) -> None:
        """Every NPC 4-adjacent to the agent answers, in wizard, guide, liar order."""
        near = _NEXT_TO[self._npc_pos[rows] - self._pos[rows, None] + _OUTSIDE]
        colours, target = self._colour_draws[self._colours[rows]], self._target[rows]
        exit_colour = colours[np.arange(len(rows)), target]
        lines = self._line_table[self._swapped[rows] * self.n_colours + exit_colour]
        if self.liar:
            liars = np.flatnonzero(near[:, 2])
            if len(liars):  # a wrong door, drawn afresh: int(u * 3) over the other three
                pick = (self._take(rows[liars], 1)[:, 0] * 3).astype(np.int64)
                wrong = _OTHER_DOORS[target[liars], pick]
                lines[liars, _LIAR_SLOT] = colours[liars, wrong] + _COLOUR_TOKEN0
        who = near @ _NPC_BITS[:self._n_npcs]
        said = lines[np.arange(len(rows))[:, None], _ANSWER_TOKENS[who]]
        self._utterance[rows] = said
        # 15 more tokens always fit (at most 15 a step); those past the answers are padding.
        self._history[rows[:, None], self._history_len[rows, None] + _STEP_SLOTS] = said
        self._history_len[rows] += _ANSWER_LENGTH[who]

    def _observation(self) -> dict[str, np.ndarray]:
        # mode="clip": the indices are valid by construction, and numpy skips both its bounds
        # check and (with out=) its buffering.
        cells = np.take(_VIEWS, self._pos * 4 + self._dir, axis=0, out=self._view_cells,
                        mode="clip")
        np.add(cells, self._view_base, out=cells)
        packed = np.take(self._cells.reshape(-1), cells, mode="clip")
        image = packed.view(np.uint8).reshape(self.num_envs, VIEW, VIEW, 4)
        if not self.npc_direction_channel:
            image = image[..., :3]
        obs = {"image": image, "direction": self._dir.copy(), "utterance": self._utterance.copy(),
               "utterance_history_length": self._history_len.copy()}
        if self.history_in_obs:
            obs["utterance_history"] = self._history.copy()
        return obs

    def utterance_history(self, copy: bool = True) -> np.ndarray:
        """Every token heard this episode by each environment, (N, 15 * t_max) uint8,
        left-aligned, zero-padded; ``copy=False`` gives the environment's own buffer, which the
        next step or reset changes."""
        return self._history.copy() if copy else self._history

    def exit_colour_tokens(self) -> np.ndarray:
        """The token id of each environment's exit colour, as the true guide says it (the
        answer an agent should act on; for diagnostics, never an observation)."""
        colours = self._colour_draws[self._colours]
        return colours[self._rows, self._target] + _COLOUR_TOKEN0

    def utterance_texts(self) -> list[tuple[str, str]]:
        """(utterance, history) of each environment now, as the single env's strings."""
        return [(decode(u), decode(h, empty=""))
                for u, h in zip(self._utterance, self._history, strict=True)]

    # ---------------------------------------------------------------- checkpoints
    # Every array that changes while the environments run (the rest is fixed by __init__).
    _STATE_ARRAYS = ("_uniforms", "_next", "_cells", "_pos", "_dir", "_npc_pos", "_doors",
                     "_colours", "_target", "_swapped", "_steps", "_history", "_history_len",
                     "_utterance", "_autoreset")

    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly where the environments are (a training
        checkpoint): arrays as they are, each generator's state as plain Python values."""
        return {"arrays": {name: getattr(self, name).copy() for name in self._STATE_ARRAYS},
                "generators": [g.bit_generator.state for g in self._rngs],
                "started": self._started}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`get_state`'s output (of an environment built the same way)."""
        for name in self._STATE_ARRAYS:
            array = np.asarray(state["arrays"][name])
            current = getattr(self, name)
            if array.shape != current.shape:
                raise ValueError(f"saved environment state {name} has shape {array.shape}, "
                                 f"this environment {current.shape}: build it with the same "
                                 f"num_envs, t_max and variant")
            setattr(self, name, array.astype(current.dtype, copy=True))
        self._rngs = []
        for saved in state["generators"]:
            generator = np.random.Generator(np.random.PCG64())
            generator.bit_generator.state = saved
            self._rngs.append(generator)
        self._started = bool(state["started"])
        self._bind()

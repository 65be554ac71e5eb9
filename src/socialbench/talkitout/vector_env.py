"""TalkItOut stepped as arrays: N environments at once, with the single environment's semantics.

Every environment's state lives in NumPy arrays indexed by environment; a step is a fixed number
of array operations whatever N is (Python loops only over rare events: refilling an environment's
block of random numbers). Lockstep equality with ``SyncVectorEnv`` of
:class:`~socialbench.talkitout.env.TalkItOutEnv` is tested.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from socialbench.talkitout.env import _DIR_VEC, _VIEW_X, _VIEW_Y, GRID_SIZE, MIN_ROOM, VIEW
from socialbench.talkitout.env import PAPER_T_MAX as _PAPER_T_MAX
from socialbench.talkitout.grammar import ACTION_NVEC, OPEN_SESAME, WHERE_IS_THE_EXIT
from socialbench.talkitout.grammar import action_from_words as _words
from socialbench.talkitout.vocabulary import (
    GUIDE_LINE_TOKENS,
    MAX_STEP_TOKENS,
    TOKEN,
    VOCAB_SIZE,
    WIZARD_LINE_TOKENS,
    decode,
)
from socialbench.talkitout.world import (
    GUIDE_NAMES,
    NO_LIAR_GUIDE_NAME,
    NPC_OBJECT_INDEX,
    WIZARD_NAME,
)


def _said(template: Any, noun: Any) -> Any:
    """One code per (template, noun) pair, the undefined indices included."""
    return template * ACTION_NVEC[2] + noun


_PAD = VIEW - 1  # the single env's padding: a view from any cell stays inside the array
_SIDE = GRID_SIZE + 2 * _PAD
_CELLS = _SIDE * _SIDE
# A padded cell (x, y) is the flat index (x + pad) * side + (y + pad), as env._enc[x, y].
_STEP = np.array([dx * _SIDE + dy for dx, dy in _DIR_VEC], dtype=np.int64)
_ADJACENT = np.array([1, -1, _SIDE, -_SIDE], dtype=np.int64)
# View cell (i, j) facing d, as a flat offset from the agent's cell: (4, 49).
_VIEW_OFFSETS = np.stack([(vx * _SIDE + vy).reshape(-1) for vx, vy in zip(_VIEW_X, _VIEW_Y,
                                                                          strict=True)])
# Row-major cell order of the single env's free-cell list (y, then x) -> padded flat index.
_Q_TO_CELL = np.array([(q % GRID_SIZE + _PAD) * _SIDE + q // GRID_SIZE + _PAD
                       for q in range(GRID_SIZE * GRID_SIZE)], dtype=np.int64)
_ROOM_SIZES = GRID_SIZE - MIN_ROOM + 1  # w, h in 5..8

# A cell packed as one uint32, little-endian bytes (type, colour, state, NPC direction): one
# 4-byte gather builds a whole 7x7 view.
_EMPTY, _WALL = 1, 2 | 5 << 8  # MiniGrid's empty cell and grey wall
_CLOSED_DOOR = 4 | 1 << 16
_WIZARD, _GUIDE = 0, 1
_UNIFORMS_PER_LAYOUT = 24  # TalkItOutEnv._gen_grid: np_random.random(24)
_LIAR_SLOT = WIZARD_LINE_TOKENS + GUIDE_LINE_TOKENS + 4  # "<liar> go to the [colour] door"
_NOOP = np.array(_words(None), dtype=np.int64)  # no move, nothing said
_WHERE_IS_THE_EXIT = _said(*_words(WHERE_IS_THE_EXIT)[1:])
_OPEN_SESAME = _said(*_words(OPEN_SESAME)[1:])
_NVEC = np.array(ACTION_NVEC, dtype=np.int64)
_PARTS = ("primitive", "template", "noun")
_OTHER_DOORS = np.array([[j for j in range(4) if j != t] for t in range(4)], dtype=np.int64)
_COLOUR_TOKEN0 = TOKEN["red"]  # colour tokens follow MiniGrid's colour index order
# AutoresetMode's values ("NextStep") and the snake-case names, compared without "_" and case.
_AUTORESET_MODES = {m.value.lower(): m for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)}
_NAME_TOKEN = {name: TOKEN[name.lower()] for name in (WIZARD_NAME, *GUIDE_NAMES)}


def _room_templates() -> tuple[np.ndarray, np.ndarray]:
    """Packed empty rooms, (4, 4, cells) uint32, and free interiors in row-major order,
    (4, 4, 64) bool, for every room size w, h in 5..8."""
    rooms = np.full((_ROOM_SIZES, _ROOM_SIZES, _SIDE, _SIDE), _WALL, dtype=np.uint32)
    interiors = np.zeros((_ROOM_SIZES, _ROOM_SIZES, GRID_SIZE, GRID_SIZE), dtype=bool)
    grid = slice(_PAD, _PAD + GRID_SIZE)
    for wi in range(_ROOM_SIZES):
        for hi in range(_ROOM_SIZES):
            w, h = MIN_ROOM + wi, MIN_ROOM + hi
            rooms[wi, hi, grid, grid] = _EMPTY  # outside the room but inside the grid: empty
            rooms[wi, hi, _PAD:_PAD + w, _PAD:_PAD + h] = _WALL
            rooms[wi, hi, _PAD + 1:_PAD + w - 1, _PAD + 1:_PAD + h - 1] = _EMPTY
            interiors[wi, hi, 1:h - 1, 1:w - 1] = True  # [y, x]: row-major q = y * 8 + x
    return (rooms.reshape(_ROOM_SIZES, _ROOM_SIZES, _CELLS),
            interiors.reshape(_ROOM_SIZES, _ROOM_SIZES, -1))


_ROOMS, _INTERIORS = _room_templates()


def _kth_free(free: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Row-major index of each row's k-th True cell: ``list.pop(k)`` on the free-cell list."""
    return (np.cumsum(free, axis=1) <= k[:, None]).sum(axis=1)


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
    - ``image``: (N, 7, 7, 3) uint8, or (N, 7, 7, 4) with ``npc_direction_channel=True``.
    - ``direction``: (N,) int64, 0..3.
    - ``utterance``: (N, 15) uint8, the token ids heard this step, left-aligned, zero-padded;
      all zeros when nothing was heard (the single env's ``"NA\\n"``).
    - ``utterance_history``: (N, 15 * t_max) uint8, every token heard this episode, left-aligned,
      zero-padded (the single env's history string, tokenised).
    - ``utterance_history_length``: (N,) int64, the number of tokens in the history.
    :func:`~socialbench.talkitout.vocabulary.decode` turns a row back into the single env's text;
    :meth:`utterance_texts` does it for the last observation.

    ## Rewards, termination
    As the single environment: "Open sesame" in front of the exit pays ``1 - 0.9 * t / t_max``;
    "Open sesame" at a wrong door, toggle and done end the episode with 0; truncation after
    ``t_max`` steps.

    ## Autoreset
    ``autoreset_mode`` is ``AutoresetMode.NEXT_STEP`` (or ``"next_step"``; Gymnasium's default:
    the step after an episode ends resets that environment, ignoring its action, with reward 0)
    or ``AutoresetMode.SAME_STEP`` (``"same_step"``: the step that ends an episode returns the
    next episode's first observation with the final reward, terminated and truncated; the final
    observation is not kept). It is in ``metadata["autoreset_mode"]``.

    ## Seeding
    ``reset(seed=s)`` seeds environment i with ``s + i`` (a list gives one seed each), as
    ``SyncVectorEnv`` does; each environment consumes its generator's doubles in the same order
    as the single environment (24 a layout, one a liar's answer), drawn in blocks of
    ``block_size``.

    ## Parameters
    ``num_envs``, then the single environment's ``liar``, ``t_max``,
    ``agent_start_in_front_of_door``, ``n_colours``, ``npc_direction_channel`` and
    ``see_through_walls`` (True only: occluding walls are not vectorised), and ``autoreset_mode``,
    ``copy`` (False: ``utterance_history`` is the environment's own buffer, valid until the next
    step or reset; saves copying 15 * t_max bytes an environment a step) and ``block_size``.
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
        copy: bool = True,
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
        self.copy = bool(copy)
        self.render_mode = None
        self.metadata = {"render_modes": [], "autoreset_mode": mode}
        self.history_size = MAX_STEP_TOKENS * self.t_max  # at most 15 tokens a step

        channels = 4 if self.npc_direction_channel else 3
        tokens = spaces.Box(0, VOCAB_SIZE - 1, (MAX_STEP_TOKENS,), dtype=np.uint8)
        self.single_observation_space = spaces.Dict({
            "image": spaces.Box(0, 255, (VIEW, VIEW, channels), dtype=np.uint8),
            "direction": spaces.Discrete(4),
            "utterance": tokens,
            "utterance_history": spaces.Box(0, VOCAB_SIZE - 1, (self.history_size,),
                                            dtype=np.uint8),
            "utterance_history_length": spaces.Box(0, self.history_size, (), dtype=np.int64),
        })
        self.observation_space = batch_space(self.single_observation_space, n)
        self.single_action_space = spaces.MultiDiscrete(_NVEC.copy())
        self.action_space = batch_space(self.single_action_space, n)

        self._n_npcs = 3 if self.liar else 2
        # NPC codes without colour and direction: (11, -, npc_type) in roles order.
        self._npc_kind = np.array([NPC_OBJECT_INDEX | t << 16
                                   for t in (_WIZARD, _GUIDE, _GUIDE)[:self._n_npcs]],
                                  dtype=np.uint32)
        self._rows = np.arange(n)
        self._row_cells = self._rows * _CELLS
        self._block = int(block_size)
        self._rngs: list[np.random.Generator] = []
        self._uniforms = np.empty((n, self._block))
        self._next = np.full(n, self._block, dtype=np.int64)  # next unused double of each row
        self._cells = np.empty((n, _CELLS), dtype=np.uint32)
        self._pos = np.zeros(n, dtype=np.int64)  # padded flat index of the agent's cell
        self._dir = np.zeros(n, dtype=np.int64)
        self._npc_pos = np.zeros((n, self._n_npcs), dtype=np.int64)
        self._fronts = np.zeros((n, 4), dtype=np.int64)  # the cell in front of each door
        self._target = np.zeros(n, dtype=np.int64)
        self._lines = np.zeros((n, MAX_STEP_TOKENS), dtype=np.uint8)  # wizard, guide, liar
        self._wrong = np.zeros((n, 3), dtype=np.uint8)  # the liar's colour tokens
        self._steps = np.zeros(n, dtype=np.int64)
        self._history = np.zeros((n, self.history_size), dtype=np.uint8)
        self._history_len = np.zeros(n, dtype=np.int64)
        self._utterance = np.zeros((n, MAX_STEP_TOKENS), dtype=np.uint8)
        self._autoreset = np.zeros(n, dtype=bool)
        self._started = False

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

    def _take(self, rows: np.ndarray, count: int) -> np.ndarray:
        """The next ``count`` doubles of each row's stream, (len(rows), count)."""
        start = rows * self._block + self._next[rows]
        self._next[rows] += count
        return self._uniforms.reshape(-1)[start[:, None] + np.arange(count)]

    # ---------------------------------------------------------------- layouts
    def _new_layouts(self, rows: np.ndarray) -> None:
        """TalkItOutEnv._gen_grid for every environment in ``rows``, vectorised."""
        u = self._take(rows, _UNIFORMS_PER_LAYOUT)
        r = np.arange(len(rows))[:, None]

        def draw(col: int | slice, n: Any) -> np.ndarray:  # int(u * n), as the single env
            return (u[:, col] * n).astype(np.int64)

        wi, hi = draw(0, _ROOM_SIZES), draw(1, _ROOM_SIZES)
        w, h = wi + MIN_ROOM, hi + MIN_ROOM
        # Door cells (x, y) and the room cell in front of each, row-major q = y * 8 + x.
        door_x = np.stack([2 + draw(2, w - 4), 2 + draw(3, w - 4), np.zeros_like(w), w - 1], 1)
        door_y = np.stack([np.zeros_like(h), h - 1, 2 + draw(4, h - 4), 2 + draw(5, h - 4)], 1)
        front_x = np.stack([door_x[:, 0], door_x[:, 1], np.ones_like(w), w - 2], 1)
        front_y = np.stack([np.ones_like(h), h - 2, door_y[:, 2], door_y[:, 3]], 1)
        front_q = front_y * GRID_SIZE + front_x
        # Four distinct door colours: pool.pop(k) four times.
        pool = np.ones((len(rows), self.n_colours), dtype=bool)
        colours = np.empty((len(rows), 4), dtype=np.int64)
        for j in range(4):
            colours[:, j] = c = _kth_free(pool, draw(6 + j, self.n_colours - j))
            pool[r[:, 0], c] = False
        target = draw(10, 4)
        swapped = draw(11, 2) == 1
        npc_colours = draw(slice(12, 15), self.n_colours)[:, :self._n_npcs]
        npc_dirs = draw(slice(15, 18), 4)[:, :self._n_npcs]
        # NPC cells: inside the room, never in front of a door, never on each other.
        free = _INTERIORS[wi, hi]
        free[r, front_q] = False
        count = (w - 2) * (h - 2) - 4
        npc_q = np.empty((len(rows), self._n_npcs), dtype=np.int64)
        for j in range(self._n_npcs):
            npc_q[:, j] = q = _kth_free(free, draw(18 + j, count))
            free[r[:, 0], q] = False
            count -= 1
        if self.agent_start_in_front_of_door:
            free[r, front_q] = True
            count += 4
        agent_q = _kth_free(free, draw(18 + self._n_npcs, count))

        # The packed grid: the empty room, then doors and NPCs.
        cells = _ROOMS[wi, hi]
        door_cells = (door_x + _PAD) * _SIDE + door_y + _PAD
        cells[r, door_cells] = _CLOSED_DOOR | colours.astype(np.uint32) << 8
        npc_cells = _Q_TO_CELL[npc_q]
        codes = self._npc_kind | npc_colours.astype(np.uint32) << 8
        if self.npc_direction_channel:
            codes |= npc_dirs.astype(np.uint32) << 24
        cells[r, npc_cells] = codes
        self._cells[rows] = cells
        self._npc_pos[rows] = npc_cells
        self._fronts[rows] = _Q_TO_CELL[front_q]
        self._pos[rows] = _Q_TO_CELL[agent_q]
        self._dir[rows] = draw(19 + self._n_npcs, 4)
        self._target[rows] = target

        # What each NPC will say: "Gandalf: Ask {true}.", "{true}: go to the {exit} door",
        # "{liar}: go to the {drawn at each question} door".
        john, jack = _NAME_TOKEN[GUIDE_NAMES[0]], _NAME_TOKEN[GUIDE_NAMES[1]]
        if self.liar:
            true_name = np.where(swapped, jack, john)
            liar_name = np.where(swapped, john, jack)
        else:
            true_name = np.full(len(rows), _NAME_TOKEN[NO_LIAR_GUIDE_NAME])
            liar_name = np.zeros(len(rows), dtype=np.int64)
        colour_tokens = colours + _COLOUR_TOKEN0
        go_to_the = [TOKEN["go"], TOKEN["to"], TOKEN["the"]]
        lines = np.zeros((len(rows), MAX_STEP_TOKENS), dtype=np.int64)
        lines[:, 0], lines[:, 1], lines[:, 2] = _NAME_TOKEN[WIZARD_NAME], TOKEN["ask"], true_name
        lines[:, 3], lines[:, 4:7] = true_name, go_to_the
        lines[:, 7], lines[:, 8] = colour_tokens[r[:, 0], target], TOKEN["door"]
        lines[:, 9], lines[:, 10:13], lines[:, 14] = liar_name, go_to_the, TOKEN["door"]
        self._lines[rows] = lines
        self._wrong[rows] = colour_tokens[r, _OTHER_DOORS[target]]

    def _start_episodes(self, rows: np.ndarray) -> None:
        """Reset the environments in ``rows`` (their streams continue)."""
        self._new_layouts(rows)
        self._steps[rows] = 0
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
        d = (self._dir + (move == 1) - (move == 0)) & 3
        self._dir = d
        ahead = self._pos + _STEP[d]
        free = (self._cells.reshape(-1)[self._row_cells + ahead] & 0xFF) == _EMPTY
        self._pos = np.where((move == 2) & free, ahead, self._pos)
        terminated = (move == 5) | (move == 6)

        # Then the sentence, from the new cell.
        reward = np.zeros(self.num_envs)
        self._steps += 1
        said = _said(template, noun)
        self._utterance.fill(0)
        asking = np.flatnonzero((said == _WHERE_IS_THE_EXIT) & ~terminated)
        if len(asking):
            self._answer(asking)
        opening = np.flatnonzero((said == _OPEN_SESAME) & ~terminated)  # "Open sesame"
        if len(opening):
            at_door = self._fronts[opening] == self._pos[opening, None]
            ends = opening[at_door.any(axis=1)]
            terminated[ends] = True
            wins = opening[at_door[np.arange(len(opening)), self._target[opening]]]
            reward[wins] = 1.0 - 0.9 * (self._steps[wins] / self.t_max)  # Eq. 1
        truncated = ~terminated & (self._steps >= self.t_max)

        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            done = np.flatnonzero(terminated | truncated)
            if len(done):
                self._start_episodes(done)
        else:
            if len(pending):
                self._start_episodes(pending)
                reward[pending] = 0.0
                terminated[pending] = truncated[pending] = False
            self._autoreset = terminated | truncated
        return self._observation(), reward, terminated, truncated, {}

    def _check(self, actions: Any) -> np.ndarray:
        """Actions as an (N, 3) int64 array; a ValueError names the first wrong env and part."""
        raw = np.asarray(actions)
        if raw.shape != (self.num_envs, 3):
            raise ValueError(f"actions must have shape ({self.num_envs}, 3) = one (primitive, "
                             f"template, noun) row per environment, got {raw.shape}")
        action = raw.astype(np.int64, copy=False)
        if raw.dtype.kind not in "iub" and not np.array_equal(action, raw):
            raise ValueError(f"actions must be integers, got dtype {raw.dtype}")
        bad = (action < 0) | (action >= _NVEC)
        if bad.any():
            i, part = np.argwhere(bad)[0]
            raise ValueError(f"environment {i}: action {_PARTS[part]} index {action[i, part]} "
                             f"is outside 0..{_NVEC[part] - 1} ({_NVEC[part] - 1} means "
                             f"undefined)")
        return action

    def _answer(self, rows: np.ndarray) -> None:
        """Every NPC 4-adjacent to the agent answers, in wizard, guide, liar order."""
        offsets = self._npc_pos[rows] - self._pos[rows, None]
        near = np.isin(offsets, _ADJACENT)
        lines = self._lines[rows]
        if self.liar:
            liars = np.flatnonzero(near[:, 2])
            if len(liars):
                pick = (self._take(rows[liars], 1)[:, 0] * 3).astype(np.int64)
                lines[liars, _LIAR_SLOT] = self._wrong[rows[liars], pick]
        lengths = [WIZARD_LINE_TOKENS, GUIDE_LINE_TOKENS, GUIDE_LINE_TOKENS][:self._n_npcs]
        keep = np.repeat(near, lengths, axis=1)
        k, col = np.nonzero(keep)
        dest = np.cumsum(keep, axis=1)[k, col] - 1  # left-aligned: the kept tokens in order
        env = rows[k]
        self._utterance[env, dest] = lines[k, col]
        self._history[env, self._history_len[env] + dest] = lines[k, col]
        self._history_len[rows] += keep.sum(axis=1)

    def _observation(self) -> dict[str, np.ndarray]:
        cells = self._row_cells[:, None] + self._pos[:, None] + _VIEW_OFFSETS[self._dir]
        packed = self._cells.reshape(-1)[cells]
        image = packed.view(np.uint8).reshape(self.num_envs, VIEW, VIEW, 4)
        if not self.npc_direction_channel:
            image = image[..., :3]
        history = self._history.copy() if self.copy else self._history
        return {"image": image, "direction": self._dir.copy(),
                "utterance": self._utterance.copy(), "utterance_history": history,
                "utterance_history_length": self._history_len.copy()}

    def utterance_texts(self, obs: dict[str, np.ndarray]) -> list[tuple[str, str]]:
        """(utterance, history) of each environment as the single env's strings."""
        return [(decode(u), decode(h, empty=""))
                for u, h in zip(obs["utterance"], obs["utterance_history"], strict=True)]

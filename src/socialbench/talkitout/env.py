"""The TalkItOut environment (SocialAI 0.1, Section 2 and Appendix A.1) on Farama MiniGrid."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces
from minigrid.core.grid import Grid
from minigrid.core.mission import MissionSpace
from minigrid.minigrid_env import MiniGridEnv

from socialbench.talkitout.grammar import (
    ACTION_NVEC,
    OPEN_SESAME,
    WHERE_IS_THE_EXIT,
    check_action,
    utterance,
)
from socialbench.talkitout.vocabulary import EMPTY_INDICATOR
from socialbench.talkitout.world import (
    GUIDE_NAMES,
    NO_LIAR_GUIDE_NAME,
    SEVEN_COLOURS,
    SIX_COLOURS,
    WIZARD_NAME,
    Npc,
    TalkDoor,
)

# Every character an utterance can contain (names, colours, "Ask", "go to the ... door").
UTTERANCE_CHARSET = frozenset(string.ascii_letters + " .:\n")

GRID_SIZE = 8  # SocialAI 0.1, A.1.3: width and height "from the minimal size of 5 up to 8"
MIN_ROOM = 5  # SocialAI 0.1, A.1.3
VIEW = 7  # SocialAI 0.1, A.1.2: "a 7x7 grid displaying the space in front of the agent"
PAPER_T_MAX = 40  # SocialAI 0.1, A.1.3, Eq. 1: t_max = 40
RELEASED_T_MAX = 5 * GRID_SIZE**2  # released code: max_steps = 5 * 8^2 = 320

_DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))  # MiniGrid: right, down, left, up
_WALL = (2, 5, 0)  # MiniGrid's grey wall; Grid.slice also puts walls beyond the grid's edge
_EMPTY = (1, 0, 0)
_LEFT, _RIGHT, _FORWARD, _TOGGLE, _DONE = 0, 1, 2, 5, 6


def _view_offsets(direction: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid offsets (dx, dy) of each view cell (i, j) from the agent, facing ``direction``."""
    fx, fy = _DIR_VEC[direction]
    rx, ry = -fy, fx  # the agent's right
    i, j = np.meshgrid(np.arange(VIEW), np.arange(VIEW), indexing="ij")
    ahead, side = VIEW - 1 - j, i - VIEW // 2
    return fx * ahead + rx * side, fy * ahead + ry * side


_VIEW_X, _VIEW_Y = zip(*(_view_offsets(d) for d in range(4)), strict=True)


class TalkItOutEnv(MiniGridEnv):
    """TalkItOut: find the exit of a room by asking the right NPC, then say the passphrase.

    ## Description
    One room of ``w x h`` cells (w, h uniform in 5..8, walls included) in an 8x8 grid, with four
    closed doors of distinct colours, one per wall, never at or next to a corner. One door, drawn
    uniformly, is the exit. Three NPCs stand still inside the room (never in front of a door):
    a wizard, a true guide and a lying guide; the guides are named "John" and "Jack" at random.
    The agent must ask the wizard "Where is the exit" (answer: "Ask John."), ask the guide so
    named (answer: "go to the red door"), go in front of that door and say "Open sesame". The
    liar names a different wrong door, drawn afresh, at every question (from one uniform double
    of ``np_random``, ``int(u * 3)``; a layout takes 24 doubles, so the batched
    :class:`~socialbench.talkitout.vector_env.TalkItOutVectorEnv` replays the same stream).
    NPCs hear the agent only when it stands 4-adjacent to them (facing does not matter) and
    answer in the same step, in the order wizard, true guide, liar, each answer prefixed by the
    speaker's name ("Gandalf: Ask John.\\n", "John: go to the red door\\n"). The agent starts
    on a free cell with a random direction (paper: never in front of a door).

    ## Action space
    ``MultiDiscrete([8, 5, 17])`` = (primitive, template, noun); the last index of each part is
    "undefined". The primitive moves first, then the utterance is spoken from the new cell;
    an utterance is spoken only when template and noun are both defined.

    | part      | index | meaning                                                      |
    |-----------|-------|--------------------------------------------------------------|
    | primitive | 0..6  | turn left, turn right, forward, pickup, drop, toggle, done   |
    | primitive | 7     | no move                                                      |
    | template  | 0..3  | "Where is", "Open", "Close", "What is"                       |
    | noun      | 0..15 | "sesame", "the exit", ..., "the sofa" (grammar.NOUNS)        |

    Pickup and drop do nothing; toggle and done end the episode with reward 0.
    See ``socialbench.talkitout.grammar`` for helpers turning words into actions and back.

    ## Observation space
    ``Dict`` with
    - ``image``: 7x7x3 uint8 egocentric view, MiniGrid encoding (type, colour, state): empty 1,
      wall 2, door 4 (state 1 = closed), NPC 11 with state = npc_type (0 wizard, 1 guide).
      With ``npc_direction_channel=True`` it is 7x7x4, the 4th channel an NPC's direction.
    - ``direction``: the agent's direction, 0..3 (right, down, left, up).
    - ``utterance``: what the agent heard this step, or ``EMPTY_INDICATOR`` when nothing.
    - ``utterance_history``: everything heard so far in the episode, empty indicators removed.
    The mission ("go to the red door") is kept on ``env.mission``, hidden from the agent.

    ## Rewards
    "Open sesame" in front of the exit: ``1 - 0.9 * t / t_max`` (t counts this step).
    Anything else: 0.

    ## Termination
    Terminated: "Open sesame" in front of any door (reward 0 at a wrong door), toggle, done
    (toggle or done with "Open sesame" in the same step still ends with 0).
    Truncated: after ``t_max`` steps.

    ## Parameters (paper default; the released code's value in brackets)
    - ``liar``: True; False gives the no-liar variant (wizard and one guide named "Jack").
    - ``t_max``: 40 [320 = 5 * 8^2].
    - ``agent_start_in_front_of_door``: False [True].
    - ``n_colours``: 6 [7, with brown].
    - ``npc_direction_channel``: False [True].
    - ``see_through_walls``: True, as the released code (the paper does not say).

    ## Registered ids
    ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        liar: bool = True,
        t_max: int = PAPER_T_MAX,
        agent_start_in_front_of_door: bool = False,
        n_colours: int = 6,
        npc_direction_channel: bool = False,
        see_through_walls: bool = True,
        render_mode: str | None = None,
        tile_size: int = 32,
    ) -> None:
        if n_colours not in (6, 7):
            raise ValueError(f"n_colours must be 6 (paper) or 7 (released code), got {n_colours}")
        if int(t_max) < 1:
            raise ValueError(f"t_max must be a positive number of steps, got {t_max}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.liar = bool(liar)
        self.agent_start_in_front_of_door = bool(agent_start_in_front_of_door)
        self.colours = SIX_COLOURS if n_colours == 6 else SEVEN_COLOURS
        self.npc_direction_channel = bool(npc_direction_channel)
        mission_space = MissionSpace(mission_func=lambda colour: f"go to the {colour} door",
                                     ordered_placeholders=[list(self.colours)])
        super().__init__(mission_space=mission_space, grid_size=GRID_SIZE, max_steps=int(t_max),
                         see_through_walls=see_through_walls, agent_view_size=VIEW,
                         render_mode=render_mode, tile_size=tile_size)
        self.action_space = spaces.MultiDiscrete(np.array(ACTION_NVEC, dtype=np.int64))
        line = max(len(f"{n}: go to the {c} door\n") for n in GUIDE_NAMES for c in self.colours)
        line = max(line, len(f"{WIZARD_NAME}: Ask {GUIDE_NAMES[0]}.\n"))
        step_chars = 3 * line  # at most the three NPCs answer in one step
        channels = 4 if self.npc_direction_channel else 3
        self.observation_space = spaces.Dict({
            "image": spaces.Box(0, 255, (VIEW, VIEW, channels), dtype=np.uint8),
            "direction": spaces.Discrete(4),
            "utterance": spaces.Text(max_length=step_chars, min_length=1,
                                     charset=UTTERANCE_CHARSET),
            "utterance_history": spaces.Text(max_length=step_chars * self.max_steps,
                                             min_length=0, charset=UTTERANCE_CHARSET),
        })
        self.reward_range = (0, 1)
        self._pad = VIEW - 1
        self.npcs: list[Npc] = []
        self.last_spoken: str | None = None
        self.last_heard = ""

    # ---------------------------------------------------------------- world generation
    def _gen_grid(self, width: int, height: int) -> None:
        # All of a layout's randomness in one generator call (resets dominate short episodes);
        # draw(n) is uniform over 0..n-1.
        uniforms = iter(self.np_random.random(24).tolist())

        def draw(n: int) -> int:  # u * n < n exactly for u < 1 and the small n used here
            return int(next(uniforms) * n)

        w, h = MIN_ROOM + draw(width - MIN_ROOM + 1), MIN_ROOM + draw(height - MIN_ROOM + 1)
        self.room_size = (w, h)
        # One door per wall, never at a corner or next to one (x in [2, w-3], y in [2, h-3]).
        door_cells = [(2 + draw(w - 4), 0), (2 + draw(w - 4), h - 1), (0, 2 + draw(h - 4)),
                      (w - 1, 2 + draw(h - 4))]
        pool = list(self.colours)
        door_colours = [pool.pop(draw(len(pool))) for _ in range(4)]  # four distinct colours
        self.target_index = draw(4)
        names = GUIDE_NAMES if draw(2) == 0 else GUIDE_NAMES[::-1]  # (true guide, liar)
        npc_colours = [self.colours[draw(len(self.colours))] for _ in range(3)]
        npc_dirs = [draw(4) for _ in range(3)]

        self._place_doors(w, h, door_cells, door_colours)
        if self.liar:
            self.true_guide_name = names[0]
            roles = (("wizard", WIZARD_NAME), ("guide", names[0]), ("liar", names[1]))
        else:
            self.true_guide_name = NO_LIAR_GUIDE_NAME
            roles = (("wizard", WIZARD_NAME), ("guide", NO_LIAR_GUIDE_NAME))
        self.npcs = [Npc(role=r, name=n, color=c, direction=d,
                         encode_direction=self.npc_direction_channel)
                     for (r, n), c, d in zip(roles, npc_colours, npc_dirs, strict=False)]
        # NPCs: inside the room, never in front of a door, never on each other.
        fronts = self.door_fronts
        free = [(x, y) for y in range(1, h - 1) for x in range(1, w - 1) if (x, y) not in fronts]
        for npc in self.npcs:
            npc.cur_pos = npc.init_pos = free.pop(draw(len(free)))
        if self.agent_start_in_front_of_door:
            free.extend(fronts)  # released code: any free cell of the room
            free.sort(key=lambda c: (c[1], c[0]))
        self.agent_pos = free[draw(len(free))]
        self.agent_dir = draw(4)
        self._build_arrays(w, h, door_cells)

    def _place_doors(self, w: int, h: int, door_cells: list[tuple[int, int]],
                     colours: list[str]) -> None:
        self.doors = [TalkDoor(c) for c in colours]
        for door, cell in zip(self.doors, door_cells, strict=True):
            door.cur_pos = door.init_pos = cell
        self.target_colour = colours[self.target_index]
        self.mission = f"go to the {self.target_colour} door"
        # The room cell in front of each door (the only cell 4-adjacent to it inside the room).
        (tx, _), (bx, _), (_, ly), (_, ry) = door_cells
        self.door_fronts = [(tx, 1), (bx, h - 2), (1, ly), (w - 2, ry)]

    def _set_layout(self, layout: dict[str, Any]) -> None:
        """Build the world from a :meth:`describe` dict (checked only lightly: it is for
        tests and demos)."""
        try:
            w, h = (int(v) for v in layout["room_size"])
            door_cells = [(int(x), int(y)) for (x, y), _ in layout["doors"]]
            colours = [str(c) for _, c in layout["doors"]]
            self.target_index = colours.index(layout["target_colour"])
            npcs = [(str(r), str(n), str(c), (int(x), int(y)))
                    for r, n, c, (x, y) in layout["npcs"]]
            (ax, ay), adir = layout["agent"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a TalkItOut layout is a dict like env.describe() returns: {exc}"
                             ) from exc
        if not (MIN_ROOM <= w <= self.width and MIN_ROOM <= h <= self.height):
            raise ValueError(f"room size {w}x{h} is outside {MIN_ROOM}..{self.width}")
        self.room_size = (w, h)
        self._place_doors(w, h, door_cells, colours)
        self.true_guide_name = str(layout["true_guide_name"])
        self.npcs = []
        for role, name, colour, pos in npcs:
            npc = Npc(role=role, name=name, color=colour,
                      encode_direction=self.npc_direction_channel)
            npc.cur_pos = npc.init_pos = pos
            self.npcs.append(npc)
        self.agent_pos, self.agent_dir = (int(ax), int(ay)), int(adir)
        self._build_arrays(w, h, door_cells)

    _room_templates: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}

    def _empty_room(self, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the padded, encoded empty room and its walkable mask (cached per size)."""
        pad, channels = self._pad, 4 if self.npc_direction_channel else 3
        key = (w, h, channels)
        if key not in self._room_templates:
            enc = np.zeros((self.width + 2 * pad, self.height + 2 * pad, channels), np.uint8)
            enc[..., :3] = _WALL
            enc[pad:pad + self.width, pad:pad + self.height, :3] = _EMPTY
            room = enc[pad:pad + w, pad:pad + h]
            room[[0, -1], :, :3] = _WALL
            room[:, [0, -1], :3] = _WALL
            walkable = np.zeros((self.width, self.height), dtype=bool)
            walkable[1:w - 1, 1:h - 1] = True
            self._room_templates[key] = (enc, walkable)
        enc, walkable = self._room_templates[key]
        return enc.copy(), walkable.copy()

    def _build_arrays(self, w: int, h: int, door_cells: list[tuple[int, int]]) -> None:
        """The encoded grid, padded with walls, and the walkable mask: all a step needs."""
        pad = self._pad
        enc, walkable = self._empty_room(w, h)
        for door, (x, y) in zip(self.doors, door_cells, strict=True):
            enc[x + pad, y + pad, :3] = door.encode()
        for npc in self.npcs:
            x, y = npc.cur_pos
            enc[x + pad, y + pad] = npc.encode()
            walkable[x, y] = False
        self._enc, self._walkable = enc, walkable
        self._door_at_front = {front: i for i, front in enumerate(self.door_fronts)}
        rank = {"wizard": 0, "guide": 1, "liar": 2}  # answering order (spec)
        self._speaking_order = sorted(self.npcs, key=lambda n: rank[n.role])
        self._grid = None  # MiniGrid's object grid is built when something asks for it

    @property
    def grid(self) -> Grid:
        """MiniGrid's object grid (rendering, MiniGrid tools); built on first use."""
        if self._grid is None:
            w, h = self.room_size
            grid = Grid(self.width, self.height)
            grid.wall_rect(0, 0, w, h)
            for obj in (*self.doors, *self.npcs):
                grid.set(*obj.cur_pos, obj)
            self._grid = grid
        return self._grid

    @grid.setter
    def grid(self, value: Grid) -> None:
        self._grid = value

    # ---------------------------------------------------------------- episode loop
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode. ``options={"layout": env.describe()}`` (or any dict of that form)
        replays a given layout instead of drawing one (tests, demos, the planner)."""
        super(MiniGridEnv, self).reset(seed=seed)  # gymnasium seeding only
        if options and "layout" in options:
            self._set_layout(options["layout"])
        else:
            self._gen_grid(self.width, self.height)
        self.carrying = None
        self.step_count = 0
        self.utterance_history = ""
        self.last_spoken, self.last_heard = None, ""
        return self._obs(EMPTY_INDICATOR), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        move, template, noun = check_action(action)
        self.step_count += 1
        reward, terminated = 0.0, False
        if move == _LEFT:
            self.agent_dir = (self.agent_dir - 1) % 4
        elif move == _RIGHT:
            self.agent_dir = (self.agent_dir + 1) % 4
        elif move == _FORWARD:
            dx, dy = _DIR_VEC[self.agent_dir]
            ahead = (self.agent_pos[0] + dx, self.agent_pos[1] + dy)
            if self._walkable[ahead]:
                self.agent_pos = ahead
        elif move in (_TOGGLE, _DONE):
            terminated = True  # SocialAI 0.1, A.1.1: toggle and done end with 0 reward

        spoken = utterance(template, noun)
        heard = ""
        if spoken is not None and not terminated:
            if spoken == WHERE_IS_THE_EXIT:
                heard = self._answers()
            elif spoken == OPEN_SESAME:
                door = self._door_at_front.get(tuple(self.agent_pos))
                if door is not None:
                    terminated = True
                    if door == self.target_index:
                        reward = self._reward()
        self.last_spoken, self.last_heard = spoken, heard
        self.utterance_history += heard
        truncated = not terminated and self.step_count >= self.max_steps
        return self._obs(heard or EMPTY_INDICATOR), reward, terminated, truncated, {}

    def _answers(self) -> str:
        """Every 4-adjacent NPC's answer to "Where is the exit", in wizard, guide, liar order."""
        ax, ay = self.agent_pos
        wrong = [d.color for i, d in enumerate(self.doors) if i != self.target_index]
        lines = []
        for npc in self._speaking_order:
            nx, ny = npc.cur_pos
            if abs(nx - ax) + abs(ny - ay) == 1:
                answer = npc.answer(self.true_guide_name, self.target_colour, wrong,
                                    self.np_random)
                lines.append(f"{npc.name}: {answer}\n")
        return "".join(lines)

    def _reward(self) -> float:
        """SocialAI 0.1, Eq. 1: r = 1 - 0.9 t / t_max."""
        return 1.0 - 0.9 * (self.step_count / self.max_steps)

    # ---------------------------------------------------------------- observations
    def _obs(self, heard: str) -> dict[str, Any]:
        return {"image": self.view(), "direction": int(self.agent_dir), "utterance": heard,
                "utterance_history": self.utterance_history}

    def view(self) -> np.ndarray:
        """The agent's 7x7 egocentric view, equal to MiniGrid's ``gen_obs()["image"]``.

        One gather from the padded, pre-encoded grid (view cell (i, j) lies at
        agent + forward (6 - j) + right (i - 3)), instead of MiniGrid's per-cell slice, rotate
        and encode.
        """
        if not self.see_through_walls:
            grid, vis_mask = self.gen_obs_grid()
            if not self.npc_direction_channel:
                return grid.encode(vis_mask)
            image = np.zeros((VIEW, VIEW, 4), dtype=np.uint8)
            for i in range(VIEW):
                for j in range(VIEW):
                    cell = grid.get(i, j)
                    if vis_mask[i, j]:
                        image[i, j, :] = (*cell.encode(), 0)[:4] if cell else (*_EMPTY, 0)
            return image
        ax, ay = self.agent_pos
        d, pad = self.agent_dir, self._pad
        image = self._enc[_VIEW_X[d] + (ax + pad), _VIEW_Y[d] + (ay + pad)]
        image[VIEW // 2, VIEW - 1] = 0
        image[VIEW // 2, VIEW - 1, :3] = _EMPTY  # the agent's own cell reads as empty
        return image

    def gen_obs(self) -> dict[str, Any]:  # MiniGrid's name for the observation
        return self._obs(self.last_heard or EMPTY_INDICATOR)

    # ---------------------------------------------------------------- rendering
    def render(self) -> np.ndarray | None:
        """The whole grid with the agent's view highlighted, and below it, as text, what the
        agent said and heard this step."""
        if self.render_mode != "rgb_array":
            return None
        from PIL import Image, ImageDraw

        frame = self.get_frame(self.highlight, self.tile_size, self.agent_pov)
        lines = [f"Agent: {self.last_spoken}" if self.last_spoken else "Agent: -"]
        lines += self.last_heard.splitlines() or ["(nothing heard)"]
        band = 14 * 4 + 8  # the agent's line and up to three answers: a fixed frame size
        canvas = Image.new("RGB", (frame.shape[1], frame.shape[0] + band), (255, 255, 255))
        canvas.paste(Image.fromarray(frame), (0, 0))
        draw = ImageDraw.Draw(canvas)
        for k, text in enumerate(lines):
            draw.text((4, frame.shape[0] + 4 + 14 * k), text, fill=(0, 0, 0))
        return np.asarray(canvas)

    def pprint_grid(self) -> str:
        """Text picture: two characters a cell (W wall, D door, Z wizard, G guide, L liar;
        the second is the colour's initial), the agent as >>, VV, << or ^^."""
        marks = {"wizard": "Z", "guide": "G", "liar": "L"}
        rows = []
        for y in range(self.height):
            row = ""
            for x in range(self.width):
                if (x, y) == tuple(self.agent_pos):
                    row += 2 * ">V<^"[self.agent_dir]
                    continue
                cell = self.grid.get(x, y)
                if cell is None:
                    row += "  "
                elif cell.type == "npc":
                    row += marks[cell.role] + cell.color[0].upper()
                else:
                    row += ("W" if cell.type == "wall" else "D") + cell.color[0].upper()
            rows.append(row)
        return "\n".join(rows)

    def describe(self) -> dict[str, Any]:
        """The hidden layout (for tests, planners and debugging; never given to agents)."""
        return {
            "room_size": self.room_size,
            "doors": [(tuple(d.cur_pos), d.color) for d in self.doors],
            "target_colour": self.target_colour,
            "true_guide_name": self.true_guide_name,
            "npcs": [(n.role, n.name, n.color, tuple(n.cur_pos)) for n in self.npcs],
            "agent": (tuple(self.agent_pos), int(self.agent_dir)),
        }

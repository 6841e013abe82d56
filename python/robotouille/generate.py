"""Procedural generation of instances: the original's algorithm, draw for draw (decision D6).

:func:`generate` turns an environment file and a seed into the randomized instance the original
benchmark builds for them (reference spec §7, §9.3): the same layout, the same random extra
stations and items, the same key and entity order, and the same effective seed. All randomness
comes from a private :class:`random.Random` seeded with the seed, whose methods (``randrange``,
``choice``) are called in the original's order, so the draws are the original's.

One attempt with seed ``s`` (full randomization, the benchmark's default):

1. Copy the environment (entity lists stable-sorted by ``(x, y)``, as the loader does) and
   empty its ``stations``, ``items``, ``containers`` and ``players``. ``meals`` and every other
   key are kept as they are.
2. Draw random extra stations (fewer than ``width * height``), then random extra items, each
   taking its ``x`` and its ``y`` from two independently chosen random stations.
3. Give every station, item, container and robot of the file a random cell (robots also a
   random direction) and tag it ``force_add``.
4. Add the stations, random ones first. A file station takes the place of a random station on
   its cell; or stays where it is if a connected region of free cells still touches every
   station; or else takes the cell of a randomly chosen random station (none left: the attempt
   fails). A random station stays only on a free cell, and only if every station is reachable
   from the first robot's drawn cell.
5. Put the first robot on the first free cell next to a station (stations in list order; cells
   above, below, right, left) from which every station is reachable, facing that station. The
   other robots are dropped.
6. Add the items, random ones first. An item on a station or the robot's cell with no item yet
   stays. A file item that missed takes the place of a random item on its cell, or else goes to
   the first station (or the robot) with no item or with a random item (none: the attempt
   fails). Other random items are dropped. Every item gets ``stack-level`` 0, so stacks of the
   file are broken up and the robot may start holding an item.
7. Add the containers like the file items, except that a container never goes where an item
   is. A container that lands on a random item fails the attempt with ``KeyError: 0`` (a bug of
   the original, kept so that every seed gives the original's instance).

After a failed attempt the original retries with seed ``s + 1``; so does :func:`generate`, on
exactly the same failures, and it reports the seed that succeeded.

Entities whose name is a wildcard (``"station"``, ``"item"``) are resolved in step 3 with the
seeded generator; the original resolves them before seeding, non-deterministically (reference
§13 #19), and no dataset file has any. A file without ``items`` or ``containers`` has none.
"""

from __future__ import annotations

import copy
import random
from collections import deque
from dataclasses import dataclass
from typing import Any

from ._json import Cursor, JsonSource, _kind, read_json
from .env import Env, PathLike, load
from .errors import GenerationError, SpecError

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "ITEM_NAMES",
    "MAX_CELLS",
    "STATION_NAMES",
    "Attempt",
    "GeneratedEnvironment",
    "generate",
]

STATION_NAMES: tuple[str, ...] = ("board", "stove", "table", "fryer", "sink")
"""Names a random station is drawn from, in the original's enum order (the order matters)."""

ITEM_NAMES: tuple[str, ...] = (
    "bottombun",
    "lettuce",
    "patty",
    "topbun",
    "bread",
    "cheese",
    "tomato",
    "onion",
    "chicken",
    "potato",
)
"""Names a random item is drawn from, in the original's enum order (the order matters)."""

_ITEM_PREDICATES: dict[str, tuple[str, ...]] = {
    "patty": ("iscookable",),
    "chicken": ("iscookable",),
    "lettuce": ("iscuttable",),
    "onion": ("iscuttable",),
    "tomato": ("iscuttable",),
}
"""Capabilities of a random item by kind; the kinds not listed get no ``predicates`` key."""

_DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
"""A file robot's random direction is drawn from these (the draw matters; the value is
replaced when the robot is placed)."""

DEFAULT_MAX_ATTEMPTS = 100
"""Seeds tried (``seed``, ``seed + 1``, ...) before :func:`generate` gives up. The original
retries forever; the dataset instances need at most 4 attempts."""

MAX_CELLS = 4096
"""Largest grid (``width * height``) accepted. The original has no limit, but the time an
attempt takes grows with the square of the number of cells; the dataset grids have at most 64."""

_ENTITY_LISTS = ("stations", "items", "players", "containers", "meals")

Entity = dict[str, Any]
Cell = tuple[int, int]


@dataclass(frozen=True)
class Attempt:
    """One generation attempt.

    Attributes:
        seed: The seed of the attempt.
        error: Why it failed, in the original's words (e.g. ``"AssertionError: Item force add
            failed"``), or ``None`` for the attempt that succeeded.
    """

    seed: int
    error: str | None


@dataclass(frozen=True)
class GeneratedEnvironment:
    """A procedurally generated instance.

    Attributes:
        environment: The generated environment JSON before object numbering, in the original's
            key order and entity order; the ``force_add`` tags the original adds are kept (the
            loader ignores them). Load it with :meth:`load` or :func:`robotouille.load`.
        seed: The requested seed.
        effective_seed: The seed of the attempt that succeeded (``seed`` plus the number of
            failed attempts).
        source: The environment file it was generated from (``<environment dict>`` for a dict).
        attempts: Every attempt in order, the successful one last.
    """

    environment: dict[str, Any]
    seed: int
    effective_seed: int
    source: str
    attempts: tuple[Attempt, ...]

    def load(self, domain_file: PathLike | dict[str, Any] | None = None, **kwargs: Any) -> Env:
        """Loads the instance with :func:`robotouille.load`.

        Args:
            domain_file: A domain JSON file or dict; defaults to the bundled domain.
            **kwargs: Further keyword arguments of :func:`robotouille.load`.

        Returns:
            The environment of the instance, in its initial state.

        Raises:
            SpecError: The instance does not load. The message names the file it was generated
                from and the effective seed; JSON paths refer to the generated environment.
        """
        try:
            return load(self.environment, domain_file, **kwargs)
        except SpecError as exc:
            if exc.source != "<environment dict>":
                raise
            raise SpecError(
                f"{self.source} (generated with seed {self.effective_seed})",
                exc.path,
                exc.problem,
            ) from exc


class _AttemptFailed(Exception):
    """An attempt failed where the original's does; the caller retries with the next seed."""


def generate(
    env: JsonSource,
    seed: int,
    *,
    keep_all_robots: bool = False,
    move_meals_with_containers: bool = False,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> GeneratedEnvironment:
    """Generates the instance the original builds for an environment file and a seed.

    With both extensions off (the default) the result is the original's instance for the same
    file and seed: the same JSON, key and entity order included, and the same effective seed.
    The original retries with ``seed + 1`` whenever an attempt fails; so does this function,
    on exactly the same failures.

    Args:
        env: An environment JSON file, or its parsed dict (not modified).
        seed: The requested seed. Any integer; as with :func:`random.seed`, ``-n`` and ``n``
            give the same draws.
        keep_all_robots: Extension for multi-robot files, which the original turns into
            single-robot instances: it places the first robot (after the ``(x, y)`` sort) and
            drops the others. With this flag every robot is kept. Robots are placed in order,
            each on the first free cell, not taken by an earlier robot, next to a station that
            no earlier robot faces (stations in list order, cells above, below, right, left)
            from which every station is reachable, facing that station. So each robot faces a
            different station and every station is reachable from every robot. The stations
            and the first robot come out as without the flag; items and containers can differ,
            as they may also land in the other robots' hands. An attempt in which some robot
            finds no such cell fails and is retried with the next seed.
        move_meals_with_containers: Extension. The original leaves every meal at the cell the
            file gives, so a meal that starts in a container (``in(meal, container)``) is left
            behind when the container moves. With this flag such a meal moves with its
            container (the first container on its cell in the file), and a meal that starts in
            no container but would end up under one is moved to the first cell (rows from the
            top, cells from the left) with no container. Every meal then starts in the
            container it started in before, or in none. No random numbers are drawn for this:
            everything else is as without the flag.
        max_attempts: How many seeds (``seed``, ``seed + 1``, ...) to try before giving up.

    Returns:
        The generated instance, with its effective seed and the attempts it took.

    Raises:
        SpecError: The file is malformed; the message names the file, the JSON path and the
            problem.
        GenerationError: ``max_attempts`` attempts failed.
        TypeError: ``seed`` or ``max_attempts`` is not an integer.
        ValueError: ``max_attempts`` is less than 1.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {type(seed).__name__}")
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        raise TypeError(f"max_attempts must be an integer, got {type(max_attempts).__name__}")
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    doc, label = read_json(env, "environment")
    loaded = _load_sorted(Cursor(label, "", doc))
    attempts: list[Attempt] = []
    for attempt_seed in range(seed, seed + max_attempts):
        generator = _Attempt(
            loaded,
            attempt_seed,
            keep_all_robots=keep_all_robots,
            move_meals=move_meals_with_containers,
        )
        try:
            environment = generator.run()
        except _AttemptFailed as exc:
            attempts.append(Attempt(attempt_seed, str(exc)))
            continue
        attempts.append(Attempt(attempt_seed, None))
        return GeneratedEnvironment(
            environment=environment,
            seed=seed,
            effective_seed=attempt_seed,
            source=label,
            attempts=tuple(attempts),
        )
    raise GenerationError(
        label,
        f"no instance in {max_attempts} attempt(s), seeds {seed} to {seed + max_attempts - 1}; "
        f"the last failed with {attempts[-1].error}",
        attempts,
    )


def _load_sorted(root: Cursor) -> dict[str, Any]:
    """Validates what generation reads; returns a copy with entity lists sorted by ``(x, y)``.

    The original's loader stable-sorts every entity list by ``(x, y)`` before generating
    (reference §2.3). Everything generation copies unread (goal, config, extra keys) is left to
    the loader of the generated instance to check.
    """
    width = root.key("width").int()
    height = root.key("height").int()
    for name, value in (("width", width), ("height", height)):
        if value < 1:
            raise root.key(name).error(f"must be at least 1, got {value}")
    if width * height > MAX_CELLS:
        raise root.key("width").error(
            f"the grid has {width * height} cells; generation supports at most {MAX_CELLS}"
        )
    out = copy.deepcopy(root.value)
    for key in _ENTITY_LISTS:
        required = key in ("stations", "players")
        if not required and not root.has(key):
            continue
        cur = root.key(key)
        entries = cur.items()
        if required and not entries:
            raise cur.error(f"at least one {key[:-1]} is required")
        for ec in entries:
            if not isinstance(ec.value, dict):
                raise ec.error(f"expected a JSON object, got {_kind(ec.value)}")
            ec.key("name").str()
            ec.key("x").int()
            ec.key("y").int()
            if ec.has("predicates"):
                for pc in ec.key("predicates").items():
                    pc.str()
        order = sorted(range(len(entries)), key=lambda i: _cell(entries[i].value))
        out[key] = [out[key][i] for i in order]
    return out


class _Attempt:
    """One attempt of the original's ``randomize_environment`` with one seed."""

    def __init__(
        self, loaded: dict[str, Any], seed: int, *, keep_all_robots: bool, move_meals: bool
    ) -> None:
        self.rng = random.Random(seed)
        self.env = copy.deepcopy(loaded)
        self.width: int = loaded["width"]
        self.height: int = loaded["height"]
        self.keep_all_robots = keep_all_robots
        self.move_meals = move_meals

    def run(self) -> dict[str, Any]:
        env = self.env
        stations: list[Entity] = env.get("stations", [])
        items: list[Entity] = env.get("items", [])
        containers: list[Entity] = env.get("containers", [])
        players: list[Entity] = env.get("players", [])
        meals: list[Entity] = env.get("meals", [])
        homes = _meal_homes(containers, meals)
        env["stations"] = []
        env["items"] = []
        env["containers"] = []
        env["players"] = []
        random_stations, random_items = self._random_objects()
        self._randomize_file_objects(stations, items, containers, players)
        self._add_stations(random_stations + stations, players[0])
        self._add_robots(players if self.keep_all_robots else players[:1])
        self._add_items(random_items + items)
        self._add_containers(containers)
        if self.move_meals:
            self._move_meals(homes, containers, meals)
        return env

    # -- step 2: random extra stations and items ----------------------------------------------

    def _random_objects(self) -> tuple[list[Entity], list[Entity]]:
        rng, w, h = self.rng, self.width, self.height
        stations: list[Entity] = []
        for _ in range(rng.randrange(0, w * h)):
            x = rng.randrange(0, w)
            y = rng.randrange(0, h)
            stations.append({"name": "station", "x": x, "y": y})
        for s in stations:
            s["name"] = rng.choice(STATION_NAMES)
        items: list[Entity] = []
        for _ in range(rng.randrange(0, len(stations) + 1)):
            x = rng.choice(stations)["x"]
            y = rng.choice(stations)["y"]
            items.append({"name": "item", "x": x, "y": y, "stack-level": 0})
        for it in items:
            self._name_random_item(it)
        return stations, items

    def _name_random_item(self, item: Entity) -> None:
        name = self.rng.choice(ITEM_NAMES)
        item["name"] = name
        if name in _ITEM_PREDICATES:
            item["predicates"] = list(_ITEM_PREDICATES[name])

    # -- step 3: the file's objects get random cells -------------------------------------------

    def _randomize_file_objects(
        self,
        stations: list[Entity],
        items: list[Entity],
        containers: list[Entity],
        players: list[Entity],
    ) -> None:
        rng, w, h = self.rng, self.width, self.height
        for s in stations:
            s["x"] = rng.randrange(0, w)
            s["y"] = rng.randrange(0, h)
            s["force_add"] = True
            if s["name"] == "station":
                s["name"] = rng.choice(STATION_NAMES)
        for it in items:
            it["x"] = rng.randrange(0, w)
            it["y"] = rng.randrange(0, h)
            it["force_add"] = True
            if it["name"] == "item":
                self._name_random_item(it)
        for c in containers:
            c["x"] = rng.randrange(0, w)
            c["y"] = rng.randrange(0, h)
            c["force_add"] = True
        for p in players:
            p["x"] = rng.randrange(0, w)
            p["y"] = rng.randrange(0, h)
            p["direction"] = list(rng.choice(_DIRECTIONS))
            p["force_add"] = True

    # -- step 4: stations ---------------------------------------------------------------------

    def _add_stations(self, candidates: list[Entity], first_robot: Entity) -> None:
        placed: list[Entity] = self.env["stations"]
        robot_cell = _cell(first_robot)
        for s in candidates:
            conflict = _at(placed, _cell(s))
            if not s.get("force_add"):
                if conflict is None:
                    placed.append(s)
                    if not self._reachable(placed, robot_cell):
                        placed.pop()
                continue
            if conflict is not None and not conflict.get("force_add"):
                _replace(placed, conflict, s)
                continue
            if conflict is None:
                placed.append(s)
                if self._reachable(placed):
                    continue
                placed.pop()
            replaceable = [p for p in placed if not p.get("force_add")]
            if not replaceable:
                raise _AttemptFailed("AssertionError: No replaceable stations found")
            victim = self.rng.choice(replaceable)
            s["x"], s["y"] = victim["x"], victim["y"]
            _replace(placed, victim, s)

    # -- step 5: robots -----------------------------------------------------------------------

    def _add_robots(self, robots: list[Entity]) -> None:
        stations: list[Entity] = self.env["stations"]
        station_cells = {_cell(s) for s in stations}
        faced: set[int] = set()
        taken: set[Cell] = set()
        for number, robot in enumerate(robots, 1):
            spot = self._robot_spot(stations, station_cells, faced, taken)
            if spot is None:
                # The first robot always finds a cell: the last station check that passed left a
                # region of free cells touching every station, and nothing moved since.
                raise _AttemptFailed(
                    f"robot {number} finds no free cell next to a station that no other robot "
                    "faces, from which every station is reachable"
                )
            k, cell = spot
            placed = dict(robot)
            placed["x"], placed["y"] = cell
            placed["direction"] = [stations[k]["x"] - cell[0], stations[k]["y"] - cell[1]]
            self.env["players"].append(placed)
            faced.add(k)
            taken.add(cell)

    def _robot_spot(
        self,
        stations: list[Entity],
        station_cells: set[Cell],
        faced: set[int],
        taken: set[Cell],
    ) -> tuple[int, Cell] | None:
        for k, s in enumerate(stations):
            if k in faced:
                continue
            x, y = s["x"], s["y"]
            for cell in ((x, y + 1), (x, y - 1), (x + 1, y), (x - 1, y)):
                if not self._in_bounds(cell) or cell in station_cells or cell in taken:
                    continue
                if self._reachable(stations, cell):
                    return k, cell
        return None

    # -- step 6: items ------------------------------------------------------------------------

    def _spots(self) -> list[Cell]:
        """Cells that can hold an item or a container: stations, then robots, in list order."""
        return [_cell(s) for s in self.env["stations"]] + [_cell(p) for p in self.env["players"]]

    def _add_items(self, candidates: list[Entity]) -> None:
        placed: list[Entity] = self.env["items"]
        spots = self._spots()
        for it in candidates:
            cell = _cell(it)
            conflict = _at(placed, cell)
            if cell in spots and conflict is None:
                placed.append(it)
                continue
            if not it.get("force_add"):
                continue
            if conflict is not None and not conflict.get("force_add"):
                _replace(placed, conflict, it)
                continue
            for spot in spots:
                there = _at(placed, spot)
                if there is None or not there.get("force_add"):
                    it["x"], it["y"] = spot
                    if there is None:
                        placed.append(it)
                    else:
                        _replace(placed, there, it)
                    break
            else:
                raise _AttemptFailed("AssertionError: Item force add failed")
        for it in placed:
            it["stack-level"] = 0

    # -- step 7: containers -------------------------------------------------------------------

    def _add_containers(self, candidates: list[Entity]) -> None:
        placed: list[Entity] = self.env["containers"]
        items: list[Entity] = self.env["items"]
        spots = self._spots()
        for c in candidates:  # every container comes from the file: all are force_add
            cell = _cell(c)
            item = _at(items, cell)
            conflict = _at(placed, cell)
            if cell in spots and item is None and conflict is None:
                placed.append(c)
                continue
            if item is not None and not item.get("force_add"):
                # The original removes the random item here, then reads the container's new
                # cell from the removed dict with ``[0]``: the attempt dies with KeyError 0.
                raise _AttemptFailed("KeyError: 0")
            for spot in spots:
                if _at(items, spot) is None and _at(placed, spot) is None:
                    c["x"], c["y"] = spot
                    placed.append(c)
                    break
            else:
                raise _AttemptFailed("AssertionError: Container force add failed")

    # -- extension: meals move with their containers ------------------------------------------

    def _move_meals(
        self, homes: list[int | None], containers: list[Entity], meals: list[Entity]
    ) -> None:
        occupied = {_cell(c) for c in containers}
        for meal, home in zip(meals, homes):
            if home is not None:
                meal["x"], meal["y"] = _cell(containers[home])
            elif _cell(meal) in occupied:
                free = next(
                    (
                        (x, y)
                        for y in range(self.height - 1, -1, -1)
                        for x in range(self.width)
                        if (x, y) not in occupied
                    ),
                    None,
                )
                if free is None:
                    raise _AttemptFailed("every cell holds a container: a meal has no free cell")
                meal["x"], meal["y"] = free

    # -- reachability -------------------------------------------------------------------------

    def _in_bounds(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def _reachable(self, stations: list[Entity], start: Cell | None = None) -> bool:
        """Whether every station is reachable (the original's ``_are_stations_reachable``).

        From ``start``: a breadth-first search over free cells (4-neighbourhood) that counts
        each station it touches; a station cell is counted and never expanded, also when it is
        ``start`` itself. Without ``start``: whether some connected region of free cells
        touches every station.
        """
        cells = {_cell(s) for s in stations}
        if start is not None:
            return len(self._touched(start, cells, set())) == len(cells)
        visited: set[Cell] = set()
        for y in range(self.height - 1, -1, -1):
            for x in range(self.width):
                if (x, y) in cells or (x, y) in visited:
                    continue
                if len(self._touched((x, y), cells, visited)) == len(cells):
                    return True
        return False

    def _touched(self, origin: Cell, stations: set[Cell], visited: set[Cell]) -> set[Cell]:
        """The stations a search from ``origin`` touches; adds the free cells it visits."""
        touched: set[Cell] = set()
        queue = deque([origin])
        while queue:
            cell = queue.popleft()
            if cell in stations:
                touched.add(cell)
                continue
            if cell in visited:
                continue
            visited.add(cell)
            x, y = cell
            for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if self._in_bounds(nxt) and nxt not in visited and nxt not in touched:
                    queue.append(nxt)
        return touched


def _meal_homes(containers: list[Entity], meals: list[Entity]) -> list[int | None]:
    """For each meal, the index of the first container on its cell in the file, if any."""
    return [
        next((k for k, c in enumerate(containers) if _cell(c) == _cell(m)), None) for m in meals
    ]


def _cell(entity: Entity) -> Cell:
    return (entity["x"], entity["y"])


def _at(entities: list[Entity], cell: Cell) -> Entity | None:
    """The first entity on ``cell``."""
    return next((e for e in entities if e["x"] == cell[0] and e["y"] == cell[1]), None)


def _replace(entities: list[Entity], old: Entity, new: Entity) -> None:
    """Puts ``new`` where ``old`` is in the list (found by identity)."""
    index = next(k for k, e in enumerate(entities) if e is old)
    entities[index] = new

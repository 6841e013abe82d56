"""Writes the bundled benchmark task files: ``domains/robotouille/tasks/<dataset>/<task>.json``.

The 30 benchmark tasks (10 synchronous, 10 asynchronous, 10 multi-agent) and the two training
tasks of the paper, with its recipes and goal descriptions (reference spec §9). Kitchens are
ours: the grid size and the stations and ingredients each task has follow the paper, the
layout is drawn here (stations on the border, the robots inside facing one). Procedural
generation re-draws every position anyway, so the layout only matters unseeded.

Goals accept every arrangement the description allows:

* a dish whose description fixes an order (a double cheeseburger, "lettuce on top of the
  patty") is a chain of ``atop`` literals from the bottom piece up;
* any other dish fixes only its bottom and top piece (``item_on`` the table, ``clear`` on top)
  and puts every ingredient ``item_at`` the same table, so the fillings may come in any order;
* the two slices of bread are the same kind of object, so either can be the bottom one;
* dishes "on separate tables" take different table ids, which the goal matcher binds to
  different tables.

Run from the repository root after changing a recipe, then run the dataset tests::

    python tools/write_task_files.py
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TASKS_DIR = Path(__file__).resolve().parents[1] / "domains" / "robotouille" / "tasks"

# What each kind of ingredient is in the file, by dataset: synchronous kitchens have no stoves,
# so their meat starts cooked.
_SYNC_ITEMS = {"patty": ["iscooked"], "chicken": ["iscooked"]}
_CUTTABLE = ["iscuttable"]
_FRY_IF_CUT = ["iscuttable", "isfryableifcut"]


@dataclass
class Goal:
    """Builds a goal literal list, handing out a fresh id for every distinct object."""

    literals: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 1

    def fresh(self) -> int:
        """Returns an id no literal uses yet."""
        self.next_id += 1
        return self.next_id - 1

    def add(self, predicate: str, args: list[str], ids: list[int]) -> None:
        """Appends one literal."""
        self.literals.append({"predicate": predicate, "args": args, "ids": ids})

    def ingredient(self, spec: str) -> tuple[str, int]:
        """Allocates an ingredient such as ``"onion:iscut,isfried"`` and states its properties.

        Returns:
            The ingredient's kind and id.
        """
        kind, _, properties = spec.partition(":")
        ident = self.fresh()
        for prop in filter(None, properties.split(",")):
            self.add(prop, [kind], [ident])
        return kind, ident

    def dish(self, bottom: str, fillings: list[str], top: str, ordered: bool = False) -> None:
        """A sandwich or burger on its own table.

        Args:
            bottom: Kind of the bottom piece (``"bread"``, ``"bottombun"``).
            fillings: Ingredient specs (see :meth:`ingredient`) from the bottom up.
            top: Kind of the top piece.
            ordered: Whether the fillings must come in the order given.
        """
        table = self.fresh()
        below = self.ingredient(bottom)
        self.add("item_on", [below[0], "table"], [below[1], table])
        for spec in [*fillings, top]:
            piece = self.ingredient(spec)
            if ordered:
                self.add("atop", [piece[0], below[0]], [piece[1], below[1]])
            else:
                self.add("item_at", [piece[0], "table"], [piece[1], table])
            below = piece
        self.add("clear", [below[0]], [below[1]])

    def on_table(self, spec: str) -> None:
        """A single prepared item (fries, onion rings) directly on its own table."""
        kind, ident = self.ingredient(spec)
        self.add("item_on", [kind, "table"], [ident, self.fresh()])

    def soup(self, ingredients: list[str]) -> None:
        """Boiling water with the ingredients in it, served into a bowl on its own table."""
        water, bowl, table = self.fresh(), self.fresh(), self.fresh()
        self.add("in", ["water", "bowl"], [water, bowl])
        self.add("isboiling", ["water"], [water])
        for spec in ingredients:
            kind, ident = self.ingredient(spec)
            self.add("addedto", [kind, "water"], [ident, water])
        self.add("container_at", ["bowl", "table"], [bowl, table])


@dataclass
class Task:
    """One task: its kitchen (grid, stations, ingredients, containers, robots) and its goal."""

    name: str
    size: int
    stations: dict[str, int]
    items: list[tuple[str, list[str]]]
    description: str
    goal: Goal
    containers: list[str] = field(default_factory=list)
    robots: int = 1


def _items(
    kinds: str, properties: dict[str, list[str]] | None = None
) -> list[tuple[str, list[str]]]:
    """Parses ``"bread*2 cheese lettuce"``; properties give each kind's file predicates."""
    properties = properties or {}
    result: list[tuple[str, list[str]]] = []
    for word in kinds.split():
        kind, _, count = word.partition("*")
        result += [(kind, list(properties.get(kind, [])))] * int(count or 1)
    return result


def _goal(*steps: tuple[str, tuple[Any, ...], dict[str, Any]]) -> Goal:
    goal = Goal()
    for method, args, kwargs in steps:
        getattr(goal, method)(*args, **kwargs)
    return goal


def dish(
    bottom: str, fillings: str, top: str, ordered: bool = False
) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A :meth:`Goal.dish` step; ``fillings`` is space-separated ingredient specs."""
    return ("dish", (bottom, fillings.split(), top), {"ordered": ordered})


def fries(spec: str) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A :meth:`Goal.on_table` step."""
    return ("on_table", (spec,), {})


def soup(ingredients: str) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A :meth:`Goal.soup` step."""
    return ("soup", (ingredients.split(),), {})


CUT_LETTUCE, CUT_TOMATO, CUT_ONION = "lettuce:iscut", "tomato:iscut", "onion:iscut"
COOKED_PATTY, COOKED_CHICKEN = "patty:iscooked", "chicken:iscooked"
ASYNC = {
    "lettuce": _CUTTABLE,
    "tomato": _CUTTABLE,
    "onion": _CUTTABLE,
    "patty": ["iscookable"],
    "chicken": ["iscookable"],
}
SYNC = {"lettuce": _CUTTABLE, "tomato": _CUTTABLE, "onion": _CUTTABLE, **_SYNC_ITEMS}


def _tasks() -> list[Task]:
    s, a, m = "synchronous/", "asynchronous/", "multi_agent/"
    return [
        Task(
            s + "0_cheese_sandwich",
            5,
            {"table": 4},
            _items("bread*2 cheese"),
            "Prepare a cheese sandwich on a table",
            _goal(dish("bread", "cheese", "bread")),
        ),
        Task(
            s + "1_lettuce_sandwich",
            5,
            {"table": 4, "board": 1},
            _items("bread*2 lettuce", SYNC),
            "Prepare a lettuce sandwich on a table",
            _goal(dish("bread", CUT_LETTUCE, "bread")),
        ),
        Task(
            s + "2_lettuce_tomato_sandwich",
            5,
            {"table": 4, "board": 1},
            _items("bread*2 lettuce tomato", SYNC),
            "Prepare a sandwich with lettuce and tomato on a table",
            _goal(dish("bread", f"{CUT_LETTUCE} {CUT_TOMATO}", "bread")),
        ),
        Task(
            s + "3_burger",
            5,
            {"table": 3},
            _items("bottombun patty topbun", SYNC),
            "Prepare a hamburger on a table",
            _goal(dish("bottombun", COOKED_PATTY, "topbun")),
        ),
        Task(
            s + "4_cheeseburger",
            5,
            {"table": 4},
            _items("bottombun patty cheese topbun", SYNC),
            "Prepare a cheeseburger on a table",
            _goal(dish("bottombun", f"{COOKED_PATTY} cheese", "topbun")),
        ),
        Task(
            s + "5_double_cheeseburger",
            5,
            {"table": 4},
            _items("bottombun patty*2 cheese*2 topbun", SYNC),
            "Prepare a double cheeseburger on a table which contains two patties and two cheese "
            "slices interleaved (starting with a patty)",
            _goal(
                dish(
                    "bottombun",
                    f"{COOKED_PATTY} cheese {COOKED_PATTY} cheese",
                    "topbun",
                    ordered=True,
                )
            ),
        ),
        Task(
            s + "6_lettuce_tomato_cheeseburger",
            5,
            {"table": 6, "board": 1},
            _items("bottombun patty cheese lettuce tomato topbun", SYNC),
            "Prepare a lettuce tomato cheeseburger on a table",
            _goal(dish("bottombun", f"cheese {COOKED_PATTY} {CUT_LETTUCE} {CUT_TOMATO}", "topbun")),
        ),
        Task(
            s + "7_two_lettuce_chicken_sandwich",
            5,
            {"table": 6, "board": 1},
            _items("bread*4 lettuce*2 chicken*2", SYNC),
            "Prepare two lettuce chicken sandwiches on separate tables",
            _goal(
                dish("bread", f"{CUT_LETTUCE} {COOKED_CHICKEN}", "bread"),
                dish("bread", f"{CUT_LETTUCE} {COOKED_CHICKEN}", "bread"),
            ),
        ),
        Task(
            s + "8_two_lettuce_tomato_burger",
            5,
            {"table": 8, "board": 1},
            _items("bottombun*2 patty*2 lettuce*2 tomato*2 topbun*2", SYNC),
            "Prepare two lettuce tomato burgers on separate tables",
            _goal(*[dish("bottombun", f"{COOKED_PATTY} {CUT_LETTUCE} {CUT_TOMATO}", "topbun")] * 2),
        ),
        Task(
            s + "9_onion_cheese_burger_and_lettuce_tomato_chicken_sandwich",
            5,
            {"table": 8, "board": 1},
            _items("bottombun patty cheese onion topbun bread*2 chicken lettuce tomato", SYNC),
            "Prepare a burger with cheese and onions on one table and a chicken sandwich with "
            "lettuce and tomato on another table",
            _goal(
                dish("bottombun", f"{COOKED_PATTY} cheese {CUT_ONION}", "topbun"),
                dish("bread", f"{COOKED_CHICKEN} {CUT_LETTUCE} {CUT_TOMATO}", "bread"),
            ),
        ),
        Task(
            a + "0_cheese_chicken_sandwich",
            5,
            {"table": 3, "stove": 1},
            _items("bread*2 chicken cheese", ASYNC),
            "Prepare a cheese chicken sandwich on a table",
            _goal(dish("bread", f"{COOKED_CHICKEN} cheese", "bread")),
        ),
        Task(
            a + "1_lettuce_chicken_sandwich",
            5,
            {"table": 3, "board": 1, "stove": 1},
            _items("bread*2 chicken lettuce", ASYNC),
            "Prepare a lettuce chicken sandwich on a table",
            _goal(dish("bread", f"{COOKED_CHICKEN} {CUT_LETTUCE}", "bread")),
        ),
        Task(
            a + "2_lettuce_tomato_fried_chicken_sandwich",
            5,
            {"table": 4, "board": 1, "fryer": 1},
            _items("bread*2 chicken lettuce tomato", {**ASYNC, "chicken": ["isfryable"]}),
            "Prepare a fried chicken sandwich with lettuce and tomato on a table",
            _goal(dish("bread", f"chicken:isfried {CUT_LETTUCE} {CUT_TOMATO}", "bread")),
        ),
        Task(
            a + "3_tomato_burger_and_fries",
            5,
            {"table": 4, "stove": 1, "board": 1, "fryer": 1},
            _items("bottombun patty tomato topbun potato", {**ASYNC, "potato": _FRY_IF_CUT}),
            "Prepare a tomato burger and fries on separate tables",
            _goal(
                dish("bottombun", f"{COOKED_PATTY} {CUT_TOMATO}", "topbun"),
                fries("potato:iscut,isfried"),
            ),
        ),
        Task(
            a + "4_onion_cheese_burger_and_fried_onion",
            5,
            {"table": 5, "stove": 1, "board": 1, "fryer": 1},
            _items("bottombun patty cheese onion*2 topbun", {**ASYNC, "onion": _FRY_IF_CUT}),
            "Prepare an onion cheese burger and fried onion rings on separate tables",
            _goal(
                dish("bottombun", f"{COOKED_PATTY} cheese {CUT_ONION}", "topbun"),
                fries("onion:iscut,isfried"),
            ),
        ),
        Task(
            a + "5_potato_soup",
            6,
            {"table": 3, "stove": 1, "board": 1, "sink": 1},
            _items("potato", {"potato": _CUTTABLE}),
            "Make potato soup with a whole potato and serve into a bowl on a table.",
            _goal(soup("potato")),
            containers=["pot", "bowl"],
        ),
        Task(
            a + "6_onion_soup",
            6,
            {"table": 5, "stove": 1, "board": 1, "sink": 1},
            _items("onion*3", ASYNC),
            "Make onion soup with 3 cut onions and serve into a bowl on a table.",
            _goal(soup(f"{CUT_ONION} {CUT_ONION} {CUT_ONION}")),
            containers=["pot", "bowl"],
        ),
        Task(
            a + "7_tomato_soup_and_lettuce_chicken_sandwich",
            6,
            {"table": 6, "stove": 1, "board": 1, "sink": 1},
            _items("tomato bread*2 chicken lettuce", ASYNC),
            "Make tomato soup with a whole tomato served into a bowl on a table and a lettuce "
            "chicken sandwich on another table.",
            _goal(soup("tomato"), dish("bread", f"{COOKED_CHICKEN} {CUT_LETTUCE}", "bread")),
            containers=["pot", "bowl"],
        ),
        Task(
            a + "8_onion_tomato_soup_and_two_chicken_sandwich",
            6,
            {"table": 8, "stove": 1, "board": 1, "sink": 1},
            _items("tomato onion bread*4 chicken*2", ASYNC),
            "Make soup with a cut tomato and cut onion served into a bowl on a table and two "
            "chicken sandwiches on other tables.",
            _goal(soup(f"{CUT_TOMATO} {CUT_ONION}"), *[dish("bread", COOKED_CHICKEN, "bread")] * 2),
            containers=["pot", "bowl"],
        ),
        Task(
            a + "9_onion_potato_soup_and_fried_onion_ring_lettuce_burger_and_onion_cheese_sandwich",
            6,
            {"table": 10, "stove": 1, "board": 1, "sink": 1, "fryer": 1},
            _items(
                "onion*3 potato bottombun lettuce topbun bread*2 chicken",
                {**ASYNC, "onion": _FRY_IF_CUT, "potato": _FRY_IF_CUT},
            ),
            "Make soup with a whole onion and potato served into a bowl, a burger with lettuce "
            "and fried onion rings, and an onion chicken sandwich all on separate tables.",
            _goal(
                soup("onion potato"),
                dish("bottombun", f"{CUT_LETTUCE} onion:iscut,isfried", "topbun"),
                dish("bread", f"{COOKED_CHICKEN} {CUT_ONION}", "bread"),
            ),
            containers=["pot", "bowl"],
        ),
        Task(
            m + "1_lettuce_burger",
            6,
            {"table": 8, "stove": 1, "board": 1},
            _items("bottombun patty lettuce topbun cheese onion tomato chicken", ASYNC),
            "Make a lettuce burger on a table with lettuce on top of the patty.",
            _goal(dish("bottombun", f"{COOKED_PATTY} {CUT_LETTUCE}", "topbun", ordered=True)),
            robots=2,
        ),
        Task(
            m + "2_lettuce_tomato_burger",
            6,
            {"table": 7, "stove": 1, "board": 2},
            _items("bottombun patty tomato lettuce topbun cheese chicken", ASYNC),
            "Make a lettuce tomato burger on a table with lettuce on tomato on patty.",
            _goal(
                dish(
                    "bottombun",
                    f"{COOKED_PATTY} {CUT_TOMATO} {CUT_LETTUCE}",
                    "topbun",
                    ordered=True,
                )
            ),
            robots=2,
        ),
        Task(
            m + "3_lettuce_fried_chicken_fried_onion_burger",
            6,
            {"table": 7, "fryer": 1, "board": 2},
            _items(
                "bottombun chicken lettuce onion topbun",
                {**ASYNC, "chicken": ["isfryable"], "onion": _FRY_IF_CUT},
            ),
            "Make a lettuce fried chicken fried onion burger on a table.",
            _goal(
                dish("bottombun", f"{CUT_LETTUCE} chicken:isfried onion:iscut,isfried", "topbun")
            ),
            robots=2,
        ),
        Task(
            m + "4_lettuce_chicken_sandwich",
            6,
            {"table": 8, "stove": 1, "board": 1},
            _items("bread*2 chicken lettuce cheese onion tomato", ASYNC),
            "Make a lettuce chicken sandwich on a table with lettuce on top of chicken.",
            _goal(dish("bread", f"{COOKED_CHICKEN} {CUT_LETTUCE}", "bread", ordered=True)),
            robots=2,
        ),
        Task(
            m + "5_lettuce_tomato_chicken_sandwich",
            6,
            {"table": 7, "stove": 1, "board": 2},
            _items("bread*2 chicken lettuce tomato cheese", ASYNC),
            "Make a lettuce tomato chicken sandwich on a table.",
            _goal(dish("bread", f"{COOKED_CHICKEN} {CUT_LETTUCE} {CUT_TOMATO}", "bread")),
            robots=2,
        ),
        Task(
            m + "6_double_lettuce_chicken_burger",
            6,
            {"table": 6, "stove": 2, "board": 2},
            _items("bread*2 chicken*2 lettuce*2", ASYNC),
            "Make a double lettuce chicken sandwich (chicken interleaved with lettuce starting "
            "with chicken) on a table.",
            _goal(
                dish(
                    "bread",
                    f"{COOKED_CHICKEN} {CUT_LETTUCE} {COOKED_CHICKEN} {CUT_LETTUCE}",
                    "bread",
                    ordered=True,
                )
            ),
            robots=2,
        ),
        Task(
            m + "7_onion_potato_tomato_soup",
            6,
            {"table": 7, "stove": 1, "board": 1, "sink": 1},
            _items("onion potato tomato", {**ASYNC, "potato": _CUTTABLE}),
            "Make an onion potato tomato soup with a cut onion, a whole potato, and a cut tomato "
            "then serve into a bowl on a table.",
            _goal(soup(f"{CUT_ONION} potato {CUT_TOMATO}")),
            containers=["pot", "bowl"],
            robots=2,
        ),
        Task(
            m + "8_tomato_cheeseburger_onion_chicken_sandwich",
            8,
            {"table": 16, "stove": 2, "board": 2},
            _items(
                "bottombun*2 patty*2 cheese tomato*2 topbun*2 bread*2 chicken*2 onion lettuce*2",
                ASYNC,
            ),
            "Make a tomato cheese burger and an onion chicken sandwich on separate tables.",
            _goal(
                dish("bottombun", f"{COOKED_PATTY} cheese {CUT_TOMATO}", "topbun", ordered=True),
                dish("bread", f"{COOKED_CHICKEN} {CUT_ONION}", "bread", ordered=True),
            ),
            robots=2,
        ),
        Task(
            m + "9_two_lettuce_cheeseburger",
            8,
            {"table": 16, "stove": 2, "board": 2},
            _items(
                "bottombun*2 patty*2 cheese*2 lettuce*2 topbun*2 onion*2 tomato*2 chicken*2", ASYNC
            ),
            "Make two lettuce cheeseburgers on separate tables with lettuce on top of cheese on "
            "top of the patties.",
            _goal(
                *[dish("bottombun", f"{COOKED_PATTY} cheese {CUT_LETTUCE}", "topbun", ordered=True)]
                * 2
            ),
            robots=2,
        ),
        Task(
            m + "10_potato_tomato_chicken_soup_potato_cheese_onion_soup",
            8,
            {"table": 16, "stove": 2, "board": 2, "sink": 2},
            _items("potato*2 tomato*2 chicken*2 cheese onion bottombun topbun", ASYNC),
            "Make a potato tomato chicken soup with cut tomato and cooked chicken and a potato "
            "cheese onion soup with cut onions served in bowls on separate tables.",
            _goal(
                soup(f"potato {CUT_TOMATO} {COOKED_CHICKEN}"), soup(f"potato cheese {CUT_ONION}")
            ),
            containers=["pot", "pot", "bowl", "bowl"],
            robots=2,
        ),
        Task(
            "synchronous_train/0_cheese_onion_sandwich",
            5,
            {"table": 3, "board": 1},
            _items("bread*2 cheese onion", SYNC),
            "Prepare a onion cheese sandwich on a table",
            _goal(dish("bread", f"cheese {CUT_ONION}", "bread")),
        ),
        Task(
            "asynchronous_train/0_chicken_onion_sandwich",
            5,
            {"table": 3, "board": 1, "stove": 1},
            _items("bread*2 chicken onion", ASYNC),
            "Prepare an onion chicken sandwich on a table",
            _goal(dish("bread", f"{COOKED_CHICKEN} {CUT_ONION}", "bread")),
        ),
    ]


def _border(size: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The border cells without the corners, each with the inner cell next to it.

    Counter-clockwise from the bottom left.
    """
    last = size - 1
    cells = [((x, 0), (x, 1)) for x in range(1, last)]
    cells += [((last, y), (last - 1, y)) for y in range(1, last)]
    cells += [((x, last), (x, last - 1)) for x in range(last - 1, 0, -1)]
    cells += [((0, y), (1, y)) for y in range(last - 1, 0, -1)]
    return cells


def _layout(task: Task) -> dict[str, Any]:
    """The task's environment JSON.

    Stations spread evenly along the border (kinds interleaved), containers on the last
    tables, ingredients one per other table (stacked where tables run out), robots inside
    facing stations spread around the kitchen.
    """
    border = _border(task.size)
    kinds = [kind for kind, count in task.stations.items() for _ in range(count)]
    # Interleave the kinds so that special stations do not all sit side by side.
    order = sorted(range(len(kinds)), key=lambda i: (kinds[: i + 1].count(kinds[i]), i))
    assert len(kinds) <= len(border), task.name
    spots = [border[len(border) * k // len(kinds)] for k in range(len(kinds))]
    stations = [
        {"name": kinds[i], "x": spot[0][0], "y": spot[0][1]} for i, spot in zip(order, spots)
    ]
    all_tables = [s for s in stations if s["name"] == "table"]
    # The last tables hold the containers; the ingredients share the others.
    split = len(all_tables) - len(task.containers)
    tables, container_tables = all_tables[:split], all_tables[split:]
    assert tables, task.name
    items = []
    for index, (kind, predicates) in enumerate(task.items):
        table = tables[index % len(tables)]
        item: dict[str, Any] = {
            "name": kind,
            "x": table["x"],
            "y": table["y"],
            "stack-level": index // len(tables),
        }
        if predicates:
            item["predicates"] = predicates
        items.append(item)
    containers = [
        {"name": name, "x": table["x"], "y": table["y"]}
        for name, table in zip(task.containers, container_tables)
    ]
    robots = []
    for k in range(task.robots):
        station = stations[len(stations) * k // task.robots]
        cell, inner = next((c, i) for c, i in border if c == (station["x"], station["y"]))
        robots.append(
            {
                "name": "robot",
                "x": inner[0],
                "y": inner[1],
                "direction": [cell[0] - inner[0], cell[1] - inner[1]],
            }
        )
    env: dict[str, Any] = {
        "version": "1.0.0",
        "width": task.size,
        "height": task.size,
        "config": {"num_cuts": {"default": 3}, "cook_time": {"default": 3}},
        "stations": stations,
        "items": items,
        "players": robots,
    }
    if task.containers:
        env["containers"] = containers
        env["meals"] = []
    env["goal_description"] = task.description
    env["goal"] = task.goal.literals
    return env


def _dump(env: dict[str, Any]) -> str:
    """JSON with one entity or literal per line, like the hand-written files."""
    lines = ["{"]
    keys = list(env)
    for n, key in enumerate(keys):
        value = env[key]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f'  "{key}": [')
            lines += [
                f"    {json.dumps(v)}{',' if i < len(value) - 1 else ''}"
                for i, v in enumerate(value)
            ]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f'  "{key}": {json.dumps(value)}{comma}')
    return "\n".join(lines) + "\n}\n"


def main() -> None:
    """Writes every task file and prints its path."""
    for task in _tasks():
        path = TASKS_DIR / f"{task.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(_layout(task)))
        print(path.relative_to(TASKS_DIR.parents[2]))


if __name__ == "__main__":
    main()

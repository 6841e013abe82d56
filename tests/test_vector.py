"""The batched engine (robotouille.vector / robotouille.rl.make_vec) against single environments.

The reference for a batch is a list of plain :class:`robotouille.Env` objects stepped one by one
in Python, encoded with :meth:`Layout.encode` / :meth:`Layout.mask` (numpy), with the documented
autoreset and invalid-action rules written out below.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotouille
from robotouille.domains import bundled_environment_path
from robotouille.vector import Batch, Layout, compile_family

from .conftest import SHARED

EXAMPLES = SHARED / "reference" / "robotouille" / "environments" / "env_generator" / "examples"
needs_shared = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared is not available")


def _base() -> dict[str, Any]:
    with open(bundled_environment_path("cheese_sandwich")) as f:
        data: dict[str, Any] = json.load(f)
    return data


def _pick_cheese(extra: bool = False, robots: int = 1) -> dict[str, Any]:
    """A variant whose goal (hold the cheese) random play reaches often."""
    data = copy.deepcopy(_base())
    data["goal_description"] = "Pick up the cheese"
    data["goal"] = [{"predicate": "has_item", "args": ["robot", "cheese"], "ids": [1, 2]}]
    if extra:  # more objects: another table with another cheese
        data["stations"].append({"name": "table", "x": 2, "y": 0})
        data["items"].append({"name": "cheese", "x": 2, "y": 0, "stack-level": 0})
    for i in range(1, robots):
        data["players"].append({"name": "robot", "x": 3, "y": 1 + i % 2, "direction": [0, -1]})
    return data


FAMILY = [_base(), _pick_cheese(), _pick_cheese(extra=True)]
TWO_ROBOTS = [_pick_cheese(robots=2), _pick_cheese(extra=True, robots=2)]


class LoopReference:
    """B single environments with the vector engine's documented rules, in plain Python."""

    def __init__(
        self,
        sources: list[dict[str, Any]],
        num_envs: int,
        mode: str,
        max_steps: int | None,
        goal_reward: float = 1.0,
        domain: Any = None,
    ) -> None:
        self.envs = [
            robotouille.load(sources[b % len(sources)], domain, mode=mode)  # type: ignore[arg-type]
            for b in range(num_envs)
        ]
        self.instance = [b % len(sources) for b in range(num_envs)]
        self.layout = Layout([robotouille.load(s, domain).task for s in sources])  # type: ignore[arg-type]
        self.max_steps = max_steps
        self.goal_reward = goal_reward
        self.steps = [0] * num_envs
        self.pending = [False] * num_envs
        self.last: list[tuple[float, bool, bool, bool]] = [(0.0, False, False, False)] * num_envs

    def mask(self, b: int) -> np.ndarray:
        return self.layout.mask(self.instance[b], self.envs[b]._valid_for(None))

    def observation(self, b: int) -> np.ndarray:
        return self.layout.encode(self.instance[b], self.envs[b])

    def step(self, b: int, column: int) -> None:
        env = self.envs[b]
        if self.pending[b]:
            env.reset()
            self.steps[b] = 0
            self.pending[b] = False
            self.last[b] = (0.0, False, False, False)
            return
        self.steps[b] += 1
        limit = self.max_steps is not None and self.steps[b] >= self.max_steps
        groundings = self.layout.column_groundings(self.instance[b])
        g = int(groundings[column]) if 0 <= column < len(groundings) else -1
        if g < 0 or g not in env._valid_for(None):
            self.last[b] = (0.0, False, limit, True)
            self.pending[b] = limit
            return
        _, _, done, _, _ = env.step(env.task.grounding_name(g))
        self.last[b] = (self.goal_reward if done else 0.0, done, not done and limit, False)
        self.pending[b] = done or limit


def _assert_same(batch: Batch, ref: LoopReference) -> None:
    v = batch.views
    for b in range(batch.num_envs):
        assert int(v.instance[b]) == ref.instance[b]
        np.testing.assert_array_equal(v.observation[b], ref.observation(b), err_msg=f"env {b}")
        np.testing.assert_array_equal(v.action_mask[b], ref.mask(b), err_msg=f"env {b}")
        reward, terminated, truncated, invalid = ref.last[b]
        assert (float(v.reward[b]), bool(v.terminated[b]), bool(v.truncated[b])) == (
            reward,
            terminated,
            truncated,
        ), f"env {b}"
        assert bool(v.invalid[b]) == invalid
        assert int(v.steps[b]) == ref.steps[b]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    num_envs=st.integers(1, 7),
    threads=st.integers(1, 3),
    max_steps=st.sampled_from([None, 2, 5, 12]),
    multi_robot=st.booleans(),
    p_invalid=st.sampled_from([0.0, 0.2]),
)
def test_batch_equals_loop(
    seed: int,
    num_envs: int,
    threads: int,
    max_steps: int | None,
    multi_robot: bool,
    p_invalid: float,
) -> None:
    sources = TWO_ROBOTS if multi_robot else FAMILY
    mode = "turn_based" if multi_robot else "centralized"
    tasks = compile_family(sources)  # type: ignore[arg-type]
    batch = Batch(tasks, num_envs, num_threads=threads, mode=mode, max_steps=max_steps)
    ref = LoopReference(sources, num_envs, mode, max_steps)
    batch.reset(seed=seed)
    _assert_same(batch, ref)
    rng = np.random.default_rng(seed)
    for _ in range(40):
        actions = np.empty(num_envs, np.int32)
        for b in range(num_envs):
            valid = np.flatnonzero(batch.views.action_mask[b])
            if rng.random() < p_invalid or len(valid) == 0:
                actions[b] = rng.integers(0, batch.layout.num_actions)
            else:
                actions[b] = rng.choice(valid)
        batch.step(actions)
        for b in range(num_envs):
            ref.step(b, int(actions[b]))
        _assert_same(batch, ref)


def _trajectory(threads: int, num_envs: int, seed: int, steps: int) -> list[tuple[Any, ...]]:
    tasks = compile_family(FAMILY)  # type: ignore[arg-type]
    batch = Batch(
        tasks, num_envs, num_threads=threads, max_steps=9, instance_sampling="random"
    )
    batch.reset(seed=seed)
    out = []
    for _ in range(steps):
        batch.step_random()
        v = batch.views
        out.append(
            (
                v.observation.tobytes(),
                v.action_mask.tobytes(),
                v.reward.tobytes(),
                v.terminated.tobytes(),
                v.truncated.tobytes(),
                v.instance.tobytes(),
            )
        )
    return out


def test_thread_count_does_not_change_results() -> None:
    # 800 rows: at least 256 per chunk (the pool's minimum), so 2 and 3 threads really split it.
    one = _trajectory(1, 800, seed=7, steps=30)
    assert one == _trajectory(2, 800, seed=7, steps=30)
    assert one == _trajectory(3, 800, seed=7, steps=30)
    assert one != _trajectory(1, 800, seed=8, steps=30)


def test_same_seed_same_trajectory_and_instances_are_drawn() -> None:
    a = _trajectory(2, 300, seed=3, steps=20)
    assert a == _trajectory(2, 300, seed=3, steps=20)
    instances = np.frombuffer(a[-1][5], np.int32)
    assert set(instances.tolist()) == {0, 1, 2}  # random sampling reaches every instance


def _plan_columns(batch: Batch, instance: int) -> list[int]:
    env = robotouille.load(FAMILY[instance])  # type: ignore[arg-type]
    plan = robotouille.plan(env)
    return [
        batch.layout.action_column(instance, int(env.task.grounding_id(*a)))  # type: ignore[arg-type]
        for a in plan.structured
    ]


def test_next_step_autoreset_at_the_boundary() -> None:
    tasks = compile_family(FAMILY)  # type: ignore[arg-type]
    batch = Batch(tasks, 3, num_threads=2, invalid_action="raise")
    batch.reset(seed=0)
    initial = batch.views.observation.copy()
    plan = _plan_columns(batch, 1)  # env 1 runs instance 1 (pick up the cheese)
    wait = [int(np.flatnonzero(batch.views.action_mask[b])[-1]) for b in range(3)]
    for i, column in enumerate(plan):
        actions = np.array(wait, np.int32)
        actions[1] = column
        batch.step(actions)
        v = batch.views
        last = i == len(plan) - 1
        assert bool(v.terminated[1]) == last
        assert float(v.reward[1]) == (1.0 if last else 0.0)
        assert not v.truncated[1]
        wait = [int(np.flatnonzero(v.action_mask[b])[-1]) for b in range(3)]
    assert not (batch.views.observation[1] == initial[1]).all()
    # The next step resets env 1 whatever its action (even one out of range, in raise mode).
    actions = np.array(wait, np.int32)
    actions[1] = 10**6
    batch.step(actions)
    v = batch.views
    np.testing.assert_array_equal(v.observation[1], initial[1])
    assert (float(v.reward[1]), bool(v.terminated[1]), bool(v.truncated[1])) == (0.0, False, False)
    assert int(v.steps[1]) == 0
    assert int(v.steps[0]) == len(plan) + 1  # the others kept going


def test_truncation_then_reset() -> None:
    batch = Batch(compile_family(FAMILY), 2, max_steps=[3, 1, 2])  # type: ignore[arg-type]
    batch.reset(seed=0)
    flags = []
    for _ in range(4):
        batch.step_random()
        flags.append((batch.views.truncated.tolist(), batch.views.steps.tolist()))
    assert flags[0] == ([False, True], [1, 1])
    assert flags[1] == ([False, False], [2, 0])  # env 1 was reset
    assert flags[2] == ([True, True], [3, 1])


def test_invalid_action_raise_names_the_environment_and_changes_nothing() -> None:
    batch = Batch(compile_family(FAMILY), 3, invalid_action="raise")  # type: ignore[arg-type]
    batch.reset(seed=0)
    before = batch.views.observation.copy()
    actions = np.array([int(np.flatnonzero(batch.views.action_mask[b])[0]) for b in range(3)])
    invalid = int(np.flatnonzero(~batch.views.action_mask[2])[0])
    actions[2] = invalid
    with pytest.raises(ValueError, match=r"environment 2: action \d+ \('.*'\) is not valid"):
        batch.step(actions)
    np.testing.assert_array_equal(batch.views.observation, before)
    assert batch.views.steps.tolist() == [0, 0, 0]
    actions[2] = -1
    with pytest.raises(ValueError, match="out of range"):
        batch.step(actions)


def test_invalid_action_ignore_flags_and_counts() -> None:
    batch = Batch(compile_family(FAMILY[:1]), 1)  # type: ignore[arg-type]
    batch.reset(seed=0)
    before = batch.views.observation.copy()
    invalid = int(np.flatnonzero(~batch.views.action_mask[0])[0])
    batch.step(np.array([invalid]))
    assert batch.views.invalid[0] and int(batch.views.steps[0]) == 1
    np.testing.assert_array_equal(batch.views.observation, before)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_threads": 0}, "num_threads"),
        ({"max_steps": [1, 2]}, "one entry per instance"),
        ({"max_steps": 0}, "positive"),
        ({"mode": "simultaneous"}, "centralized or turn_based"),
        ({"observation": "pixels"}, "observation"),
        ({"instance_sampling": "sometimes"}, "instance_sampling"),
        ({"invalid_action": "explode"}, "invalid_action"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    args = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        Batch(compile_family(FAMILY), **args)  # type: ignore[arg-type]


def test_bad_step_input() -> None:
    batch = Batch(compile_family(FAMILY), 2)  # type: ignore[arg-type]
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="integers"):
        batch.step(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="2 ints"):
        batch.reset(seed=[1, 2, 3])


def test_layout_union_and_single_instance_identity() -> None:
    tasks = compile_family(FAMILY)  # type: ignore[arg-type]
    single = Layout(tasks[:1])
    assert single.facts == tuple(tasks[0].fact_name(f) for f in range(tasks[0].num_pred_facts))
    assert single.column_groundings(0).tolist() == list(range(tasks[0].num_groundings))
    family = Layout(tasks)
    assert len(family.goals) == 2  # two distinct goals among three instances
    assert set(single.facts) < set(family.facts)  # the larger instance adds columns
    assert "item_at(cheese2,table5)" in family.facts
    assert family.observation_names[-1] == "turn=0"
    raw = Layout(tasks, "raw")
    assert raw.facts[:2] == ("fact0", "fact1")
    assert raw.fact_columns(2).max() == tasks[2].num_pred_facts - 1
    # Columns the instance lacks stay zero and never become valid.
    batch = Batch(tasks, 3)
    batch.reset(seed=0)
    missing = [i for i, f in enumerate(family.facts) if f not in set(single.facts)]
    assert not batch.views.observation[0, missing].any()


def test_views_are_read_only_and_buffers_zero_copy() -> None:
    venv = robotouille.make_vec(FAMILY, 4, max_steps=5)
    obs, info = venv.reset(seed=0)
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 1
    obs2, *_, info2 = venv.step(
        np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
    )
    assert np.shares_memory(obs2, venv.batch.buffers.observation)
    assert np.shares_memory(info2["action_mask"], venv.batch.buffers.action_mask)
    copied = robotouille.make_vec(FAMILY, 4, copy=True)
    obs3, _ = copied.reset(seed=0)
    assert not np.shares_memory(obs3, copied.batch.buffers.observation)


@needs_shared
@pytest.mark.parametrize(
    "name",
    [
        "synchronous/9_onion_cheese_burger_and_lettuce_tomato_chicken_sandwich.json",
        "asynchronous/9_onion_potato_soup_and_fried_onion_ring_lettuce_burger_and_onion_cheese_sandwich.json",
        "multi_agent/1_lettuce_burger.json",
    ],
)
def test_batch_equals_loop_on_original_files(name: str) -> None:
    domain = SHARED / "reference" / "robotouille" / "domain" / "robotouille.json"
    path = EXAMPLES / name
    if not path.is_file():
        pytest.skip(f"{name} not in ../shared")
    env = robotouille.load(path, domain)
    batch = Batch([env.task], 5, num_threads=2, max_steps=25)
    ref = LoopReference([json.loads(path.read_text())], 5, "centralized", 25, domain=domain)
    batch.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.views.action_mask])
        batch.step(actions)
        for b in range(5):
            ref.step(b, int(actions[b]))
        _assert_same(batch, ref)

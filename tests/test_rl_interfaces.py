"""Gymnasium and PettingZoo conformance of the RL interfaces (robotouille.rl, .multiagent)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import robotouille
from robotouille.multiagent import AECEnv, ParallelEnv
from robotouille.rl import DiscreteEnv, RobotouilleVectorEnv, TextEnv

from .conftest import SHARED
from .test_vector import FAMILY, TWO_ROBOTS

EXAMPLES = SHARED / "reference" / "robotouille" / "environments" / "env_generator" / "examples"
DOMAIN = SHARED / "reference" / "robotouille" / "domain" / "robotouille.json"

# PettingZoo's checker recommends (does not require) Box observations and "player_0"-style
# names; action-masked environments use Dict observations, and our agents are the robots' names.
pettingzoo_advice = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably",
    "ignore:We recommend agents to be named",
    "ignore:Observation is not a NumPy array",
)


def test_registered_ids_for_bundled_tasks() -> None:
    for task in robotouille.domains.list_bundled_environments():
        name = task.replace("/", "-")
        assert f"Robotouille/{name}-v0" in gymnasium.envs.registry
        assert f"Robotouille/{name}-discrete-v0" in gymnasium.envs.registry
    soup = gymnasium.make("Robotouille/asynchronous-5_potato_soup-v0")
    assert soup.reset(seed=0)[0].endswith(
        "Goal: Make potato soup with a whole potato and serve into a bowl on a table."
    )
    text = gymnasium.make("Robotouille/cheese_sandwich-v0")
    obs, info = text.reset(seed=0)
    assert obs.startswith("Robot 1 is at") or "robot1" in obs.lower()
    assert info["valid_actions"]
    discrete = gymnasium.make("Robotouille/Discrete-v0", env="cheese_sandwich", max_steps=10)
    obs, info = discrete.reset(seed=0)
    assert obs.dtype == np.uint8 and info["action_mask"].dtype == bool


def test_check_env_text() -> None:
    env = gymnasium.make("Robotouille/Text-v0", env="cheese_sandwich", max_steps=30)
    assert isinstance(env.unwrapped, TextEnv)
    check_env(env.unwrapped)


def test_check_env_discrete() -> None:
    env = gymnasium.make("Robotouille/Discrete-v0", env=FAMILY, max_steps=30)
    assert isinstance(env.unwrapped, DiscreteEnv)
    check_env(env.unwrapped)


def test_text_env_feedback_on_invalid_action() -> None:
    env = TextEnv("cheese_sandwich")
    obs, _ = env.reset()
    obs2, reward, terminated, truncated, info = env.step("Fly to the moon")
    assert obs2 == obs and reward == 0.0 and not terminated and not truncated
    assert "not valid" in info["feedback"]


def test_discrete_env_plays_an_optimal_plan() -> None:
    env = DiscreteEnv("cheese_sandwich")
    _, info = env.reset(seed=0)
    plan = robotouille.plan(robotouille.load("cheese_sandwich"))
    task = env.batch.tasks[0]
    terminated = False
    for name, args in plan.structured:
        column = env.layout.action_column(0, int(task.grounding_id(name, args)))  # type: ignore[arg-type]
        assert info["action_mask"][column]
        _, reward, terminated, _, info = env.step(column)
    assert terminated and reward == 1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_make_vec_is_a_gymnasium_vector_env() -> None:
    venv = robotouille.make_vec(FAMILY, 6, num_threads=2, max_steps=8)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    assert info["action_mask"].shape == (6, venv.single_action_space.n)
    assert info["action_mask"].dtype == bool
    for _ in range(20):
        actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        assert venv.action_space.contains(actions)
        obs, reward, terminated, _, info = venv.step(actions)
        assert obs.shape == (6, venv.single_observation_space.shape[0])
        assert reward.dtype == np.float64 and terminated.dtype == bool
    texts = venv.action_texts(0)
    assert len(texts) == int(info["action_mask"][0].sum())
    words, counters, instance = venv.raw_state()
    assert words.shape[0] == counters.shape[0] == instance.shape[0] == 6
    venv.close()


def test_gymnasium_make_vec_uses_the_batched_engine() -> None:
    venv = gymnasium.make_vec(
        "Robotouille/cheese_sandwich-discrete-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        max_steps=5,
    )
    assert isinstance(venv, RobotouilleVectorEnv)
    obs, _ = venv.reset(seed=1)
    assert obs.shape[0] == 3


def test_vector_env_reset_rejects_options() -> None:
    venv = robotouille.make_vec("cheese_sandwich", 2)
    with pytest.raises(ValueError, match="options"):
        venv.reset(seed=0, options={"mystery": 1})


@pettingzoo_advice
def test_parallel_api() -> None:
    parallel_api_test(ParallelEnv(TWO_ROBOTS[1], max_steps=40), num_cycles=200)


@pettingzoo_advice
def test_aec_api() -> None:
    api_test(AECEnv(TWO_ROBOTS[0], max_steps=40, render_mode="ansi"), num_cycles=200)


@pettingzoo_advice
@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared is not available")
def test_pettingzoo_api_on_original_multi_agent_file() -> None:
    path = EXAMPLES / "multi_agent" / "1_lettuce_burger.json"
    parallel_api_test(ParallelEnv(path, DOMAIN, max_steps=30), num_cycles=40)
    api_test(AECEnv(path, DOMAIN, max_steps=30), num_cycles=40)


def test_parallel_step_is_a_simultaneous_joint_step() -> None:
    par = ParallelEnv(TWO_ROBOTS[0])
    obs, _ = par.reset()
    reference = robotouille.load(TWO_ROBOTS[0], mode="simultaneous")  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for _ in range(25):
        actions = {
            r: int(rng.choice(np.flatnonzero(obs[r]["action_mask"]))) for r in par.agents
        }
        joint = [
            reference.task.grounding_name(int(par.layout.column_groundings(0)[actions[r]]))
            for r in par.possible_agents
        ]
        _, ref_reward, ref_done, _, ref_info = reference.step(joint)  # type: ignore[arg-type]
        obs, rewards, terminations, _, infos = par.step(actions)
        state = par.state()
        np.testing.assert_array_equal(state, par.layout.encode(0, reference))
        assert set(rewards.values()) == {ref_reward}
        skipped = [s for r in par.possible_agents for s in infos[r]["skipped"]]
        assert skipped == ref_info["skipped"]
        if ref_done:
            assert all(terminations.values()) and par.agents == []
            break


def test_aec_turns_rotate_and_masks_follow_the_turn() -> None:
    aec = AECEnv(TWO_ROBOTS[0])
    aec.reset()
    assert aec.agent_selection == "robot1"
    assert aec.observe("robot2")["action_mask"].sum() == 0
    mask = aec.observe("robot1")["action_mask"]
    aec.step(int(np.flatnonzero(mask)[0]))
    assert aec.agent_selection == "robot2"
    # An action outside the mask is ignored: same robot's turn, flagged.
    invalid = int(np.flatnonzero(aec.observe("robot2")["action_mask"] == 0)[0])
    aec.step(invalid)
    assert aec.agent_selection == "robot2" and aec.infos["robot2"]["invalid_action"]

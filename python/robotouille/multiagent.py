"""PettingZoo interfaces for multi-robot environments (decision D3).

* :class:`ParallelEnv`: ``simultaneous`` mode. Every robot chooses one action per step; the
  actions are applied in robot order, and one that an earlier robot's action made invalid
  becomes a no-op (listed in ``infos[robot]["skipped"]``).
* :class:`AECEnv`: ``turn_based`` mode. Robots act in turn; ``agent_selection`` is the robot
  whose turn it is.

Agents are the robots' names (``robot1``, ...). Each agent observes
``{"observation": Box(0, 1, (D,), uint8), "action_mask": Box(0, 1, (A,), int8)}`` with the
encoding of :mod:`robotouille.vector` (the observation is the same for every agent; the mask
holds the agent's own valid actions, and is all zero when it is not the agent's turn), and acts
with ``Discrete(A)``. An action outside the agent's mask is ignored (no-op for that robot, and
in turn-based mode no time passes), with ``infos[agent]["invalid_action"] = True``. The goal
gives every agent ``goal_reward``; all agents terminate together (or are truncated together at
``max_steps``).

PettingZoo is an optional dependency: ``pip install "robotouille[rl]"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pettingzoo
from gymnasium import spaces

from .env import Env, PathLike, load
from .vector import Layout

AgentObservation = dict[str, npt.NDArray[Any]]


class _Robots:
    """What both wrappers share: the env, the layout and the per-agent spaces."""

    def __init__(
        self, env: PathLike | dict[str, Any], domain_file: PathLike | None, mode: str, **kw: Any
    ) -> None:
        self.env: Env = load(env, domain_file, mode=mode, **kw)  # type: ignore[arg-type]
        self.layout = Layout([self.env.task])
        self.groundings = self.layout.column_groundings(0)
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (self.layout.num_observations,), np.uint8),
                "action_mask": spaces.Box(0, 1, (self.layout.num_actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.env.robots, observation)
        self.action_spaces = {r: spaces.Discrete(self.layout.num_actions) for r in self.env.robots}

    def observe(self, robot: str, has_turn: bool = True) -> AgentObservation:
        valid = self.env._valid_for(robot) if has_turn else []
        return {
            "observation": self.layout.encode(0, self.env),
            "action_mask": self.layout.mask(0, valid).astype(np.int8),
        }

    def grounding(self, robot: str, action: Any) -> tuple[str, tuple[str, ...]] | None:
        """The structured action of an action column, or None if not valid for the robot."""
        if action is None:
            return None
        a = int(action)
        if not 0 <= a < len(self.groundings):
            return None
        g = int(self.groundings[a])
        if g < 0 or g not in self.env._valid_for(robot):
            return None
        return self.env.task.grounding_name(g)


class _RobotsEnv:
    """The parts both PettingZoo classes share: construction, spaces, render, state, close."""

    metadata: dict[str, Any]
    _MODE = ""

    def __init__(
        self,
        env: PathLike | dict[str, Any],
        domain_file: PathLike | None = None,
        *,
        max_steps: int | None = None,
        goal_reward: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        self._robots = _Robots(env, domain_file, self._MODE, max_steps=max_steps)
        self._robots.env.goal_reward = goal_reward
        self.layout = self._robots.layout
        self.possible_agents = list(self._robots.env.robots)
        self.agents: list[str] = []
        self.render_mode = render_mode

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The (shared, cached) observation space of an agent."""
        return self._robots.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) action space of an agent."""
        return self._robots.action_spaces[agent]

    def render(self) -> str | None:
        """The observation text when ``render_mode="ansi"``."""
        return self._robots.env.observation() if self.render_mode == "ansi" else None

    def state(self) -> npt.NDArray[np.uint8]:
        """The global state: the (shared) observation vector."""
        return self.layout.encode(0, self._robots.env)

    def close(self) -> None:
        """Nothing to release (kept for PettingZoo's API)."""


class ParallelEnv(_RobotsEnv, pettingzoo.ParallelEnv[str, AgentObservation, int]):
    """Simultaneous-mode multi-robot environment (one action per robot per step).

    Args:
        env: Environment file, bundled task name or parsed JSON with at least one robot.
        domain_file: Domain file (default: the bundled domain).
        max_steps: Truncation limit (``None``: none).
        goal_reward: Reward every agent gets when the goal is reached.
        render_mode: ``None`` or ``"ansi"``.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's API)
        "name": "robotouille_parallel_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }
    _MODE = "simultaneous"

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, AgentObservation], dict[str, dict[str, Any]]]:
        """Restores the initial state (deterministic; ``seed`` is accepted and unused)."""
        del seed, options
        self._robots.env.reset()
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, AgentObservation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """One joint step; robots missing from ``actions`` (or given ``None``) do nothing."""
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        entries = [self._robots.grounding(r, actions.get(r)) for r in self.possible_agents]
        _, reward, terminated, truncated, info = self._robots.env.step(list(entries))
        skipped = set(info.get("skipped", ()))
        texts = {
            r: None if e is None else self._text(e) for r, e in zip(self.possible_agents, entries)
        }
        infos = {
            r: {
                "invalid_action": actions.get(r) is not None and entries[i] is None,
                "skipped": [texts[r]] if texts[r] in skipped else [],
            }
            for i, r in enumerate(self.possible_agents)
        }
        agents = list(self.agents)
        observations = self._observations()
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            dict.fromkeys(agents, float(reward)),
            dict.fromkeys(agents, terminated),
            dict.fromkeys(agents, truncated),
            infos,
        )

    def _observations(self) -> dict[str, AgentObservation]:
        return {r: self._robots.observe(r) for r in self.possible_agents}

    def _text(self, structured: tuple[str, tuple[str, ...]]) -> str:
        g = self._robots.env.task.grounding_id(*structured)
        return self._robots.env._text(int(g)) if g is not None else ""


class AECEnv(_RobotsEnv, pettingzoo.AECEnv[str, AgentObservation, int]):
    """Turn-based multi-robot environment (robots act one at a time, in robot order).

    Args:
        env: Environment file, bundled task name or parsed JSON with at least one robot.
        domain_file: Domain file (default: the bundled domain).
        max_steps: Truncation limit in steps (every robot's turn is one step).
        goal_reward: Reward every agent gets when the goal is reached.
        render_mode: ``None`` or ``"ansi"``.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's API)
        "name": "robotouille_aec_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }
    _MODE = "turn_based"

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Restores the initial state (deterministic; ``seed`` is accepted and unused)."""
        del seed, options
        env = self._robots.env
        env.reset()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = env.current_robot

    def observe(self, agent: str) -> AgentObservation:
        """The agent's observation (its mask is empty when it is not its turn)."""
        return self._robots.observe(agent, has_turn=agent == self._robots.env.current_robot)

    def step(self, action: Any) -> None:
        """Performs the selected agent's action (``None`` only for a finished agent)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        structured = self._robots.grounding(agent, action)
        self._clear_rewards()
        for a in self.agents:
            self.infos[a] = {}
        if structured is None:
            self.infos[agent] = {"invalid_action": True}
            return
        _, reward, terminated, truncated, _ = self._robots.env.step(structured)
        for a in self.agents:
            self.rewards[a] = float(reward)
            self.terminations[a] = terminated
            self.truncations[a] = truncated
        self.agent_selection = self._robots.env.current_robot
        self._accumulate_rewards()
        if terminated or truncated:
            self._deads_step_first()

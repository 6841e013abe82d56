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

from .env import Env, Mode, PathLike, load
from .vector import Layout

AgentObservation = dict[str, npt.NDArray[Any]]


class _RobotsEnv:
    """What both PettingZoo classes share: the env, the layout, spaces, observations, render."""

    metadata: dict[str, Any]
    _MODE: Mode = "centralized"

    def __init__(
        self,
        env: PathLike | dict[str, Any],
        domain_file: PathLike | None = None,
        *,
        max_steps: int | None = None,
        goal_reward: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        self.env: Env = load(env, domain_file, mode=self._MODE, max_steps=max_steps)
        self.env.goal_reward = goal_reward
        self.layout = Layout([self.env.task])
        self._groundings = self.layout.column_groundings(0)
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (self.layout.num_observations,), np.uint8),
                "action_mask": spaces.Box(0, 1, (self.layout.num_actions,), np.int8),
            }
        )
        self._observation_spaces = dict.fromkeys(self.env.robots, observation)
        self._action_spaces = {
            r: spaces.Discrete(self.layout.num_actions) for r in self.env.robots
        }
        self.possible_agents = list(self.env.robots)
        self.agents: list[str] = []
        self.render_mode = render_mode

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The (shared, cached) observation space of an agent."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) action space of an agent."""
        return self._action_spaces[agent]

    def render(self) -> str | None:
        """The observation text when ``render_mode="ansi"``."""
        return self.env.observation() if self.render_mode == "ansi" else None

    def state(self) -> npt.NDArray[np.uint8]:
        """The global state: the (shared) observation vector."""
        return self.layout.encode(0, self.env)

    def close(self) -> None:
        """Nothing to release (kept for PettingZoo's API)."""

    def _observe(
        self, robot: str, observation: npt.NDArray[np.uint8], has_turn: bool = True
    ) -> AgentObservation:
        """One agent's observation: the shared vector (a copy) and the agent's own mask."""
        valid = self.env._valid_for(robot) if has_turn else []
        return {
            "observation": observation.copy(),
            "action_mask": self.layout.mask(0, valid).astype(np.int8),
        }

    def _grounding(self, robot: str, action: Any) -> int | None:
        """The grounding of an action column, or None if it is not valid for the robot now."""
        if action is None:
            return None
        a = int(action)
        if not 0 <= a < len(self._groundings):
            return None
        g = int(self._groundings[a])
        return g if g >= 0 and g in self.env._valid_for(robot) else None


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
        self.env.reset()
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
        groundings = [self._grounding(r, actions.get(r)) for r in self.possible_agents]
        joint = [None if g is None else self.env.task.grounding_name(g) for g in groundings]
        _, reward, terminated, truncated, info = self.env.step(joint)  # type: ignore[arg-type]
        skipped = set(info.get("skipped", ()))
        infos = {}
        for r, g in zip(self.possible_agents, groundings):
            text = None if g is None else self.env._text(g)
            infos[r] = {
                "invalid_action": actions.get(r) is not None and g is None,
                "skipped": [text] if text in skipped else [],
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
        shared = self.layout.encode(0, self.env)
        return {r: self._observe(r, shared) for r in self.possible_agents}


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
        env = self.env
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
        shared = self.layout.encode(0, self.env)
        return self._observe(agent, shared, has_turn=agent == self.env.current_robot)

    def step(self, action: Any) -> None:
        """Performs the selected agent's action (``None`` only for a finished agent)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        g = self._grounding(agent, action)
        self._clear_rewards()
        for a in self.agents:
            self.infos[a] = {}
        if g is None:
            self.infos[agent] = {"invalid_action": True}
            return
        _, reward, terminated, truncated, _ = self.env.step(self.env.task.grounding_name(g))
        for a in self.agents:
            self.rewards[a] = float(reward)
            self.terminations[a] = terminated
            self.truncations[a] = truncated
        self.agent_selection = self.env.current_robot
        self._accumulate_rewards()
        if terminated or truncated:
            self._deads_step_first()

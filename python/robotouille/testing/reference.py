"""A slow, deliberately simple pure-Python interpreter of the engine's semantics.

This is the oracle the compiled engine is differentially tested against, so every rule is
written the most direct way, with no attention to speed:

* the state is a list of existing objects ``(name, type)`` in object order, a set of true
  ground atoms ``(predicate, args)``, an ordered list of active special-effect instances and
  the current player;
* groundings are enumerated with :func:`itertools.product`;
* the goal is decided by a plain depth-first search over variable assignments.

It follows ``shared/spec/reference-semantics.md`` (§1-§6) as amended by
``shared/spec/project-decisions.md``: every effect is updated once per step (D1, unless
``skip_quirk=True`` asks for the original's remove-while-iterating bug of reference §1.9),
durations are data (D2), three multi-robot modes (D3), the canonical grounding order (D4),
goals as a matcher over variables (D5) and invalid actions raise
:class:`~robotouille.errors.InvalidActionError` (D8).

A literal that mentions an object that does not exist (deleted, or not created yet) reads as
false and setting it does nothing. This module never imports the compiled extension.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robotouille.domain import ActionDef, CreatedObject, Domain, Literal, SpecialEffectDef
from robotouille.errors import InvalidActionError
from robotouille.problem import Problem, base_name

MODES = ("centralized", "turn_based", "simultaneous")
"""The multi-robot stepping modes of decision D3."""

PLAYER_TYPE = "player"
"""The object type of robots (the environment format's ``players`` list)."""

DEFAULT_DURATION = 3
"""N when an effect names no duration, or its config entry is missing (decision D2)."""

_TEMPLATE_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Placeholder:
    """Stands for the object a creation effect will make, until the effect makes it.

    Attributes:
        param: The placeholder name the creation binds (``created_obj.param``, e.g. ``m1``).
        name: The base name of the object to create (e.g. ``water``).
        type: The type of the object to create (e.g. ``meal``).
    """

    param: str
    name: str
    type: str


Arg = str | Placeholder
GroundAtom = tuple[str, tuple[Arg, ...]]
GroundLiteral = tuple[GroundAtom, bool]


def _ground(literal: Literal, binding: dict[str, Arg]) -> GroundLiteral:
    """Substitutes bound objects for the placeholders of a literal."""
    return (literal.predicate, tuple(binding[p] for p in literal.params)), literal.is_true


def _arg_name(arg: Arg) -> str:
    """The name of an argument; a placeholder is shown by its base name (as the original)."""
    return arg.name if isinstance(arg, Placeholder) else arg


def atom_text(atom: GroundAtom) -> str:
    """Renders an atom as ``name(a,b)`` (no spaces), the format of the recorded traces."""
    pred, args = atom
    return f"{pred}({','.join(_arg_name(a) for a in args)})"


@dataclass(eq=False)
class EffectInstance:
    """An instantiated special effect in the state's active list (reference §1.5-§1.7).

    Attributes:
        type: ``delayed``, ``repetitive``, ``conditional``, ``creation`` or ``deletion``.
        param: The placeholder name of the definition's ``param``.
        arg: The object bound to the top-level effect's ``param`` (shared by nested effects).
        fx: Grounded effect literals, in order.
        conditions: Grounded condition literals (conditional effects only).
        nested: Nested effect instances, in order.
        created: What a creation effect creates (``None`` for other types).
        target: The object bound to this effect's own ``param`` (what a deletion deletes).
        goal: Ticks (delayed) or applications (repetitive) needed to fire; 0 otherwise.
        counter: Ticks or applications so far.
        completed: Whether the effect has finished.
    """

    type: str
    param: str
    arg: str
    fx: list[GroundLiteral]
    conditions: list[GroundLiteral]
    nested: list[EffectInstance]
    created: CreatedObject | None
    target: Arg
    goal: int
    counter: int = 0
    completed: bool = False

    def identity(self) -> tuple[Any, ...]:
        """What makes two instances "the same effect" (reference §1.6).

        Progress (``counter``, ``completed``) is ignored; nested effects compare recursively
        and in order. A deletion also compares the object it deletes: two deletions of
        different objects are different effects even when their ``arg`` is the same.
        """
        return (
            self.type,
            self.param,
            tuple(self.fx),
            tuple(self.conditions),
            tuple(n.identity() for n in self.nested),
            self.created,
            self.arg,
            self.goal,
            self.target if self.type == "deletion" else None,
        )


@dataclass(frozen=True, eq=False)
class Grounding:
    """An action schema with objects bound to its parameters.

    Attributes:
        action: The action definition.
        args: The bound objects, in ``action.params`` order.
        binding: Placeholder name -> object name.
        precons: Grounded preconditions, in order.
        text: The action's language description with the objects substituted.
        robot: The object bound to the first player-typed parameter (``None`` if there is none,
            e.g. ``wait``): the robot the action belongs to.
    """

    action: ActionDef
    args: tuple[str, ...]
    binding: dict[str, str]
    precons: tuple[GroundLiteral, ...]
    text: str
    robot: str | None


@dataclass
class _State:
    objects: list[tuple[str, str]]
    true: set[GroundAtom]
    effects: list[EffectInstance] = field(default_factory=list)


class ReferenceEnv:
    """The reference interpreter: a whole episode of one problem.

    Attributes:
        domain: The domain.
        problem: The problem (initial state and goal).
        mode: ``centralized``, ``turn_based`` or ``simultaneous`` (decision D3); may be changed
            between steps (the trace replays switch to ``simultaneous`` for joint steps).
        skip_quirk: Reproduce the original's end-of-step skip (reference §1.9) instead of D1.
        current_player: The robot whose turn it is (rotates after every step that does not
            reach the goal).
    """

    def __init__(
        self,
        domain: Domain,
        problem: Problem,
        *,
        mode: str = "centralized",
        skip_quirk: bool = False,
    ) -> None:
        """Creates the environment in its initial state.

        Args:
            domain: The domain.
            problem: The problem, loaded against ``domain``.
            mode: ``centralized``, ``turn_based`` or ``simultaneous`` (decision D3).
            skip_quirk: If true, the end-of-step pass skips the effect after a removed one, as
                the original does (reference §1.9); if false, every effect ticks every step (D1).
        """
        self.domain = domain
        self.problem = problem
        self.mode = mode
        self.skip_quirk = skip_quirk
        self._players: tuple[str, ...] = tuple(problem.players)
        self._grounding_cache: dict[tuple[tuple[str, str], ...], list[Grounding]] = {}
        self._state = _State(objects=[], true=set())
        self.current_player = self._players[0]
        self.reset()

    # -- mode --------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """The stepping mode; may be changed between steps."""
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"unknown mode {value!r} (one of {list(MODES)})")
        self._mode = value

    # -- state access ------------------------------------------------------------------------

    def reset(self) -> str:
        """Restores the initial state and returns its observation text."""
        self._state = _State(
            objects=[(o.name, o.type) for o in self.problem.objects],
            true=set(self.problem.initial_true),
        )
        self.current_player = self._players[0]
        return self.observation()

    def objects(self) -> list[tuple[str, str]]:
        """The existing objects ``(name, type)`` in object order."""
        return list(self._state.objects)

    def _exists(self, arg: Arg) -> bool:
        return isinstance(arg, str) and any(name == arg for name, _ in self._state.objects)

    def _is_true(self, atom: GroundAtom) -> bool:
        # Only atoms over existing objects are ever in the set, so an atom over a missing object
        # (or a placeholder) reads as false.
        return atom in self._state.true

    def _set(self, atom: GroundAtom, value: bool) -> None:
        if not all(self._exists(a) for a in atom[1]):
            return  # a literal over a non-existent object is a no-op
        if len(set(atom[1])) < len(atom[1]):
            # The original's predicate table has no tuple that repeats an object (reference
            # §2.6), so such a literal names no predicate: a no-op. (Reachable only when an
            # object is deleted and one of the same name is created within one update.)
            return
        if value:
            self._state.true.add(atom)
        else:
            self._state.true.discard(atom)

    def _apply(self, fx: list[GroundLiteral]) -> None:
        for atom, value in fx:
            self._set(atom, value)

    def _true_in_table_order(self) -> list[GroundAtom]:
        """The true atoms in predicate-table order (reference §2.6).

        That is predicate-definition order, then argument tuples in object-product order (objects
        in current object order).
        """
        index = {name: i for i, (name, _) in enumerate(self._state.objects)}

        def key(atom: GroundAtom) -> tuple[int, tuple[int, ...]]:
            pred, args = atom
            return self.domain.predicate_index[pred], tuple(index[_arg_name(a)] for a in args)

        return sorted(self._state.true, key=key)

    def true_predicates(self) -> list[str]:
        """The true atoms as ``name(a,b)`` strings, in predicate-table order."""
        return [atom_text(a) for a in self._true_in_table_order()]

    # -- groundings and valid actions --------------------------------------------------------

    def _groundings(self) -> list[Grounding]:
        """Every grounding over the current objects, in canonical order (decision D4)."""
        key = tuple(self._state.objects)
        if key not in self._grounding_cache:
            self._grounding_cache[key] = self._build_groundings(key)
        return self._grounding_cache[key]

    def _build_groundings(self, objects: tuple[tuple[str, str], ...]) -> list[Grounding]:
        out: list[Grounding] = []
        for action in self.domain.actions:
            pools = [
                [name for name, t in objects if t == action.param_types[p]] for p in action.params
            ]
            # Leftmost parameter slowest; tuples that repeat an object are skipped.
            for combo in itertools.product(*pools):
                if len(set(combo)) != len(combo):
                    continue
                binding = dict(zip(action.params, combo, strict=True))
                players = [
                    binding[p] for p in action.params if action.param_types[p] == PLAYER_TYPE
                ]
                text = _fill(action.language_description, binding)
                out.append(
                    Grounding(
                        action=action,
                        args=tuple(combo),
                        binding=binding,
                        precons=tuple(_ground(lit, dict(binding)) for lit in action.precons),
                        text=text,
                        robot=players[0] if players else None,
                    )
                )
        return out

    def _unmet(self, g: Grounding) -> GroundLiteral | None:
        """The first precondition of ``g`` that does not hold, or ``None`` if ``g`` is valid."""
        for atom, want in g.precons:
            if self._is_true(atom) != want:
                return atom, want
        return None

    def _robot_filter(self, robot: str | None) -> str | None:
        if robot is None and self.mode == "turn_based":
            return self.current_player
        return robot

    def valid_groundings(self, robot: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
        """Valid actions as ``(action name, objects in action.params order)``.

        Args:
            robot: Only this robot's actions (plus those of no robot, like ``wait``). ``None``
                means every robot's, except in ``turn_based`` mode: the current robot's.

        Returns:
            The valid groundings in canonical order.
        """
        return [(g.action.name, g.args) for g in self._valid(self._robot_filter(robot))]

    def valid_actions(self, robot: str | None = None) -> list[str]:
        """The texts of the valid actions, in canonical order (see :meth:`valid_groundings`)."""
        return [g.text for g in self._valid(self._robot_filter(robot))]

    def _valid(self, robot: str | None) -> list[Grounding]:
        return [g for g in self._groundings() if _belongs(g, robot) and self._unmet(g) is None]

    # -- stepping ----------------------------------------------------------------------------

    def step(self, action: str | Sequence[str | None]) -> tuple[str, bool, dict[str, Any]]:
        """Performs one step.

        Args:
            action: In ``centralized`` and ``turn_based`` mode, the text of one valid action
                (of any robot, resp. of the current robot). In ``simultaneous`` mode, a list
                with one entry per robot in robot order, ``None`` for no action.

        Returns:
            ``(observation, goal_reached, info)``; ``info["skipped"]`` lists the actions of a
            simultaneous step that had become invalid by the time their turn came (no-ops).

        Raises:
            InvalidActionError: An action is not valid (state unchanged).
        """
        if self.mode == "simultaneous":
            if isinstance(action, str):
                raise InvalidActionError(
                    action, "simultaneous mode takes a list with one entry per robot"
                )
            return self._step_simultaneous(list(action))
        if not isinstance(action, str):
            raise InvalidActionError(action, f"{self.mode} mode takes one action text")
        if self.mode == "turn_based":
            g = self._resolve(action, self.current_player, f"it is {self.current_player}'s turn")
        else:
            g = self._resolve(action, None, "")
        self._perform(g)
        return self._finish_step([])

    def _step_simultaneous(self, actions: list[str | None]) -> tuple[str, bool, dict[str, Any]]:
        if len(actions) != len(self._players):
            raise InvalidActionError(
                actions,
                f"expected {len(self._players)} entries (one per robot), got {len(actions)}",
            )
        # Every entry must be valid for its robot at the start of the step.
        chosen: list[Grounding | None] = []
        for robot, text in zip(self._players, actions, strict=True):
            if text is None:
                chosen.append(None)
            else:
                chosen.append(self._resolve(text, robot, f"it is not an action of {robot}"))
        skipped: list[str] = []
        for text, g in zip(actions, chosen, strict=True):
            if g is None:
                continue
            # An earlier robot's action may have deleted one of g's objects: g is then no
            # grounding of the current state at all.
            if all(self._exists(a) for a in g.args) and self._unmet(g) is None:
                self._perform(g)
            else:
                assert text is not None
                skipped.append(text)
        return self._finish_step(skipped)

    def _resolve(self, text: str, robot: str | None, not_mine: str) -> Grounding:
        """The first valid grounding with this text that belongs to ``robot``."""
        wanted = text.strip()
        matches = [g for g in self._groundings() if g.text == wanted]
        if not matches:
            raise InvalidActionError(text, "no action has this text")
        mine = [g for g in matches if _belongs(g, robot)]
        if not mine:
            raise InvalidActionError(text, not_mine)
        for g in mine:
            if self._unmet(g) is None:
                return g
        unmet = self._unmet(mine[0])
        assert unmet is not None
        atom, want = unmet
        if want:
            reason = f"precondition {atom_text(atom)} is false"
        else:
            reason = f"precondition not {atom_text(atom)} is false ({atom_text(atom)} is true)"
        raise InvalidActionError(text, reason)

    def _finish_step(self, skipped: list[str]) -> tuple[str, bool, dict[str, Any]]:
        self._end_of_step()
        reached = self.goal_reached()
        if not reached:
            i = self._players.index(self.current_player)
            self.current_player = self._players[(i + 1) % len(self._players)]
        return self.observation(), reached, {"skipped": skipped}

    def _perform(self, g: Grounding) -> None:
        """Applies a valid grounding (reference §4.2)."""
        for lit in g.action.immediate_fx:
            atom, value = _ground(lit, dict(g.binding))
            self._set(atom, value)
        for d in g.action.sfx:
            new = self._instantiate(d, dict(g.binding), g.binding[d.param])
            same = [e for e in self._state.effects if e.identity() == new.identity()]
            if not same:
                self._state.effects.append(new)
                same = [new]
            self._update(same[0], active=True)

    def _end_of_step(self) -> None:
        """The passive pass over the active effects (decision D1 / reference §1.9)."""
        effects = self._state.effects
        if self.skip_quirk:
            i = 0
            while i < len(effects):
                e = effects[i]
                self._update(e, active=False)
                if e.completed:
                    del effects[i]  # the next effect moves to index i ...
                i += 1  # ... and is skipped this step
        else:
            for e in list(effects):
                self._update(e, active=False)
            self._state.effects = [e for e in effects if not e.completed]

    # -- special effects ---------------------------------------------------------------------

    def _instantiate(
        self, d: SpecialEffectDef, binding: dict[str, Arg], arg: str
    ) -> EffectInstance:
        binding = dict(binding)
        if d.created is not None:
            c = d.created
            binding[c.param] = Placeholder(c.param, c.name, c.type)
        n = self._duration(d, binding)
        goal = {"delayed": n + 1, "repetitive": n}.get(d.type, 0)
        return EffectInstance(
            type=d.type,
            param=d.param,
            arg=arg,
            fx=[_ground(lit, binding) for lit in d.fx],
            conditions=[_ground(lit, binding) for lit in d.conditions],
            nested=[self._instantiate(s, binding, arg) for s in d.sfx],
            created=d.created,
            target=binding[d.param],
            goal=goal,
        )

    def _duration(self, d: SpecialEffectDef, binding: dict[str, Arg]) -> int:
        """N of decision D2: from the effect's duration, the problem's config, or 3."""
        if d.duration is None:
            return DEFAULT_DURATION
        if d.duration.value is not None:
            return d.duration.value
        entry = self.problem.config.get(d.duration.config_key or "")
        obj = binding[d.param]
        base = obj.name if isinstance(obj, Placeholder) else base_name(obj)
        if isinstance(entry, dict):
            entry = entry.get(base, entry.get("default", DEFAULT_DURATION))
        if entry is None:
            return DEFAULT_DURATION
        if isinstance(entry, bool) or not isinstance(entry, int):
            raise ValueError(
                f"config[{d.duration.config_key!r}] for {base!r} must be an integer, got {entry!r}"
            )
        return entry

    def _update(self, e: EffectInstance, active: bool) -> None:
        """``update(state, active)`` of reference §1.7."""
        if e.completed:
            return
        if e.type == "delayed":
            if active:
                return
            e.counter += 1
            if e.counter >= e.goal:
                self._apply(e.fx)
                for n in e.nested:
                    self._update(n, active=False)
                e.completed = True
        elif e.type == "repetitive":
            if not active:
                return
            e.counter += 1
            if e.counter >= e.goal:
                self._apply(e.fx)
                for n in e.nested:
                    self._update(n, active=True)
                e.completed = True
        elif e.type == "conditional":
            for atom, want in e.conditions:
                if self._is_true(atom) != want:
                    # Negate the effects; nested effects are not updated (their timers pause).
                    for fx_atom, value in e.fx:
                        self._set(fx_atom, not value)
                    return
            self._apply(e.fx)
            for n in e.nested:
                self._update(n, active)
            if all(n.completed for n in e.nested):
                e.completed = True
        elif e.type == "creation":
            assert e.created is not None
            c = e.created
            new_name = self._create_object(c)
            # The instance keeps its placeholder: every update creates a new object and applies
            # the effects to that object (and the instance's identity never changes).
            self._apply(_substitute(e.fx, Placeholder(c.param, c.name, c.type), new_name))
            for n in e.nested:
                self._update(n, active)
            if all(n.completed for n in e.nested):
                e.completed = True
        elif e.type == "deletion":
            if isinstance(e.target, str):
                self._delete_object(e.target)
            self._apply(e.fx)
            for n in e.nested:
                self._update(n, active)
            e.completed = True
        else:
            raise ValueError(f"unknown special effect type {e.type!r}")

    def _create_object(self, c: CreatedObject) -> str:
        """Appends a new object named base + (1 + max numeric suffix of that base) (§1.8)."""
        suffixes = [
            int(name[len(c.name) :])
            for name, _ in self._state.objects
            if base_name(name) == c.name and name[len(c.name) :].isdigit()
        ]
        new_name = f"{c.name}{max(suffixes, default=0) + 1}"
        self._state.objects.append((new_name, c.type))
        return new_name

    def _delete_object(self, name: str) -> None:
        """Removes an object and every atom that mentions it."""
        self._state.objects = [o for o in self._state.objects if o[0] != name]
        self._state.true = {a for a in self._state.true if name not in a[1]}

    def special_effects(self) -> list[dict[str, Any]]:
        """Debug view of the active effects, in list order, in the recorded traces' format.

        Each entry has ``type``, ``param``, ``arg``, ``completed``; ``time: [counter, goal]``
        (delayed), ``reps: [counter, goal]`` (repetitive), ``conditions`` (conditional),
        ``created: [param, name, type]`` (creation); ``effects`` as ``[atom text, value]``; and
        ``nested`` when there are nested effects.
        """
        return [_describe(e) for e in self._state.effects]

    # -- goal and observation ----------------------------------------------------------------

    def goal_reached(self) -> bool:
        """Whether the goal holds in the current state (decision D5).

        The goal holds iff some assignment of candidates to the goal variables, pairwise
        distinct within each variable group, makes every goal atom true. Atoms over objects that
        do not exist, or whose objects have the wrong types for the predicate, are never in the
        set of true atoms, so they are false.
        """
        goal = self.problem.goal
        variables = goal.variables
        # An atom is checked as soon as every variable it uses has a value.
        check_after: list[list[Any]] = [[] for _ in range(len(variables) + 1)]
        for atom in goal.atoms:
            uses = [a + 1 for a in atom.args if isinstance(a, int)]
            check_after[max(uses, default=0)].append(atom)
        values: list[str] = []

        def atoms_hold(k: int) -> bool:
            for atom in check_after[k]:
                args = tuple(values[a] if isinstance(a, int) else a for a in atom.args)
                if not self._is_true((atom.predicate, args)):
                    return False
            return True

        def search(k: int) -> bool:
            if not atoms_hold(k):
                return False
            if k == len(variables):
                return True
            var = variables[k]
            taken = {values[j] for j in range(k) if variables[j].group == var.group}
            for candidate in var.candidates:
                if candidate in taken:
                    continue
                values.append(candidate)
                if search(k + 1):
                    return True
                values.pop()
            return False

        return search(0)

    def observation(self) -> str:
        """The observation text, byte-exact (reference §6.1, §6.2)."""
        ordered = self._true_in_table_order()
        blocks = []
        for name, obj_type in self._state.objects:
            lines = []
            for pred, args in ordered:
                if name not in args:
                    continue
                pos = args.index(name)  # the first position holding the object
                template = self.domain.predicate(pred).descriptors.get(pos)
                if template is None:
                    raise ValueError(f"predicate {pred!r} has no language descriptor for {pos}")
                lines.append(_fill(template, {str(k): _arg_name(a) for k, a in enumerate(args)}))
            # "<Type> <name>:\n" + "\n".join(lines): an object without true predicates keeps
            # the newline after its header.
            blocks.append(f"{obj_type[:1].upper()}{obj_type[1:]} {name}:\n" + "\n".join(lines))
        return (
            "\n\n".join(blocks)
            + "\n\nValid Actions:\n"
            + "\n".join(self.valid_actions())
            + "\n\nGoal: "
            + self.problem.goal_description
        )


def _fill(template: str, values: dict[str, str]) -> str:
    """Replaces every ``{name}`` in a template by ``values[name]``."""
    return _TEMPLATE_FIELD.sub(lambda m: values[m.group(1)], template)


def _belongs(g: Grounding, robot: str | None) -> bool:
    """Whether ``g`` is an action of ``robot`` (every action belongs to ``None``)."""
    return robot is None or g.robot is None or g.robot == robot


def _substitute(
    literals: list[GroundLiteral], placeholder: Placeholder, name: str
) -> list[GroundLiteral]:
    """The literals with a creation placeholder replaced by the created object.

    Only a creation's own effects can mention its placeholder (the domain loader rejects it
    elsewhere), so nested effects never need the substitution.
    """
    return [
        ((pred, tuple(name if a == placeholder else a for a in args)), value)
        for (pred, args), value in literals
    ]


def _describe(e: EffectInstance) -> dict[str, Any]:
    out: dict[str, Any] = {"type": e.type, "param": e.param, "arg": e.arg, "completed": e.completed}
    if e.type == "delayed":
        out["time"] = [e.counter, e.goal]
    elif e.type == "repetitive":
        out["reps"] = [e.counter, e.goal]
    elif e.type == "conditional":
        out["conditions"] = [[atom_text(a), v] for a, v in e.conditions]
    elif e.type == "creation":
        assert e.created is not None
        out["created"] = [e.created.param, e.created.name, e.created.type]
    out["effects"] = [[atom_text(a), v] for a, v in e.fx]
    if e.nested:
        out["nested"] = [_describe(n) for n in e.nested]
    return out

"""Per-object projections with a cost partition: an admissible bound that counts carries.

The delete relaxation behind LM-cut lets a robot stand at every station at once and carry
everything together, so it misses most of the cost of a kitchen task: every item that changes
place is picked up, carried (a move while holding it) and put down, one at a time. This bound
keeps exactly that: for each *projection object* ``o`` it solves, exactly, the task projected
onto ``o``'s facts and the robots' positions, and it sums the results.

Projection objects are the non-robot objects that can be the subject (first argument) of a goal
atom and that always exist, and the *creators* of goal subjects that do not: a pot, whose filling
creates the water that the goal wants boiled and in a bowl. For each, ``P_o`` holds the mutable
facts about ``o`` whose other arguments are robots or non-projection objects (e.g.
``item_at(o, table3)``, ``iscut(o)``, ``has_item(robot1, o)``), the robots' position facts (a
robot with a non-projection object, e.g. ``loc(robot1, table3)``) when ``o`` can be held, and
every fact that the special effects writing ``P_o`` read or write (so their timers and conditions
behave exactly), except status facts such as ``iscooking(o)`` that only keep an action from
repeating (:func:`_status_facts`). A creator's ``P_o`` also holds the facts about the goal
subjects it creates, whether they exist, and what the actions changing them change besides (the
bowl's emptiness).
Facts about created objects that the goal never names (a second water) are left out. The
projected task checks only preconditions in ``P_o``, so every real plan maps to a projected plan.

Costs are partitioned so that the sum stays admissible: every grounding is charged to at most
one projection object, the one it holds (a fact relating the acting robot and ``o`` in its
preconditions or effects: pick, place, stack, add-to), else the first projection object whose
facts it changes (cut, cook), else the creator of the created goal subjects whose facts it
changes (boil the water). A grounding charged to nobody that moves a robot (changes a fact of
a robot and no projection object's fact) costs 1 in the projection of the object that robot
holds, if any. That needs: a robot holds at most one projection object at a time. This module
proves it (an invariant over a "free hand" fact such as ``nothing(robot1)``) or else charges
moves to nobody. So in every real step the charges sum to at most 1, every projected plan costs
at most the real plan, and the sum of the projections' optimal costs never overestimates.

Arrivals: the partition charges an empty-handed move to nobody, yet every pick-up of an item
by a robot that has moved since it last put that item down comes right after one
(``projection.h`` gives the argument). A projection then also counts those arrivals, each once,
in the pick that follows, with one history bit per robot. The argument rests on the shapes of
the actions that free a robot's hand and that pick an item up; ``_arrival_shapes`` checks them
on the domain, and without them no arrival is counted. The same holds for a container, a bowl
say; a robot may also free its hand at a pot's station by adding an ingredient to it, and then
pick the pot up without an empty-handed arrival, so such a step clears the robot's bit too.

Hand-overs: an ingredient added to a pot was carried there, since the pot could not stand
where the ingredient was picked up, nor come there while the robot holding the ingredient stands
there (only a robot standing at a station can put a container there, and with several robots
no other robot can stand where it stands). Its projection charges that move too, with one more
history bit per robot ("picked up here, not moved since"); ``_hand_over_shapes`` checks the
domain's actions for it. The pot poured into the bowl was carried to it the same way: no
container stood where the pot was picked up (where each station provably holds one container at
a time), and none could come there while the robot held the pot, so the pot's projection
charges that move too.

Idling: a projection waits for free, so the chicken's lets the robot stand beside the stove
until the chicken is cooked at no cost, while a real robot either waits there (a step that no
projection pays for) or leaves and comes back (an arrival, which the chicken's pick pays for).
With one robot, where the robot stands empty-handed at the station of ``o``, ``o`` being the
clear top item there (or the container there), every step it can take is a move, an action on
``o`` (both seen by ``o``'s projection), or one that no projection is charged for (waiting):
any other needs a full hand or something at that station that ``o`` rules out
(:func:`_idling` and ``idle_tables`` check every grounding). So a wait in that situation is a
real step charged to nobody, and ``o``'s projection, the only one in that situation (a station
has one top), may charge it. A history bit tracks the situation (``projection.h``).

Lifts: a top bun that starts clear on its stack looks done to its own projection, though the
patty must still go under it. Whenever a goal object that must join it at the table (a
companion) is not there yet, the top must first wait somewhere else while a robot that does not
hold it stands at the table (the one bringing the companion). The same holds for every goal
object at a table whose bottom item (the bottom bun) is not there yet: everything must leave
the table before the bottom is put down. Such a role's distance then runs through a state like
that (``projection.h`` gives the arguments; :func:`_lift_shapes` and :func:`_stack_shapes`
check the stack shapes they rest on).

Clearing: the lettuce's projection cuts it on a board that a stack of cheese and tomato still
covers, since which items lie there is no fact of the lettuce. Where every board is covered
so, and the goal needs something cut that is not cut yet, some board must be cleared first:
each item on it that no goal names is picked off it (charged to nobody), after an
empty-handed arrival (one of them may be saved by a robot standing there). The bound adds the
cheapest such clearing (``projection.h`` gives the argument; :func:`_clearing` finds the
goal atoms that need a station to themselves, and which of its items count).

Creators: where two pots can each make the waters of two soups, each pot's row sees the other
pot fill and pour for free (the other pot is charged, and its place is not in the row), so both
rows count almost nothing. A creator of such a group (:func:`_creator_groups`) then has a row
per nonempty subset of the made objects, without the other creators' facts, templates and
groundings, in which the other creators' creations only make pool objects appear; the bound
takes the least sum over the ways to give each made object to one creator
(``projection.h`` gives the argument).

Invariants: a projection checks only the preconditions inside its facts, so it also reaches
abstract states that no real state maps to (a bun with several items on it). Fact sets of which
no reachable state has two true (:func:`object_invariants`) let construction drop those states;
the bound stays admissible and the projections get smaller. Within one
invariant, the facts that differ only in which unprojected item of the object's type they name
(``atop(x, bun)`` for a dozen distractors x) share one bit, "some such item": ``projection.h``
says when that stays exact enough to never overestimate.

Shared rows: interchangeable objects (two lettuces the goal treats alike) have projections that
are one graph under a swap of the two. Where the swap maps the task onto itself and one row
onto the other (:func:`_shared_rows` checks every table of the row), the later row lists its
facts as the images of the earlier row's and reads that row's tables instead of building its
own (``projection.h`` gives the argument): the bound is the same, built once.

Robot swap: where swapping two robots maps the task onto itself and a row onto itself
(:func:`_robot_swaps`), a state and its image under the swap have the same distance in that
row, so the row keeps one of each pair (a row with both robots' positions has about half the
states).

Away robots: in a row with the robots' positions, where a robot stands matters only while it
holds the object or stands where it could pick it up; elsewhere it moves anywhere for free.
Where the row's groundings show that (``away_robots`` in :func:`find_projections`), the row
keeps one place for a robot away from the object: with two robots in a large kitchen, about
fifty times fewer states, and the same distances (``projection.h`` gives the argument).

The C++ side (``cpp/include/robotouille/projection.h``) enumerates each projection from the
search's start state and computes its goal distances.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np
import numpy.typing as npt

from .compile import CompiledTask
from .domain import ActionDef, Domain, Literal
from .invariants import mutex_groups_by_object, union
from .problem import Goal, GoalAtom
from .symmetry import closed_groups, object_swap, task_symmetries

IntArray = npt.NDArray[np.int64]

MAX_FACTS = 192
"""A projection keeps at most this many facts (three machine words); larger ones are dropped."""


@dataclass(frozen=True)
class ProjectionTables:
    """Flat tables for ``_core.search`` (see the module docstring).

    Attributes:
        objects: The projection objects of the rows, in order (an object has two rows when it
            has a fallback).
        fact_begin: CSR offsets of ``facts``, one row per projection.
        facts: Each projection's facts ``P_o``.
        template_begin: CSR offsets of ``templates``.
        templates: Each projection's special-effect templates (the ones about ``o``).
        grounding_begin: CSR offsets of ``groundings`` and ``costs``.
        groundings: Each projection's relevant groundings (those that change a fact of
            ``P_o`` or start one of its templates).
        costs: Per relevant grounding: 1 if charged to ``o``, 2 if it moves a robot that
            costs 1 while that robot holds ``o``, else 0.
        hold_begin: CSR offsets of ``hold_facts``.
        hold_facts: Per projection: the facts meaning "robot r holds o", as (robot, fact).
        key_vars: Goal variables that several projections' atoms share (e.g. the table a
            burger stands on), fixed jointly: the bound is the least sum over their values.
        fallback: Per row, 1 when it is the coarser variant of the object of the row before
            (without the robots' positions). It is built first; the row before replaces it
            when its predicted size fits the caps (``ProjectionLimits`` in ``projection.h``).
        arrivals: Per relevant grounding: 1 if it moves its robot, plus 2 if the robot puts
            ``o`` down, plus 4 if it picks ``o`` up from a station (see "Arrivals"), plus 8 if
            it puts ``o`` into a container at the robot's station, or needs one there while
            ``o`` stays in the robot's hand, a hand-over (see "Hand-overs" in projection.h),
            plus 16 (:data:`ARRIVAL_FREED`) if it frees the robot's hand at the station of
            ``o``, a container, plus 32 (:data:`ARRIVAL_STAYS`) if it is a hand-over that keeps
            ``o``, a container, where the robot cannot put it down; plus :data:`ARRIVAL_SLOT`
            times the robot's slot (its place among the robots).
        colocated_begin: CSR offsets of ``colocated`` (in triples), one row per projection.
        colocated: Per projection, (robot slot, robot position fact, fact of ``o`` at that
            station) triples: where the robot could pick ``o`` up without moving.
        lifts: Entries one after another (see "Lifts"): a lifted role's goal variable, its goal
            atom "at K", the number of companion atoms, and those atoms.
        lift_stacks: Where the lifts apply and every station holds one stack (see "Buried
            objects" under "Lifts"), triples (the fact "upper atop lower", upper, lower) of every
            two items; empty otherwise.
        clearing: Entries one after another (see "Clearing" and :func:`_clearing`): the
            stations some goal atom needs cleared, the items on them that nobody's row picks,
            and the requirements; empty: none.
        merge_begin: CSR offsets of ``merges`` (in pairs), one row per projection.
        merges: Per projection, (fact, representative) pairs: the fact shares its
            representative's bit, which holds their disjunction (see "Invariants").
        mutex_begin: CSR offsets of ``mutex_facts``, one row per invariant.
        mutex_facts: Fact sets of which no reachable state has two true (see "Invariants").
        share: Per row, an earlier row whose tables it may reuse, or -1 (see "Shared rows"):
            swapping the two rows' objects is an automorphism of the task that maps the
            earlier row onto this one, fact by fact in order.
        share_template_begin: CSR offsets of ``share_templates`` (in pairs), one row per
            projection.
        share_templates: Per sharing row, (its template, the shared row's template) pairs.
        robot_swap_fact_begin: CSR offsets of ``robot_swap_facts`` (in pairs), one row per
            projection.
        robot_swap_facts: Per row that swapping the first two robots maps onto itself (see
            "Robot swap"), (fact, image) pairs of the facts the swap moves; empty for the
            other rows.
        robot_swap_template_begin: CSR offsets of ``robot_swap_templates`` (in pairs).
        robot_swap_templates: Per such row, (template, image) pairs of the templates it moves.
        robot_swap_slots: The two swapped robots' slots, or empty when the swap is no
            automorphism of the task.
        hand_over_places: Where hand-overs apply, triples (a robot's slot, its position
            fact, a container's fact at that station) of every robot, station and container
            a hand-over grounding needs; empty otherwise.
        idle_begin: CSR offsets of ``idle`` (in quadruples), one row per projection.
        idle: Per projection where idling applies (see "Idling"), quadruples (the robot's
            position fact, ``o``'s fact at that station, the fact that makes ``o`` the top
            there, the robot's free-hand fact); empty otherwise.
        idle_codes: Per relevant grounding where idling applies (else empty):
            :data:`IDLE_SETS` if after it the robot stands empty-handed where ``o`` is the
            top, plus :data:`IDLE_BLOCKED` if it cannot apply while the robot idles at ``o``
            (it needs a full hand, or something at the station that ``o`` rules out).
        idle_group_begin: CSR offsets of ``idle_groups``.
        idle_groups: Where idling applies, the fact sets of which idling needs exactly one true
            (the robot's positions), proven for the states reachable from the task's start;
            the planner checks them on a restored state.
        hand_group_begin: CSR offsets of ``hand_groups``.
        hand_groups: Per robot with a proven hand (see :func:`_hands`), its hand's facts, of
            which every state reachable from the task's start has exactly one true: the move
            charges, arrivals and idling rest on it, and the planner checks it on a restored
            state.
        free_hands: Where arrivals apply, per robot slot, the robot's free-hand fact (-1 where
            some pick of that robot does not need it): a robot that stands at an object with
            its hand full has its arrival there still to pay ("Arrivals" in projection.h);
            empty otherwise.
        clear_facts: Per row, the fact that its object is clear where the row has arrivals and
            its object is an item (every pick needs it clear), else -1: a robot standing at
            the item while it is covered has its arrival there still to pay.
        away_begin: CSR offsets of ``away``, one row per projection.
        away: Per row with the robots' positions where some robot qualifies (see "Away
            robots"), the mask of the slots of the robots it places anywhere while they are
            away, then (robot slot, position fact, station) triples of every robot's
            positions; empty for the other rows.
        forbid_begin: CSR offsets of ``forbid``, one row per projection (empty: no creator
            variants).
        forbid: Per row, the facts its states keep false: for a creator's variant (see
            "Creators" in projection.h), those that put one of its made objects in another
            creator.
        variants: Per row (empty: none), its (creator group, creator slot, mask of made
            objects) triple, or (-1, -1, 0) for a row that is no creator variant.
        appear_begin: CSR offsets of ``appear`` (empty: no creator variants).
        appear: Per row, the existence facts that another creator's creation may make true (a
            step of the row's own, at no cost).
    """

    objects: list[int]
    fact_begin: IntArray
    facts: IntArray
    template_begin: IntArray
    templates: IntArray
    grounding_begin: IntArray
    groundings: IntArray
    costs: IntArray
    hold_begin: IntArray
    hold_facts: IntArray
    key_vars: list[int]
    fallback: IntArray
    arrivals: IntArray
    colocated_begin: IntArray
    colocated: IntArray
    lifts: list[int]
    lift_stacks: list[int]
    clearing: list[int]
    merge_begin: IntArray
    merges: IntArray
    mutex_begin: IntArray
    mutex_facts: IntArray
    share: IntArray
    share_template_begin: IntArray
    share_templates: IntArray
    robot_swap_fact_begin: IntArray
    robot_swap_facts: IntArray
    robot_swap_template_begin: IntArray
    robot_swap_templates: IntArray
    robot_swap_slots: IntArray
    hand_over_places: IntArray
    idle_begin: IntArray
    idle: IntArray
    idle_codes: IntArray
    idle_group_begin: IntArray
    idle_groups: IntArray
    hand_group_begin: IntArray
    hand_groups: IntArray
    free_hands: IntArray
    clear_facts: IntArray
    away_begin: IntArray
    away: IntArray
    forbid_begin: IntArray
    forbid: IntArray
    variants: IntArray
    appear_begin: IntArray
    appear: IntArray


MAX_KEY_COMBINATIONS = 512
"""Key variables are added (most shared first) while their value combinations stay below this."""


def _key_variables(task: CompiledTask) -> list[int]:
    """Goal variables that appear, not as the subject, in atoms about different subjects."""
    subjects: dict[int, set[tuple[int, int]]] = {}
    for _, args in task.goal_atoms:
        if not args:
            continue
        subject = (args[0][0], args[0][1])
        for is_var, value, _, _ in args[1:]:
            if is_var:
                subjects.setdefault(value, set()).add(subject)
    shared = sorted(
        (v for v, s in subjects.items() if len(s) >= 2 and task.goal_candidates[v]),
        key=lambda v: (-len(subjects[v]), v),
    )
    keys: list[int] = []
    combos = 1
    for v in shared:
        if combos * len(task.goal_candidates[v]) <= MAX_KEY_COMBINATIONS:
            keys.append(v)
            combos *= len(task.goal_candidates[v])
    return keys


def _pool(task: CompiledTask, group: int) -> list[int]:
    """The objects a creation of that creation group may make (-1: of any group)."""
    return task.group_slots[group] if group >= 0 else [o for g in task.group_slots for o in g]


@dataclass(frozen=True)
class TemplateFootprint:
    """The facts and objects one special-effect template touches.

    Attributes:
        facts: The facts its nodes' literals name (about objects that exist from the start).
        writes: All it may write: its effect literals (about a created object: that fact of
            every object of the pool), the existence facts of the pool it creates from, and
            every fact of an object it deletes.
        needs: The further facts it reads: the existence facts of the pool it creates from
            (which pick the next object) and of its literals' objects.
        reads: Its condition literals' facts, and ``needs``.
        creates: The objects it may create.
        deletes: Whether it deletes an object.
    """

    facts: set[int]
    writes: set[int]
    needs: set[int]
    reads: set[int]
    creates: set[int]
    deletes: bool


def template_footprint(task: CompiledTask, t: int) -> TemplateFootprint:
    """What template ``t`` of the task touches (see :class:`TemplateFootprint`)."""
    nodes, lits = task.nodes, task.literals
    facts: set[int] = set()
    writes: set[int] = set()
    needs: set[int] = set()
    reads: set[int] = set()
    creates: set[int] = set()
    deletes = False
    first = task.template_first[t]
    for n in range(first, first + task.template_count[t]):
        cond = nodes.cond_begin[n]
        if nodes.type[n] == 4:  # a deletion clears every fact of the deleted object
            deletes = True
            gone = nodes.delete_object[n]
            writes |= set(np.flatnonzero((task.fact_args == gone).any(axis=1)).tolist())
        pool = _pool(task, nodes.create_group[n])
        if nodes.type[n] == 3:  # a creation takes the pool's first free object
            creates |= set(pool)
            exists = {int(task.exists_fact[o]) for o in pool} - {-1}
            writes |= exists
            needs |= exists
        for i in range(nodes.fx_begin[n], nodes.fx_begin[n + 1]):
            stride = lits.created_stride[i]
            if stride:  # about a created object: any object of the group's pool
                writes |= {lits.fact[i] + stride * int(task.typepos[o]) for o in pool}
                continue
            needs.update(lits.guards[lits.guard_begin[i] : lits.guard_begin[i + 1]])
            facts.add(lits.fact[i])
            (writes if i < cond else reads).add(lits.fact[i])
    return TemplateFootprint(facts, writes, needs, reads | needs, creates, deletes)


class _TaskView:
    """What the projections need from a compiled task, indexed for quick queries."""

    def __init__(self, task: CompiledTask) -> None:
        self.task = task
        self.num_pred = task.num_pred_facts
        self.fact_args = task.fact_args
        self.mutable = task.fact_mutable
        self.robots = {task.object_index[r] for r in task.problem.players}
        self.pre_pos = _rows(task.pre_pos)
        self.pre_neg = _rows(task.pre_neg)
        self.eff = _rows(task.eff_fact)
        self.eff_value = _rows((task.eff_fact[0], task.eff_value[1]))
        self.sfx = _rows(task.sfx_templates)
        self.pre_pos_csr = (
            np.asarray(task.pre_pos[0], np.int64),
            np.asarray(task.pre_pos[1], np.int64),
        )
        self.eff_csr = (
            np.asarray(task.eff_fact[0], np.int64),
            np.asarray(task.eff_fact[1], np.int64),
            np.asarray(task.eff_value[1], np.int64),
        )
        # Per template: see TemplateFootprint.
        footprints = [template_footprint(task, t) for t in range(len(task.template_first))]
        self.template_facts: list[set[int]] = [f.facts for f in footprints]
        self.template_writes: list[set[int]] = [f.writes for f in footprints]
        self.template_needs: list[set[int]] = [f.needs for f in footprints]
        self.template_reads: list[set[int]] = [f.reads for f in footprints]
        self.template_creates: list[set[int]] = [f.creates for f in footprints]
        self.template_deletes: list[bool] = [f.deletes for f in footprints]
        self.mutable_facts: list[int] = np.flatnonzero(self.mutable).tolist()
        self.subjects = _goal_subjects(task)
        self.creators = _creators(task, self, self.subjects)
        # Per fact its objects; per fact the groundings that write it; per template the
        # groundings that start it.
        self._args = [[o for o in row if o >= 0] for row in self.fact_args.tolist()]
        self._predicate_names = [p.name for p in task.domain.predicates]
        self._fact_pred = task.fact_pred.tolist()
        # (By a stable sort of the effects by fact: a grounding that writes a fact twice is
        # listed twice, as a loop over the effects would list it.)
        eff_begin, written = self.eff_csr[0], self.eff_csr[1]
        writer = np.repeat(np.arange(len(eff_begin) - 1), np.diff(eff_begin))
        self.writers = _by_fact(writer, written)
        self.starters: dict[int, list[int]] = {}
        for g, started in enumerate(self.sfx):
            for t in started:
                self.starters.setdefault(t, []).append(g)
        # Per grounding, the value each written fact ends with (the last write wins). The rows
        # read it for thousands of groundings each: built once, not once per row.
        self.final: list[dict[int, int]] = [
            dict(zip(facts, values)) for facts, values in zip(self.eff, self.eff_value)
        ]
        self._named: dict[str, frozenset[int]] = {}
        self._touchers: dict[int, list[int]] | None = None  # per fact, built on first use

    def touches(self, g: int) -> frozenset[int]:
        """The facts grounding ``g`` reads (true or false) or writes."""
        return frozenset((*self.pre_pos[g], *self.pre_neg[g], *self.eff[g]))

    def touching(self, facts: Iterable[int]) -> set[int]:
        """The groundings that read (true or false) or write some of the facts."""
        if self._touchers is None:
            # (A grounding may be listed twice for a fact: the caller takes a set.)
            self._touchers = _by_fact(*touch_pairs(self.task))
        touchers = self._touchers
        return set().union(*(touchers.get(f, ()) for f in facts))

    def args(self, fact: int) -> list[int]:
        return self._args[fact] if fact < self.num_pred else []

    def named(self, fact: int, predicate: str) -> bool:
        """Whether the fact is a predicate fact of that predicate."""
        return fact < self.num_pred and self._predicate_names[self._fact_pred[fact]] == predicate

    def facts_named(self, predicate: str) -> frozenset[int]:
        """The predicate facts of that predicate."""
        found = self._named.get(predicate)
        if found is None:
            found = self._named[predicate] = frozenset(
                f for f in range(self.num_pred) if self.named(f, predicate)
            )
        return found


def _status_facts(task: CompiledTask, view: _TaskView) -> set[int]:
    """Facts that only special effects write and only preconditions read, as false (``iscooking``).

    No immediate effect writes them, no special effect reads them, no precondition needs them
    true and no goal atom names their predicate: they only keep an action from repeating while
    its effect runs. A projection leaves them out: that only drops the preconditions that read
    them (it never overestimates), and the templates that write them no longer conflict over
    them.
    Two cook timers of one item on two stoves each write ``iscooking`` every pass (set while
    the item is on its stove, negated while not), so the list's order decided the fact and every
    order was a state of its own: a chicken's row had 126k states, 12k without the fact.
    """
    goal_predicates = _goal_predicates(task)
    written = set().union(*view.template_writes)
    read = set().union(*view.template_reads, *view.pre_pos)
    return {
        f
        for f in written - read
        if f < task.num_pred_facts
        and f not in view.writers
        and int(task.fact_pred[f]) not in goal_predicates
    }


def _goal_predicates(task: CompiledTask) -> set[int]:
    """The predicates of the goal's atoms."""
    return {int(task.fact_pred[base]) for base, _ in task.goal_atoms if base < task.num_pred_facts}


def _by_fact(grounding: IntArray, fact: IntArray) -> dict[int, list[int]]:
    """Per fact, the groundings of the (grounding, fact) pairs that name it.

    In the pairs' order (a stable sort by fact; facts are not negative).
    """
    by_fact = np.argsort(fact, kind="stable")
    ordered = fact[by_fact]
    starts = np.flatnonzero(np.diff(ordered, prepend=-1))
    groups = np.split(grounding[by_fact], starts[1:])
    return dict(zip(ordered[starts].tolist(), (part.tolist() for part in groups)))


def touch_pairs(task: CompiledTask) -> tuple[IntArray, IntArray]:
    """Every (grounding, fact) pair where the grounding reads (true or false) or writes the fact.

    Returns:
        The pairs' groundings and facts, as two arrays: the precondition pairs, then the negated
        preconditions', then the effects' (a pair may repeat).
    """
    csrs = (task.pre_pos, task.pre_neg, task.eff_fact)
    grounding = np.concatenate(
        [np.repeat(np.arange(len(begin) - 1), np.diff(begin)) for begin, _ in csrs]
    )
    fact = np.concatenate([np.asarray(values, np.int64) for _, values in csrs])
    return grounding, fact


def _rows(csr: tuple[IntArray, IntArray]) -> list[list[int]]:
    begin, values = csr[0].tolist(), csr[1].tolist()  # (list slices: no array per row)
    return [values[begin[i] : begin[i + 1]] for i in range(len(begin) - 1)]


def _goal_subjects(task: CompiledTask) -> set[int]:
    """Every object that can be the subject (first argument) of a goal atom."""
    subjects: set[int] = set()
    for _, args in task.goal_atoms:
        if not args:
            continue
        is_var, value, _, _ = args[0]
        if is_var:
            subjects.update(c for c in task.goal_candidates[value] if c < len(task.objects))
        elif value < len(task.objects):
            subjects.add(value)
    return subjects


def _creators(task: CompiledTask, view: _TaskView, subjects: set[int]) -> dict[int, set[int]]:
    """Objects whose special effects create goal subjects, with those goal subjects.

    E.g. a pot, whose filling creates the water that the goal wants boiled and in a bowl: the
    goal names neither the pot nor, before it exists, the water, yet every move of the pot
    counts. Only objects that always exist and are not robots qualify.
    """
    out: dict[int, set[int]] = {}
    for t, created in enumerate(view.template_creates):
        owner = task.template_param[t]
        if created & subjects and not task.may_vanish[owner] and owner not in view.robots:
            out.setdefault(owner, set()).update(created & subjects)
    return out


MAX_CREATORS = 4
"""Creator variants (:func:`_creator_groups`) apply to at most this many creators per group..."""
MAX_MADE = 2
"""... and this many made goal subjects: a creator has a row per nonempty subset of them."""


@dataclass(frozen=True)
class _CreatorGroup:
    """Creators that can each make the same goal subjects (two pots, two soups' waters)."""

    creators: list[int]
    made: list[int]
    links: dict[tuple[int, int], set[int]]  # (made object, creator): the facts naming both


def _creator_groups(task: CompiledTask, view: _TaskView) -> list[_CreatorGroup]:
    """Groups of creators that share made goal subjects and whose variants are sound.

    A creator of such a group gets one row per nonempty subset W of the made objects, in which
    the facts relating an object of W to another creator (water in the other pot) are
    forbidden ("Creators" in projection.h). That rests on each made object being created at
    most once (no special effect deletes one) and on such a fact becoming true only when
    that creator creates that object: then whoever holds a made object created it. Groups
    over :data:`MAX_CREATORS` creators or :data:`MAX_MADE` made objects are left out.
    """
    makers: dict[int, set[int]] = {}
    for creator, made in view.creators.items():
        for m in made:
            makers.setdefault(m, set()).add(creator)
    shared = {m for m, who in makers.items() if len(who) > 1}
    if not shared:
        return []
    nodes, lits = task.nodes, task.literals
    for t, first in enumerate(task.template_first):
        for n in range(first, first + task.template_count[t]):
            if nodes.type[n] == 4 and nodes.delete_object[n] in shared:
                return []
    groups: list[_CreatorGroup] = []
    done: set[int] = set()
    for m in sorted(shared):
        if m in done:
            continue
        creators, made = set(makers[m]), {m}
        while True:  # close over creators and what they make
            more_made = {x for c in creators for x in view.creators[c]} & shared
            more_creators = {c for x in more_made for c in makers[x]}
            if more_made <= made and more_creators <= creators:
                break
            made |= more_made
            creators |= more_creators
        done |= made
        if len(creators) > MAX_CREATORS or len(made) > MAX_MADE:
            continue
        links = {
            (x, c): {f for f in view.mutable_facts if x in view.args(f) and c in view.args(f)}
            for x in made
            for c in creators
        }
        groups.append(_CreatorGroup(sorted(creators), sorted(made), links))
    if not groups:
        return []
    link_of = {f: key for g in groups for key, facts in g.links.items() for f in facts}
    # Only creation makes a link fact true, and only the creation of its object by its creator.
    for g_eff, values in zip(view.eff, view.eff_value, strict=True):
        if any(value and f in link_of for f, value in zip(g_eff, values, strict=True)):
            return []
    for t, first in enumerate(task.template_first):
        owner = int(task.template_param[t])
        for n in range(first, first + task.template_count[t]):
            for i in range(nodes.fx_begin[n], nodes.cond_begin[n]):
                if not lits.value[i]:
                    continue
                stride = lits.created_stride[i]
                if not stride:
                    if lits.fact[i] in link_of:
                        return []
                    continue
                for o in _pool(task, nodes.create_group[n]):
                    key = link_of.get(lits.fact[i] + stride * int(task.typepos[o]))
                    if key is not None and (nodes.type[n] != 3 or key != (o, owner)):
                        return []
    return groups


@dataclass(frozen=True)
class _Variant:
    """A creator's row for some of its group's made objects (see "Creators" in projection.h)."""

    made: set[int]  # the made objects this creator makes
    others: set[int]  # the group's other creators
    links: dict[tuple[int, int], set[int]]  # the group's (made object, creator) facts
    forbid: set[int]  # the facts putting one of `made` in another creator
    away: set[int]  # the templates that name another creator
    never: set[int]  # the groundings that need a forbidden fact
    late: set[int]  # the existence facts of pool objects after every one of `made` in its pool


def _variant(view: _TaskView, group: _CreatorGroup, creator: int, mask: int) -> _Variant:
    """The variant of ``creator`` for the made objects in ``mask`` (bit k: ``group.made[k]``)."""
    made = {x for k, x in enumerate(group.made) if mask >> k & 1}
    others = set(group.creators) - {creator}
    forbid = {f for x in made for c in others for f in group.links[x, c]}
    task = view.task
    away = {
        t
        for t in range(len(view.template_writes))
        if int(task.template_param[t]) in others
        or any(
            not others.isdisjoint(view.args(f))
            for f in view.template_facts[t] | view.template_needs[t] | view.template_writes[t]
        )
    }
    never = {g for g, needed in enumerate(view.pre_pos) if not forbid.isdisjoint(needed)}
    # A creation takes its pool's first free object, so whether it makes one of `made`, and
    # which, does not depend on the objects after them.
    late: set[int] = set()
    for slots in task.group_slots:
        last = max((k for k, x in enumerate(slots) if x in made), default=-1)
        late |= {int(task.exists_fact[x]) for x in slots[last + 1 :]} - {-1}
    return _Variant(made, others, group.links, forbid, away, never, late)


def _appearing(view: _TaskView, variant: _Variant, facts: set[int]) -> list[int] | None:
    """The existence facts in ``facts`` that the other creators' creations may make true.

    The variant leaves out the templates that name another creator. Under an assignment that
    gives it ``variant.made``, such a template changes ``facts`` only where it creates a pool
    object: one outside ``made`` (its existence fact appears, at no cost: see "Creators" in
    projection.h; its other facts are not kept), or one of ``made``, which would put it in
    another creator (a forbidden fact). A template that no grounding can start without a
    forbidden fact changes nothing. None where some template could change ``facts`` otherwise.
    """
    task = view.task
    nodes, lits = task.nodes, task.literals
    appear: set[int] = set()
    for t in sorted(variant.away):
        written = view.template_writes[t] & facts
        starters = view.starters.get(t, [])
        if not written or (starters and all(g in variant.never for g in starters)):
            continue
        owner = int(task.template_param[t])
        if owner not in variant.others:
            return None
        first = int(task.template_first[t])
        nodes_of_t = range(first, first + int(task.template_count[t]))
        # What it may write: existence facts of pool objects outside `made`, which appear, and
        # the facts of one of `made` that it creates (never, under the assignment).
        allowed: set[int] = set()
        for n in nodes_of_t:
            if nodes.type[n] != 3:
                continue
            for x in _pool(task, nodes.create_group[n]):
                if x not in variant.made:
                    appear.add(int(task.exists_fact[x]))
                    continue
                created = {
                    lits.fact[i] + lits.created_stride[i] * int(task.typepos[x])
                    for m in nodes_of_t
                    for i in range(nodes.fx_begin[m], nodes.cond_begin[m])
                    if lits.created_stride[i]
                }
                # Creating one of `made` must put it in this creator.
                linked = {
                    lits.fact[i] + lits.created_stride[i] * int(task.typepos[x])
                    for i in range(nodes.fx_begin[n], nodes.cond_begin[n])
                    if lits.value[i] and lits.created_stride[i]
                }
                if linked.isdisjoint(variant.links[x, owner]):
                    return None
                allowed |= created | {int(task.exists_fact[x])}
        if not written <= appear | allowed:
            return None
    return sorted(appear & facts)


def _projection_objects(task: CompiledTask, view: _TaskView) -> list[int]:
    """The goal subjects that always exist and are not robots, and their creators."""
    kept = {o for o in view.subjects if not task.may_vanish[o] and o not in view.robots}
    return sorted(kept | set(view.creators))


def _hands(
    view: _TaskView, projected: set[int]
) -> tuple[dict[int, list[tuple[int, int]]], set[int]]:
    """The hold facts per projection object, as (robot, fact), and all facts of proven hands.

    For each robot r, a hand is a fact free(r) about r alone plus the facts about r that
    groundings make true when they use up free(r), or use up when they make it true (e.g.
    nothing(r) with has_item(r, x) and has_container(r, x) for every x). It is kept only when
    it provably has exactly one true fact in every reachable state (_group_invariant): then r
    holds at most one object at a time, which is what charging moves to the held object needs.
    """
    out: dict[int, list[tuple[int, int]]] = {}
    hand_facts: set[int] = set()
    for robot in sorted(view.robots):
        for free in (f for f in view.mutable_facts if view.args(f) == [robot]):
            group = {free}
            for g in view.writers.get(free, []):
                effects = view.final[g]
                # Facts about r that flip the other way in the same grounding.
                flipped = 1 - effects[free]
                for f, v in effects.items():
                    if v == flipped and f not in group and robot in view.args(f):
                        group.add(f)
            if len(group) > 1 and _group_invariant(view, group, view.task.initial_bits):
                hand_facts |= group
                for f in group - {free}:
                    held = [a for a in view.args(f) if a != robot]
                    if len(held) == 1 and held[0] in projected:
                        out.setdefault(held[0], []).append((robot, f))
                break
    return out, hand_facts


def _group_invariant(view: _TaskView, group: set[int], initial: npt.NDArray[np.bool_]) -> bool:
    if sum(bool(initial[f]) for f in group) != 1:
        return False
    if any(view.template_writes[t] & group for t in range(len(view.template_writes))):
        return False
    for g in sorted({g for f in group for g in view.writers.get(f, [])}):
        effects = view.final[g]  # the last write wins
        changed = group.intersection(effects)
        if not changed:
            continue
        added = [f for f in changed if effects[f]]
        deleted = {f for f in changed if not effects[f]}
        required = group.intersection(view.pre_pos[g])
        # One group fact required and deleted, exactly one added (or none touched at all).
        if len(added) != 1 or len(required) != 1 or deleted != required:
            return False
    return True


_ARRIVAL_PREDICATES = frozenset(
    {
        "nothing",
        "loc",
        "has_item",
        "has_container",
        "station_empty",
        "clear",
        "item_at",
        "item_on",
        "container_at",
    }
)


def _only_actions_write(domain: Domain, predicates: frozenset[str]) -> bool:
    """Whether the domain has these predicates and no special effect writes any of them."""
    return {p.name for p in domain.predicates} >= predicates and not any(
        lit.predicate in predicates
        for action in domain.actions
        for effect in action.all_special_effects()
        for lit in effect.fx
    )


def _arrival_shapes(domain: Domain) -> bool:
    """Whether the domain's actions have the shapes the arrival argument needs.

    Every action that frees a robot's hand (makes ``nothing(r)`` true) does it at the robot's
    station ``s`` in one of three ways, none of which leaves a clear item standing at ``s``
    for a pick: it needs ``station_empty(s)``, or a container at ``s`` (a station holds a
    container or items, never both), or it covers the clear item at ``s`` (needs ``clear(i)``
    and ``item_at(i, s)`` and makes ``clear(i)`` false). Every pick (makes ``has_item(r, i)``
    true) needs ``clear(i)`` and ``i`` on or at the robot's station. No special effect writes
    any of these predicates.

    Containers: every pick of a container (makes ``has_container(r, c)`` true) needs ``c`` at
    the robot's station. A station that holds a container holds no item, so of the ways above
    only one that needs that very container at ``s`` frees a hand there (adding an ingredient
    to a pot); :func:`find_projections` lets such a grounding clear the robot's arrival bit
    (:data:`ARRIVAL_FREED`).
    """
    if not _only_actions_write(domain, _ARRIVAL_PREDICATES):
        return False
    for action in domain.actions:
        pre = set(action.precons)
        fx = set(action.immediate_fx)
        for lit in action.immediate_fx:
            if not lit.is_true or lit.predicate not in ("nothing", "has_item", "has_container"):
                continue
            robot = lit.params[0]
            stations = [
                p.params[1]
                for p in pre
                if p.predicate == "loc" and p.is_true and p.params[0] == robot
            ]
            if lit.predicate == "nothing":
                ok = any(
                    Literal("station_empty", (s,), True) in pre
                    or any(
                        p.predicate == "container_at" and p.is_true and p.params[1] == s
                        for p in pre
                    )
                    or any(
                        p.predicate == "clear"
                        and p.is_true
                        and Literal("item_at", (p.params[0], s), True) in pre
                        and Literal("clear", p.params, False) in fx
                        for p in pre
                    )
                    for s in stations
                )
            elif lit.predicate == "has_container":
                ok = any(
                    Literal("container_at", (lit.params[1], s), True) in pre for s in stations
                )
            else:
                item = lit.params[1]
                ok = Literal("clear", (item,), True) in pre and any(
                    Literal("item_on", (item, s), True) in pre
                    or Literal("item_at", (item, s), True) in pre
                    for s in stations
                )
            if not ok:
                return False
    return True


def _hand_over_shapes(domain: Domain) -> bool:
    """Whether containers move only in hands, as the hand-over argument needs (projection.h).

    Every action that puts a container at a station (makes ``container_at(c, s)`` true) needs
    a robot at ``s`` that holds ``c``. Together with the shapes of :func:`_arrival_shapes`
    (picks need the item at the robot's station, and a station holds a container or items,
    never both), which the caller checks as well, and with several robots one robot per
    station (no other robot can bring a container where a robot stands), a move then comes
    between picking an item up and putting it into a container.
    """
    for action in domain.actions:
        pre = set(action.precons)
        for lit in action.immediate_fx:
            if not lit.is_true or lit.predicate != "container_at":
                continue
            container, station = lit.params
            held_by_one_there = any(
                p.predicate == "has_container"
                and p.is_true
                and p.params[1] == container
                and Literal("loc", (p.params[0], station), True) in pre
                for p in pre
            )
            if not held_by_one_there:
                return False
    return True


def _one_container_per_station(view: _TaskView, invariants: dict[int, list[list[int]]]) -> bool:
    """Whether each station's ``container_at`` facts lie in one proven at-most-one set."""
    at: dict[int, set[int]] = {}
    for f in view.mutable_facts:
        if view.named(f, "container_at"):
            at.setdefault(view.args(f)[1], set()).add(f)
    groups = [set(g) for groups in invariants.values() for g in groups]
    return all(len(facts) < 2 or any(facts <= g for g in groups) for facts in at.values())


IDLE_SETS = 1
"""Idle code: after the grounding its robot stands empty-handed where the object is the top."""

IDLE_BLOCKED = 2
"""Idle code: the grounding cannot apply while its robot idles at the object."""


ANY_OBJECT = -1
"""An idling key (see :class:`_Idling`): the grounding can apply beside any object."""

NO_OBJECT = -2
"""An idling key: the grounding can apply beside no object (while the robot idles)."""


@dataclass(frozen=True)
class _Idling:
    """What idling needs to know about the task's one robot and its groundings.

    Attributes:
        free: The robot's free-hand fact (``nothing(r)``).
        hand: The other facts of its proven hand (``has_item(r, x)``, ...).
        place: Per station, the robot's position fact there.
        item_key: Per grounding, the item beside which, as the clear top of the robot's
            station, the grounding can still apply while the robot idles (it needs that item
            clear there), :data:`ANY_OBJECT` (it needs no robot position, or nothing at the
            station that an item rules out) or :data:`NO_OBJECT` (it needs a full hand, the
            station empty, a container there, or two clear items).
        container_key: The same beside a container as the one at the robot's station.
    """

    free: int
    hand: frozenset[int]
    place: dict[int, int]
    item_key: list[int]
    container_key: list[int]


def _idling(view: _TaskView, hand_facts: set[int]) -> _Idling | None:
    """The task's idling facts, or None where the argument of "Idling" does not hold.

    It needs one robot whose position and hand are proven exactly-one fact groups, every station
    holding one stack (:func:`_stack_shapes`; the planner checks the start state), and no
    special effect writing a fact of a position, a hand or a stack.
    """
    task = view.task
    if len(view.robots) != 1 or not (
        _only_actions_write(task.domain, _ARRIVAL_PREDICATES | _STACK_PREDICATES)
        and _stack_shapes(task.domain)
    ):
        return None
    (robot,) = view.robots
    names = [p.name for p in task.domain.predicates]
    pred = [names[int(p)] for p in task.fact_pred[: view.num_pred]]
    free = [f for f in hand_facts if view.args(f) == [robot]]
    place = {view.args(f)[1]: f for f in view.mutable_facts if pred[f] == "loc"}
    if len(free) != 1 or not _group_invariant(view, set(place.values()), task.initial_bits):
        return None
    hand = frozenset(f for f in hand_facts if robot in view.args(f)) - {free[0]}

    def key(ruled_out: bool, needed: set[int]) -> int:
        if ruled_out or len(needed) > 1:
            return NO_OBJECT
        return next(iter(needed)) if needed else ANY_OBJECT

    item_key: list[int] = []
    container_key: list[int] = []
    for g, needed in enumerate(view.pre_pos):
        needed = [f for f in needed if f < view.num_pred]
        here = [view.args(f)[1] for f in needed if pred[f] == "loc"]
        if len(here) != 1:
            item_key.append(ANY_OBJECT)
            container_key.append(ANY_OBJECT)
            continue
        station = here[0]
        full_hand = bool(hand.intersection(needed)) or free[0] in view.pre_neg[g]
        at = [(pred[f], view.args(f)) for f in needed if view.args(f)[-1:] == [station]]
        never = full_hand or ("station_empty", [station]) in at
        containers = {args[0] for name, args in at if name == "container_at"}
        items = {args[0] for name, args in at if name in ("item_at", "item_on")}
        clear = {view.args(f)[0] for f in needed if pred[f] == "clear"}
        item_key.append(key(never or bool(containers), items & clear))
        container_key.append(key(never or bool(items), containers))
    return _Idling(free[0], hand, place, item_key, container_key)


ARRIVAL_FREED = 16
"""Arrival code: the grounding frees its robot's hand at the container's station (see
"Arrivals"): like putting the container down, it clears the robot's arrival bit."""

ARRIVAL_STAYS = 32
"""Arrival code: a hand-over that keeps the object, a container, in its robot's hand beside
another container (the pot poured into the bowl), where the robot cannot put it down: it moves
before it next does (see "Hand-overs" in projection.h)."""

ARRIVAL_SLOT = 64
"""Arrival codes (see :class:`ProjectionTables`) add this times the acting robot's slot."""

PLACE_PREDICATES = frozenset({"loc", "vacant"})
"""The predicates of a robot's place and a station's vacancy (see :func:`move_literals`)."""


def move_literals(p: str, x: str, y: str) -> tuple[set[Literal], set[Literal]]:
    """What a move of robot ``p`` from ``x`` to ``y`` needs and writes (one robot per station).

    It needs ``loc(p, x)`` and ``vacant(y)``, makes ``loc(p, y)`` and ``vacant(x)`` true and
    ``loc(p, x)`` and ``vacant(y)`` false.
    """
    needs = {Literal("loc", (p, x), True), Literal("vacant", (y,), True)}
    writes = {
        Literal("loc", (p, y), True),
        Literal("loc", (p, x), False),
        Literal("vacant", (x,), True),
        Literal("vacant", (y,), False),
    }
    return needs, writes


def _one_robot_per_station(task: CompiledTask, view: _TaskView) -> bool:
    """Whether no robot can come to a station where another one stands.

    With several robots the arrival argument needs it (``projection.h``: a robot cannot stay
    while an item is brought to it). Every action that writes ``loc`` or ``vacant`` moves one
    robot ``p`` from ``x`` to ``y`` (:func:`move_literals`) and writes nothing else of them; no
    special effect writes either; and at the start no robot stands at a vacant station.
    """
    domain = task.domain
    if not _only_actions_write(domain, PLACE_PREDICATES):
        return False
    for action in domain.actions:
        fx = {lit for lit in action.immediate_fx if lit.predicate in PLACE_PREDICATES}
        if not fx:
            continue
        arrive = [lit for lit in fx if lit.predicate == "loc" and lit.is_true]
        leave = [lit for lit in fx if lit.predicate == "loc" and not lit.is_true]
        if len(arrive) != 1 or len(leave) != 1 or arrive[0].params[0] != leave[0].params[0]:
            return False
        (p, y), x = arrive[0].params, leave[0].params[1]
        needs, writes = move_literals(p, x, y)
        if fx != writes or not needs <= set(action.precons):
            return False
    names = [p.name for p in domain.predicates]
    # A station's vacant fact, where the task has one (a domain may type it otherwise).
    vacant = {view.args(f)[0]: f for f in range(view.num_pred) if view.named(f, "vacant")}
    for f in np.flatnonzero(task.initial_bits[: view.num_pred]):  # not the exists facts
        if names[task.fact_pred[f]] != "loc":
            continue
        stations = [a for a in view.args(int(f)) if a not in view.robots]
        if (
            len(stations) != 1
            or stations[0] not in vacant
            or task.initial_bits[vacant[stations[0]]]
        ):
            return False
    return True


_LIFT_PREDICATES = frozenset({"item_at", "clear", "atop", "has_item"})


def _lift_shapes(domain: Domain) -> bool:
    """Whether the domain's actions have the shapes the lift argument needs.

    An item arrives at a station only from the hand of a robot standing there (every action
    that makes ``item_at(i, s)`` true needs ``has_item(r, i)`` and ``loc(r, s)`` and makes the
    first false); an item leaves a station only from the top of its stack (every action that
    makes ``item_at(i, s)`` false needs ``clear(i)``); an item is uncovered only by the item on
    it leaving (every action that makes ``clear(y)`` true either puts down the held ``y``, or
    needs ``atop(z, y)`` and makes ``item_at(z, s)`` false). No special effect writes these
    predicates.
    """
    if not _only_actions_write(domain, _LIFT_PREDICATES):
        return False
    for action in domain.actions:
        pre = set(action.precons)
        fx = set(action.immediate_fx)
        for lit in action.immediate_fx:
            if lit.predicate == "item_at" and lit.is_true:
                item, station = lit.params
                ok = any(
                    p.predicate == "has_item"
                    and p.is_true
                    and p.params[1] == item
                    and Literal("has_item", p.params, False) in fx
                    and Literal("loc", (p.params[0], station), True) in pre
                    for p in pre
                )
            elif lit.predicate == "item_at":
                ok = Literal("clear", (lit.params[0],), True) in pre
            elif lit.predicate == "clear" and lit.is_true:
                below = lit.params[0]
                ok = any(
                    # the item put down is clear; an item at a station only when the one on
                    # it leaves
                    (p.predicate == "has_item" and p.is_true and p.params[1] == below)
                    or (
                        p.predicate == "atop"
                        and p.is_true
                        and p.params[1] == below
                        and any(
                            f.predicate == "item_at"
                            and not f.is_true
                            and f.params[0] == p.params[0]
                            for f in fx
                        )
                    )
                    for p in pre
                )
            else:
                continue
            if not ok:
                return False
    return True


_STACK_PREDICATES = frozenset(
    {"item_at", "item_on", "atop", "clear", "station_empty", "container_at"}
    | {"has_item", "has_container"}
)

# The action shapes under which every station holds one stack (see :func:`_stack_shapes`), as
# (literals needed, stack literals written) over the variables r (a robot), i and j (items),
# s (a station) and c (a container); "-" marks a false literal.
_STACK_ACTIONS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(needs.split(",")), frozenset(writes.split(",")))
    for needs, writes in (
        # put the held item down on an empty station
        (
            "has_item r i,loc r s,station_empty s",
            "item_at i s,item_on i s,clear i,-station_empty s,-has_item r i",
        ),
        # pick up the only item of a station
        ("item_on i s,clear i", "has_item r i,station_empty s,-item_at i s,-clear i,-item_on i s"),
        # put the held item on the top item of a stack
        (
            "has_item r i,clear j,item_at j s,loc r s",
            "item_at i s,atop i j,clear i,-clear j,-has_item r i",
        ),
        # take the top item off a stack
        ("clear i,atop i j,item_at i s", "has_item r i,clear j,-atop i j,-clear i,-item_at i s"),
        # pick up and put down a container
        ("container_at c s", "has_container r c,station_empty s,-container_at c s"),
        (
            "has_container r c,station_empty s",
            "container_at c s,-has_container r c,-station_empty s",
        ),
        # the held item leaves the kitchen (added to a soup)
        ("has_item r i", "-has_item r i"),
    )
)


def _stack_shapes(domain: Domain) -> bool:
    """Whether every action that writes a stack predicate has one of the stack shapes.

    Found once per domain (each search's tables ask several times).

    An action matches a shape of ``_STACK_ACTIONS`` when some renaming of its parameters makes
    it need at least the shape's literals and write exactly its stack literals (immediate
    effects; no special effect may write them). Then every state reached from one where each
    station holds one stack (:func:`stations_hold_stacks`) has one at each station too: a
    station with items has exactly one at the bottom (``item_on``), every other item there
    lies ``atop`` exactly one item of the same station, at most one item lies on each,
    ``clear`` marks the top, and ``station_empty`` holds exactly where a station has no item
    and no container; a station holds items or one container, never both, and a held item is
    at no station. Each shape keeps this: a put-down needs the station empty or the top item,
    a pick-up needs the item clear and at the bottom (so alone) or atop another.
    """
    found: bool | None = domain.__dict__.get("_stack_shapes")
    if found is None:
        # (A frozen dataclass: the cache goes into its __dict__ directly.)
        found = domain.__dict__["_stack_shapes"] = _only_actions_write(
            domain, _STACK_PREDICATES
        ) and all(_stack_action(action) for action in domain.actions)
    return found


def _stack_action(action: ActionDef) -> bool:
    """Whether the action writes no stack predicate or has one of the stack shapes."""
    writes = {_text(lit) for lit in action.immediate_fx if lit.predicate in _STACK_PREDICATES}
    needs = {_text(lit) for lit in action.precons}
    return not writes or any(
        _matches(needs, writes, shape, list(action.params)) for shape in _STACK_ACTIONS
    )


def _matches(
    needs: set[str],
    writes: set[str],
    shape: tuple[frozenset[str], frozenset[str]],
    params: list[str],
) -> bool:
    """Whether a renaming of the shape's variables to ``params`` makes it fit the action.

    The action fits when it writes exactly the shape's stack literals and needs at least its
    needed literals.
    """
    variables = sorted({w for lit in shape[0] | shape[1] for w in lit.lstrip("-").split()[1:]})
    for names in permutations(params, len(variables)):
        rename = dict(zip(variables, names))
        grounded = [{_renamed(lit, rename) for lit in literals} for literals in shape]
        if grounded[1] == writes and grounded[0] <= needs:
            return True
    return False


def _text(literal: Literal) -> str:
    """A literal as the stack shapes write it: "pred a b", or "-pred a b" when false."""
    return ("" if literal.is_true else "-") + " ".join((literal.predicate, *literal.params))


def _renamed(literal: str, rename: dict[str, str]) -> str:
    """A shape literal ("-pred a b") with its variables renamed."""
    sign = "-" if literal.startswith("-") else ""
    predicate, *args = literal.lstrip("-").split()
    return sign + " ".join((predicate, *(rename[a] for a in args)))


def implied_goal_task(task: CompiledTask) -> CompiledTask:
    """The task with the goal atoms that one stack per station implies, for the bound.

    A goal may say where a stack stands only through its bottom (``item_on(bun, table)``) and
    stack the rest with ``atop``. Where every station holds one stack (the domain has the
    shapes :func:`_stack_shapes` checks and the start state has them), an item atop an item at
    K is at K too, so every goal state also has ``item_at(x, K)`` for every item ``x`` the goal
    stacks, through a chain of ``atop`` atoms, on an item on or at K. Adding those atoms changes
    no goal state, and it tells each item's projection where it must be carried (and gives the
    lifts their stations).

    Args:
        task: The compiled task.

    Returns:
        A copy of ``task`` whose goal has the implied atoms added (its own core, sharing the
        facts, groundings and effects), or ``task`` itself when there is nothing to add or the
        stack argument does not hold.
    """
    goal = task.problem.goal
    station: dict[str | int, str | int] = {}
    for atom in goal.atoms:
        if atom.predicate in ("item_on", "item_at") and len(atom.args) == 2:
            station.setdefault(atom.args[0], atom.args[1])
    below = {a.args[0]: a.args[1] for a in goal.atoms if a.predicate == "atop" and len(a.args) == 2}
    grown = True
    while grown:
        grown = False
        for top, under in below.items():
            if top not in station and under in station:
                station[top] = station[under]
                grown = True
    present = set(goal.atoms)
    implied = [
        atom
        for atom in (GoalAtom("item_at", (top, station[top])) for top in below if top in station)
        if atom not in present
    ]
    if not implied or not (
        _stack_shapes(task.domain) and stations_hold_stacks(task, task.initial_bits)
    ):
        return task
    out = copy.copy(task)
    out.__dict__.pop("_planner_tables", None)
    out.__dict__.pop("_symmetries", None)
    # It shares the source task's dynamics, so its invariants and swap checks too: found from
    # whichever task comes first (see object_invariants and symmetry's checker).
    out.__dict__["_dynamics_source"] = task
    out.problem = dataclasses.replace(
        task.problem, goal=Goal((*goal.atoms, *implied), goal.variables)
    )
    # Two stacks on any of 16 tables make 256 key combinations (MAX_KEY_COMBINATIONS bounds
    # them), but a row's combinations that differ only in the other stack's table share a
    # column: multi_agent/8 seed 42 builds as many abstract states in as much time either way,
    # and starts at 45 with both stacks' atoms instead of 38 without them.
    out._compile_goal()
    out._build_core()
    return out


def _stack_facts(task: CompiledTask) -> tuple[list[tuple[int, str, tuple[int, ...]]], set[int]]:
    """The task's facts of stack predicates as (fact, predicate, arguments), and its stations.

    Computed once per task (the planner checks every start state against them).
    """
    found = task.__dict__.get("_stack_facts")
    if found is None:
        names = [p.name for p in task.domain.predicates]
        facts: list[tuple[int, str, tuple[int, ...]]] = []
        for f in range(task.num_pred_facts):
            name = names[int(task.fact_pred[f])]
            if name in _STACK_PREDICATES:
                facts.append((f, name, tuple(int(a) for a in task.fact_args[f] if a >= 0)))
        stations = {args[0] for _, name, args in facts if name == "station_empty"}
        found = task.__dict__["_stack_facts"] = (facts, stations)
    return found


def stations_hold_stacks(task: CompiledTask, bits: npt.NDArray[np.bool_]) -> bool:
    """Whether every station holds one stack in the state, as :func:`_stack_shapes` keeps.

    Args:
        task: The compiled task.
        bits: The state's fact bits (at least one per fact of ``task``).

    Returns:
        True when the stack facts are consistent: see :func:`_stack_shapes` for what that
        means. The lifts of the projection bound rest on it.
    """
    facts, stations = _stack_facts(task)
    true: dict[str, list[tuple[int, ...]]] = {name: [] for name in _STACK_PREDICATES}
    for f, name, args in facts:
        if bits[f]:
            true[name].append(args)
    at: dict[int, list[int]] = {}
    for item, station in true["item_at"]:
        at.setdefault(station, []).append(item)
    placed = [item for item, _ in true["item_at"]]
    held = {item for _, item in true["has_item"]}
    if len(set(placed)) != len(placed) or held & set(placed):
        return False
    below = {pair[0]: pair[1] for pair in true["atop"]}
    above = [under for _, under in true["atop"]]
    if len(below) != len(true["atop"]) or len(set(above)) != len(above):
        return False
    bottoms = {station: item for item, station in true["item_on"]}
    if any(item not in at.get(station, []) for station, item in bottoms.items()):
        return False
    empty = {station for (station,) in true["station_empty"]}
    containers = [station for _, station in true["container_at"]]
    clear = {item for (item,) in true["clear"]}
    if len(bottoms) != len(true["item_on"]) or len(set(containers)) != len(containers):
        return False
    stack_items = 0
    for station in stations:
        items = set(at.get(station, []))
        if (station in empty) != (not items and station not in containers):
            return False
        if not items:
            continue
        if station in containers or bottoms.get(station) not in items:
            return False
        # Walk down from every item: each step lands on an item of the station; the walk ends
        # at the bottom within len(items) steps (no cycle).
        for item in items:
            for _ in range(len(items)):
                if item == bottoms[station]:
                    break
                item = below.get(item, -1)
                if item not in items:
                    return False
            else:
                return False
        if bottoms[station] in below or any((i in clear) == (i in above) for i in items):
            return False
        stack_items += len(items)
    return stack_items == len(placed) and len(true["atop"]) == stack_items - len(bottoms)


CLEAR_PICKS, CLEAR_ARRIVALS, CLEAR_FOLLOW_UPS = 0, 1, 2
"""What the clearing term counts per item (see "Clearing" in ``projection.h``): its pick; also
the arrival before it; also the step after it (a move with the item, or putting it back)."""


def _clearing(
    task: CompiledTask,
    view: _TaskView,
    projected: set[int],
    charged: list[int],
    movers: set[int],
    arrivals_apply: bool,
    robots_proven: bool,
    key_vars: list[int],
) -> list[int]:
    """The clearing entries (see "Clearing" in ``projection.h``), one after another.

    A goal atom ``P(x)`` that no candidate of ``x`` has yet needs a grounding that makes it
    true (or starts a special effect that does); when every such grounding needs ``item_on(y,
    s)`` and ``clear(y)`` for a projection object ``y``, the station ``s`` then holds ``y``
    alone, so every item stacked at ``s`` now has left it by then. An item that no projection
    object is, standing on a support (the station, or an item below it) whose groundings no
    row is charged for, is picked off it in a step charged to nobody. With arrivals
    (``arrivals_apply``) the empty-handed arrival before that pick counts too, except one
    where a robot stands at ``s`` with an empty hand; and where every such grounding also
    needs its robot at ``s`` with an empty hand, so does the picking robot's next step with
    the item: a move while holding it, or putting it back on the same support. Only where
    every station holds one stack (:func:`_stack_shapes`; the planner checks the start state).

    Covering candidates: a projection object ``o`` at such a station that no grounding of the
    requirement needs there (not one of its ``y``), all of whose steps onto or off the station
    its own row is charged for, leaves it in steps only ``o``'s row pays for. Where ``o``
    plays no role of its group that row adds 0, so the matching charges ``o``'s departure
    instead, as for an item above, while a requirement with that station alone is open.

    Layout: what counts (:data:`CLEAR_PICKS`, :data:`CLEAR_ARRIVALS` or
    :data:`CLEAR_FOLLOW_UPS`); the number of stations, and per station the number of
    (position fact, free-hand fact) pairs of the robots that could stand there, those pairs,
    the number of items, and per item its fact ``item_at(i, s)``, the number of facts that
    rule it out (supports some row is charged for), and those facts, the number of covering
    candidates and per candidate its object and its fact ``item_at(o, s)``; then the number of
    requirements, and per requirement its group (requirements whose stations overlap share
    one, and count as their largest), the number of facts that void it (the atom's facts),
    those facts, the number of templates that void it (running, they may make one of those
    facts true), those templates, the number of its stations and their indices; then the number
    of parks, and per park (see "Parks" in ``projection.h``) its requirement (one station, and
    a goal variable as the atom's subject), that variable, the number of robots that may stand
    at the station, and per robot the robot and its position fact there, the number of
    projection objects that may stand there, and per object the object and its fact
    ``item_at(o, s)``.
    """
    if not _stack_shapes(task.domain):
        return []
    named = view.named

    def makes(g: int, f: int, value: int = 1) -> bool:
        """Whether grounding g writes fact f with the value."""
        return dict(zip(view.eff[g], view.eff_value[g])).get(f) == value

    def robot_at(g: int, station: int) -> bool:
        """Whether grounding g needs a robot standing at the station with an empty hand."""
        return any(
            named(f, "loc")
            and view.args(f)[1] == station
            and task.fact_of("nothing", [view.args(f)[0]]) in view.pre_pos[g]
            for f in view.pre_pos[g]
        )

    goal = task.problem.goal
    requirements: list[tuple[list[int], list[int], list[int]]] = []
    subjects: list[int] = []  # per requirement, its atom's goal variable (-1: an object)
    wanted_at: set[tuple[int, int]] = set()
    follow_ups = True
    for atom in goal.atoms:
        if len(atom.args) != 1:
            continue
        subject = atom.args[0]
        if isinstance(subject, int):
            candidates = task.goal_candidates[subject]
        else:
            candidates = [task.object_index[subject]]
        if any(c >= len(task.objects) or task.may_vanish[c] for c in candidates):
            continue
        facts = [task.fact_of(atom.predicate, [c]) for c in candidates]
        wanted = set(facts)
        templates = [t for t, writes in enumerate(view.template_writes) if writes & wanted]
        producers = {g for f in facts for g in view.writers.get(f, [])} | {
            g for t in templates for g in view.starters.get(t, [])
        }
        stations: set[int] = set()
        hands_free = True
        needed: set[tuple[int, int]] = set()  # (station, the object a producer needs there)
        for g in producers:
            alone = [
                (view.args(f)[1], view.args(f)[0])
                for f in view.pre_pos[g]
                if named(f, "item_on")
                and view.args(f)[0] in projected
                and task.fact_of("clear", [view.args(f)[0]]) in view.pre_pos[g]
            ]
            if not alone:
                break
            stations.add(alone[0][0])
            needed.add(alone[0])
            hands_free = hands_free and robot_at(g, alone[0][0])
        else:
            if stations:
                requirements.append((facts, templates, sorted(stations)))
                subjects.append(subject if isinstance(subject, int) else -1)
                follow_ups = follow_ups and hands_free
                wanted_at |= needed
    if not requirements:
        return []
    used = sorted({s for _, _, stations in requirements for s in stations})
    key_candidates = {c for v in key_vars for c in task.goal_candidates[v]}
    mode = CLEAR_PICKS
    if arrivals_apply:
        mode = CLEAR_FOLLOW_UPS if follow_ups else CLEAR_ARRIVALS
    # One pass over the facts: per item its supports (item_on(i, s) and atop(i, j)), per used
    # station the robots' positions there and the items' facts item_at(i, s).
    supports: dict[int, set[int]] = {}
    ready: dict[int, list[int]] = {s: [] for s in used}  # (position, free hand) pairs, flat
    items_at: dict[int, list[int]] = {s: [] for s in used}
    for f in range(view.num_pred):
        args = view.args(f)
        if named(f, "item_on") or named(f, "atop"):
            supports.setdefault(args[0], set()).add(f)
        elif named(f, "loc") and args[1] in ready and args[0] in view.robots:
            ready[args[1]] += [f, task.fact_of("nothing", [args[0]])]
        elif named(f, "item_at") and args[1] in items_at:
            items_at[args[1]].append(f)
    # A support whose groundings (taking the item off it, putting it on it) some row is charged
    # for, or that move a robot in a way charged by holding, rules the item out while it stands
    # there.
    charged_supports = {
        f
        for facts in supports.values()
        for f in facts
        if any(charged[g] >= 0 or g in movers for g in view.writers.get(f, []))
    }
    out: list[int] = [mode, len(used)]
    for s in used:
        out += [len(ready[s]) // 2, *ready[s]]
        entries: list[list[int]] = []
        for f in items_at[s]:
            item = view.args(f)[0]
            if item in projected or task.may_vanish[item]:
                continue
            # Under the stack shapes an item leaves a station only off one of its supports.
            own = supports.get(item, set())
            if any(
                own.isdisjoint(view.eff[g])
                for g in view.writers.get(f, [])
                if (f, 0) in zip(view.eff[g], view.eff_value[g])
            ):
                continue
            blocks = sorted(own & charged_supports)
            entries.append([f, len(blocks), *blocks])
        out += [len(entries), *(x for entry in entries for x in entry)]
        # Covering candidates: projection objects that must leave s in steps their own rows pay
        # (not a key variable's candidates, which the goal may name without a role).
        covers = [
            (view.args(f)[0], f)
            for f in items_at[s]
            if view.args(f)[0] in projected
            and view.args(f)[0] not in key_candidates
            and (s, view.args(f)[0]) not in wanted_at
            and not task.may_vanish[view.args(f)[0]]
            and all(charged[g] == view.args(f)[0] for g in view.writers.get(f, []))
            and not any(f in writes for writes in view.template_writes)
        ]
        out += [len(covers), *(x for cover in covers for x in cover)]
    # Requirements whose stations overlap share a group (their picks may be the same ones).
    group_of = list(range(len(requirements)))
    for k, (_, _, places) in enumerate(requirements):
        for j in range(k):
            if group_of[j] != group_of[k] and set(requirements[j][2]) & set(places):
                merged = group_of[j]
                group_of = [group_of[k] if g == merged else g for g in group_of]
    dense = {g: k for k, g in enumerate(sorted(set(group_of)))}
    out.append(len(requirements))
    for (facts, templates, places), group in zip(requirements, group_of):
        out += [dense[group], len(facts), *facts, len(templates), *templates]
        out += [len(places), *(used.index(s) for s in places)]
    # Parks: a requirement of a goal variable with one station, the robots' positions there,
    # and the projection objects that may stand at it with their facts. The station must not
    # be where a lift's K can be (the argument needs the object to leave it). Several robots
    # need one robot per station: the robot holding the object stands elsewhere then.
    parks: list[int] = []
    count_parks = 0
    if robots_proven:
        for k, (_, _, places) in enumerate(requirements):
            if len(places) != 1 or subjects[k] < 0 or places[0] in key_candidates:
                continue
            s = places[0]
            # Each step that takes the variable's object off s needs it clear (s holds it alone
            # after it was made P there) and its robot there with an empty hand.
            departures = [
                (g, c)
                for c in task.goal_candidates[subjects[k]]
                for g in view.writers.get(task.fact_of("item_on", [c, s]), [])
                if makes(g, task.fact_of("item_on", [c, s]), 0)
            ]
            leaves_alone = all(
                robot_at(g, s) and task.fact_of("clear", [c]) in view.pre_pos[g]
                for g, c in departures
            )
            # Each grounding that makes the atom true of an object, or starts what does, needs
            # that object on s.
            facts, templates, _ = requirements[k]
            made = [(g, {f}) for f in facts for g in view.writers.get(f, []) if makes(g, f)] + [
                (g, view.template_writes[t] & set(facts))
                for t in templates
                for g in view.starters.get(t, [])
            ]
            on_s = all(
                task.fact_of("item_on", [view.args(f)[0], s]) in view.pre_pos[g]
                for g, written in made
                for f in written
            )
            if not on_s or not leaves_alone or not ready[s]:
                continue
            at = [(view.args(f)[0], f) for f in items_at[s] if view.args(f)[0] in projected]
            robots = [(view.args(f)[0], f) for f in ready[s][::2]]
            parks += [k, subjects[k], len(robots), *(x for pair in robots for x in pair)]
            parks += [len(at), *(x for pair in at for x in pair)]
            count_parks += 1
    return [*out, count_parks, *parks]


def _lifts(
    task: CompiledTask,
    view: _TaskView,
    key_vars: list[int],
    robots_proven: bool,
    stacks_proven: bool,
) -> list[int]:
    """The lift entries (see "Lifts"): roles that must leave K while others join it there.

    A goal variable ``v`` with an atom ``item_at(v, K)`` (``K`` a key variable) gets an entry
    with its companion atoms: the atoms ``item_at(V, K)`` of the variables ``V`` that ``v``
    must end above (all others at K if ``clear(v)`` is a goal atom, else those below it in its
    chain of ``atop`` atoms): ``v`` must wait elsewhere while they arrive, where the domain has
    the shapes :func:`_lift_shapes` checks; and the atoms ``item_on(B, K)`` of the
    other variables ``B`` (every item must leave K before the bottom is put down, where the
    domain has the shapes :func:`_stack_shapes` checks and the start state has them:
    ``stacks_proven``). Companions are in ``v``'s group, or have candidates disjoint from
    ``v``'s, so that a companion is never ``v``'s object. Only where ``robots_proven``: every
    robot's hand is proven (:func:`_hands`), since the argument needs the acting robot's hand
    busy with the companion; and with several robots no robot can come to a station where
    another one stands (:func:`_one_robot_per_station`), so that no robot holding ``v``'s
    object stands at K then either.
    """
    if not robots_proven:
        return []
    wanted_top = {"item_at"} if _lift_shapes(task.domain) else set()
    wanted_base = {"item_on"} if stacks_proven else set()
    if not wanted_top and not wanted_base:
        return []
    names = [p.name for p in task.domain.predicates]
    variables: dict[tuple[str, int], list[tuple[int, tuple[int, ...]]]] = {}
    for a, (base, args) in enumerate(task.goal_atoms):
        if args and all(is_var for is_var, _, _, _ in args):
            name = names[int(task.fact_pred[base])]  # the atom's fact with every argument first
            variables.setdefault((name, args[0][1]), []).append(
                (a, tuple(value for _, value, _, _ in args))
            )
    # The variables each one must end above: the transitive closure of the atop atoms.
    under = {
        v: values[1]
        for (name, v), atoms in variables.items()
        if name == "atop"
        for _, values in atoms
    }

    def below(v: int) -> set[int]:
        seen: set[int] = set()
        while v in under and under[v] not in seen:
            v = under[v]
            seen.add(v)
        return seen

    out: list[int] = []
    for name, v in sorted(variables):
        if name != "item_at":
            continue
        for a, (_, station) in ((a, vs) for a, vs in variables[("item_at", v)] if len(vs) == 2):
            if station not in key_vars:
                continue
            mine = set(task.goal_candidates[v])
            # A clear top ends above every other item at K; another item above those its atop
            # chain names.
            top = ("clear", v) in variables
            under_v = below(v)
            companions = [
                b
                for (other_name, u), others in sorted(variables.items())
                if u != v
                and (
                    other_name in wanted_base
                    or (other_name in wanted_top and (top or u in under_v))
                )
                for b, values in others
                if values[1:] == (station,)
                and (
                    task.goal_var_group[u] == task.goal_var_group[v]
                    or mine.isdisjoint(task.goal_candidates[u])
                )
            ]
            if companions:
                out += [v, a, len(companions), *companions]
    return out


def _lift_stacks(task: CompiledTask) -> list[int]:
    """The atop facts as (fact, upper, lower) triples, for the lifts' buried objects.

    The buried objects (see "Lifts" in ``projection.h``) rest on one stack per station: the
    caller passes them only where the shapes :func:`_stack_shapes` checks hold, from a start
    state that has them.
    """
    facts, _ = _stack_facts(task)
    return [
        x for f, name, args in facts if name == "atop" and args[0] != args[1] for x in (f, *args)
    ]


def _first_in(facts: list[int], values: dict[int, int]) -> int | None:
    """The value of the first of the facts that has one, or None."""
    for f in facts:
        if f in values:
            return values[f]
    return None


def _charges(
    view: _TaskView,
    projected: list[int],
    hold: dict[int, list[tuple[int, int]]],
    hand_facts: set[int],
    creators: dict[int, set[int]],
    status: set[int],
) -> tuple[list[int], set[int]]:
    """Per grounding, the projection object it is charged to (-1: none); and the movers.

    Movers are groundings charged to nobody that change a robot's facts outside its hand.
    A grounding that changes facts of created objects and of no projection object is charged
    to their creator (see :func:`_creators`): the one it names, if any, else the first. Status
    facts (:func:`_status_facts`), which no
    projection keeps, change nobody's facts.
    """
    task = view.task
    projected_set = set(projected)
    hold_fact_object = {f: o for o, facts in hold.items() for _, f in facts}
    charged: list[int] = []
    movers: set[int] = set()
    grounding_args: list[list[int]] = task.grounding_args.tolist()
    for g in range(len(view.eff)):
        held = _first_in(view.pre_pos[g], hold_fact_object)
        if held is None:
            held = _first_in(view.eff[g], hold_fact_object)
        if held is not None:
            charged.append(held)
            continue
        changed = set(view.eff[g])
        for t in view.sfx[g]:
            changed |= view.template_writes[t]
        changed -= status
        touched = {a for f in changed for a in view.args(f)}
        args = [a for a in grounding_args[g] if a >= 0]
        first = next((a for a in args if a in projected_set and a in touched), -1)
        if first < 0:  # about created objects only (boiling water): their creator's, the
            # one it names where it names one (the pot the water boils in)
            makers = [o for o, made in creators.items() if made & touched]
            first = next((a for a in args if a in makers), min(makers, default=-1))
        charged.append(first)
        moved = {a for f in changed - hand_facts for a in view.args(f)}
        if first < 0 and moved & view.robots and not touched & projected_set:
            movers.add(g)
    return charged, movers


def object_invariants(
    task: CompiledTask, view: _TaskView | None = None
) -> dict[int, list[list[int]]]:
    """Per object that always exists, its at-most-one fact sets; proven once per task.

    The projections and the search's packing both read them. Only the result is kept on the
    task (a view of a large task takes tens of megabytes); ``view`` saves building one. The
    search may store images of reachable states under the task's interchangeable objects: only
    sets whose images are invariants too are kept (:func:`closed_groups`). A task from
    :func:`implied_goal_task` shares its source task's sets (the goal plays no part in them,
    and the search swaps objects as the source task allows).
    """
    source: CompiledTask = task.__dict__.get("_dynamics_source", task)
    cached: dict[int, list[list[int]]] | None = source.__dict__.get("_object_invariants")
    if cached is None:
        # (A task from implied_goal_task has its source's dynamics, so its view serves.)
        view = view or _TaskView(task)
        objects = [o for o in range(len(task.objects)) if not task.may_vanish[o]]
        found = mutex_groups_by_object(view, task.fact_pred, task.initial_bits, objects)
        kept = {tuple(g) for g in closed_groups(union(found.values()), task_symmetries(source))}
        cached = {o: [g for g in groups if tuple(g) in kept] for o, groups in found.items()}
        source.__dict__["_object_invariants"] = cached
    return cached


Row = tuple[list[int], ...]
"""A row before flattening: facts, templates, groundings, costs, hold pairs, fallback flag,
arrival codes, colocated triples, merge pairs, idle quadruples, idle codes, clear fact, away
robots, forbidden facts, creator variant, appearing facts."""


def _shared_rows(
    task: CompiledTask,
    objects: list[int],
    rows: list[Row],
    mutexes: list[list[int]],
    fixed: set[int],
) -> tuple[list[int], list[list[int]]]:
    """Which rows are images of earlier rows under a swap of their objects (see "Shared rows").

    Row j shares row i when swapping their objects is an automorphism of the task, its goal
    included (:func:`~robotouille.symmetry.object_swap`), neither object is in ``fixed`` (values
    of key variables, whose combinations the swap would permute, and robots), and the swap maps
    row i onto row j: facts, templates, charged groundings with their costs and arrival codes,
    hold pairs, colocated triples, merges, idle quadruples and codes and the invariants within
    the facts. Row j's facts
    are then reordered to be the images of row i's, in order, so that bit k means the same in
    both. Mutates ``rows``.

    Returns:
        Per row the shared row or -1, and per row its (template, shared row's template) pairs.
    """
    share = [-1] * len(rows)
    pairs: list[list[int]] = [[] for _ in rows]
    for j, o in enumerate(objects):
        if o in fixed:
            continue
        for i in range(j):
            other = objects[i]
            if share[i] >= 0 or other == o or other in fixed or rows[i][5] != rows[j][5]:
                continue
            maps = object_swap(task, other, o)
            if maps is None:
                continue
            reordered = _image_row(rows[i], rows[j], mutexes, *maps)
            if reordered is None:
                continue
            rows[j] = (reordered, *rows[j][1:])
            share[j] = i
            templates = maps[1]
            pairs[j] = [x for t in rows[j][1] for x in (t, int(templates[t]))]
            break
    return share, pairs


def _robot_swaps(
    task: CompiledTask, rows: list[Row], mutexes: list[list[int]], robots: list[int]
) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """The rows that swapping the first two robots maps onto themselves (see "Robot swap").

    The swap must be an automorphism of the task, its goal included
    (:func:`~robotouille.symmetry.object_swap`), and map each such row onto itself: facts,
    templates, charged groundings with their costs and arrival codes (the robots' slots
    swapped), hold pairs, colocated triples, merges, idle quadruples and codes and the
    invariants within the facts.

    Returns:
        Per row, its (fact, image) pairs and its (template, image) pairs for the facts and
        templates the swap moves (none where it does not map the row onto itself), and the two
        robots' slots (none when the swap is no automorphism).
    """
    fact_pairs: list[list[int]] = [[] for _ in rows]
    template_pairs: list[list[int]] = [[] for _ in rows]
    if len(robots) < 2:
        return fact_pairs, template_pairs, []
    first, second = sorted(robots)[:2]  # slots 0 and 1 (the robots' places in sorted order)
    maps = object_swap(task, first, second)
    if maps is None:
        return fact_pairs, template_pairs, []
    facts, templates = maps[0], maps[1]
    for k, row in enumerate(rows):
        if (
            _image_row(row, row, mutexes, *maps, {first: second, second: first}, {0: 1, 1: 0})
            is None
        ):
            continue
        fact_pairs[k] = [x for f in row[0] if facts[f] != f for x in (f, int(facts[f]))]
        template_pairs[k] = [
            x for t in row[1] if templates[t] != t for x in (t, int(templates[t]))
        ]
    return fact_pairs, template_pairs, [0, 1]


def _image_row(
    source: Row,
    target: Row,
    mutexes: list[list[int]],
    facts: IntArray,
    templates: IntArray,
    groundings: IntArray,
    robots: dict[int, int] | None = None,
    slots: dict[int, int] | None = None,
) -> list[int] | None:
    """``target``'s facts ordered as their preimages in ``source``, or None.

    None unless the maps carry ``source`` onto ``target`` (see :func:`_shared_rows`). A swap of
    robots also maps the robots of the hold pairs (``robots``) and the robot slots of the
    arrival codes and colocated triples (``slots``); by default both stay.
    """
    robots, slots = robots or {}, slots or {}
    image = [int(facts[f]) for f in source[0]]
    if sorted(image) != target[0]:
        return None
    if sorted(int(templates[t]) for t in source[1]) != target[1]:
        return None
    # Creator variants: the same mask, forbidden and appearing facts onto their like.
    if source[14][2] != target[14][2] or any(
        sorted(int(facts[f]) for f in source[k]) != target[k] for k in (13, 15)
    ):
        return None

    def code(c: int) -> int:  # an arrival code with its robot slot mapped
        slot = c // ARRIVAL_SLOT
        return c % ARRIVAL_SLOT + ARRIVAL_SLOT * slots.get(slot, slot) if c else 0

    charged = sorted(
        zip(
            (int(groundings[g]) for g in source[2]),
            source[3],
            map(code, source[6]),
            source[10] or [0] * len(source[2]),
        )
    )
    if charged != sorted(zip(target[2], target[3], target[6], target[10] or [0] * len(target[2]))):
        return None

    def image_of(x: int, kind: int) -> int:  # kind 0: stays, 1: a fact, 2: a robot, 3: a slot
        if kind == 1:
            return int(facts[x])
        return robots.get(x, x) if kind == 2 else slots.get(x, x) if kind == 3 else x

    def tuples(flat: list[int], width: int, mapped: tuple[int, ...]) -> list[tuple[int, ...]]:
        rows = [tuple(flat[k : k + width]) for k in range(0, len(flat), width)]
        return sorted(tuple(image_of(x, m) for x, m in zip(r, mapped, strict=True)) for r in rows)

    def plain(flat: list[int], width: int) -> list[tuple[int, ...]]:
        return sorted(tuple(flat[k : k + width]) for k in range(0, len(flat), width))

    def away(row: tuple[list[int], ...], mapped: bool) -> tuple[int, list[tuple[int, ...]]]:
        """The away robots' slot mask and position triples (see "Away robots"), mapped."""
        if not row[12]:
            return 0, []
        mask, triples = row[12][0], row[12][1:]
        if not mapped:
            return mask, plain(triples, 3)
        slots_mask = sum(1 << slots.get(k, k) for k in range(mask.bit_length()) if mask >> k & 1)
        return slots_mask, tuples(triples, 3, (3, 1, 0))

    if (
        away(source, True) != away(target, False)
        or tuples(source[4], 2, (2, 1)) != plain(target[4], 2)
        or tuples(source[7], 3, (3, 1, 1)) != plain(target[7], 3)
        or tuples(source[8], 2, (1, 1)) != plain(target[8], 2)
        or tuples(source[9], 4, (1, 1, 1, 1)) != plain(target[9], 4)
    ):
        return None
    inside_source, inside_target = set(source[0]), set(target[0])
    within_source = {
        frozenset(int(facts[f]) for f in m if f in inside_source) for m in mutexes
    }
    within_target = {frozenset(f for f in m if f in inside_target) for m in mutexes}
    if {m for m in within_source if len(m) > 1} != {m for m in within_target if len(m) > 1}:
        return None
    return image


@dataclass
class _AwayShape:
    """A robot's groundings that touch its position facts, by the row-independent tests.

    Those are away_robots' tests that do not depend on the row (see find_projections): the
    groundings that fail in every row (another robot's, or not standing at exactly one station),
    the moves (from one station to one other: per grounding its pair of stations, the other facts
    it touches and the templates it starts), and the others (per grounding the position fact it
    stands at).
    """

    failing: list[int] = field(default_factory=list)
    moves: dict[int, tuple[tuple[int, int], frozenset[int], frozenset[int]]] = field(
        default_factory=dict
    )
    others: dict[int, int] = field(default_factory=dict)
    outside: set[int] = field(default_factory=set)  # every move's other facts
    started: set[int] = field(default_factory=set)  # every move's templates


def find_projections(task: CompiledTask, *, arrivals: bool = True) -> ProjectionTables:
    """The projections of ``task`` and their cost partition (see the module docstring).

    Args:
        task: The compiled task.
        arrivals: Whether to count arrivals (where the domain allows; with several robots,
            also where it keeps one robot per station), with one bit per robot. A robot's
            bit matters only while it stands at the object's station, so construction keeps
            it only there (projection.h): with two robots the bits add about a sixth to the
            abstract states, not the factor of 4 of two free bits.

    Returns:
        The tables; objects whose projection would exceed :data:`MAX_FACTS` facts, or would
        need a special effect that deletes objects, get none (they add 0 to the bound).
    """
    view = _TaskView(task)
    creators = view.creators
    # Objects that creation may add but that the goal never names (water beyond the first):
    # facts about them are left out (a projection onto fewer facts still never overestimates)
    # unless a special effect of the projection reads them.
    unnamed = set(range(task.num_initial_objects, len(task.objects))) - view.subjects
    projected = _projection_objects(task, view)
    projected_set = set(projected)
    status = _status_facts(task, view)
    hold, hand_facts = _hands(view, projected_set)
    # No robot comes to a station where another stands (with one robot, trivially): the
    # arrivals of several robots need it. The lifts and the parks need it too, and every
    # robot's hand proven to hold one thing at a time.
    one_robot_per_station = len(view.robots) == 1 or _one_robot_per_station(task, view)
    robots_proven = one_robot_per_station and all(
        any(r in view.args(f) for f in hand_facts) for r in view.robots
    )
    # Every station holds one stack, from the start on: the lifts' bottoms and buried objects.
    stacks_proven = _stack_shapes(task.domain) and stations_hold_stacks(task, task.initial_bits)
    charged, movers = _charges(view, projected, hold, hand_facts, creators, status)
    robot_place = {
        f
        for f in view.mutable_facts
        if f not in hand_facts
        and view.args(f)
        and any(a in view.robots for a in view.args(f))
        and all(a not in projected_set for a in view.args(f))
        and any(a not in view.robots for a in view.args(f))
    }
    arrivals_apply = arrivals and _arrival_shapes(task.domain) and one_robot_per_station
    slot_of = {r: k for k, r in enumerate(sorted(view.robots))}
    objects: list[int] = []
    rows: list[tuple[list[int], ...]] = []

    named = view.named
    owner: list[int] = task.owner.tolist()
    nothing_facts = view.facts_named("nothing")
    loc_facts = view.facts_named("loc")
    container_at_facts = view.facts_named("container_at")

    def frees_hand(g: int) -> bool:
        return not nothing_facts.isdisjoint(view.eff[g]) and any(
            value == 1 and f in nothing_facts for f, value in zip(view.eff[g], view.eff_value[g])
        )

    def containers_needed(g: int) -> set[int]:
        """The containers that grounding g needs at its acting robot's station."""
        pre = view.pre_pos[g]
        if container_at_facts.isdisjoint(pre):
            return set()
        robot = owner[g]
        stations = {a for f in pre if f in loc_facts for a in view.args(f) if a != robot}
        return {
            view.args(f)[0] for f in pre if f in container_at_facts and view.args(f)[1] in stations
        }

    all_hold_facts = {f for pairs in hold.values() for _, f in pairs}
    container_at_of: dict[int, set[int]] = {}
    for f in container_at_facts:
        container_at_of.setdefault(view.args(f)[0], set()).add(f)

    def drops_at_its_station(o: int, held: set[int]) -> bool:
        """Whether every step that takes container o out of a hand puts it at that robot's place.

        No other container can stand there then (one per station).
        """
        for f in held:
            for g in view.writers.get(f, []):
                if view.final[g].get(f) != 0:
                    continue
                robot = owner[g]
                stations = {
                    view.args(at)[1]
                    for at in view.pre_pos[g]
                    if at in loc_facts and view.args(at)[0] == robot
                }
                put = {
                    view.args(at)[1]
                    for at in container_at_of.get(o, set())
                    if view.final[g].get(at) == 1
                }
                if not put or not put <= stations:
                    return False
        return True

    def keeps_held(g: int) -> bool:
        """Whether g needs its robot to hold some projection object and leaves it held."""
        held = all_hold_facts.intersection(view.pre_pos[g])
        return bool(held) and not any(
            value == 0 and f in held for f, value in zip(view.eff[g], view.eff_value[g])
        )

    # Per container, the groundings that free the acting robot's hand at its station (an
    # ingredient added to a pot): a robot may arrive there holding something and still pick
    # the container up next (see "Arrivals").
    freeing_at: dict[int, list[int]] = {}
    # Hand-overs: groundings that need a container at the robot's station while its hand holds
    # a projection object, which they put into it or keep (the pot poured into the bowl).
    # A held container meets another only where a station provably holds one at a time.
    invariants = object_invariants(task, view)
    containers_meet = _one_container_per_station(view, invariants)
    hand_overs: set[int] = set()
    receivers: set[int] = set()
    for g in range(len(view.eff)):
        if owner[g] < 0:
            continue
        containers = containers_needed(g)
        if not containers:
            continue
        if frees_hand(g):
            for c in containers:
                freeing_at.setdefault(c, []).append(g)
        if frees_hand(g) or (containers_meet and keeps_held(g)):
            hand_overs.add(g)
            receivers |= containers

    # Full hands (see "Arrivals" in projection.h): per robot slot, its free-hand fact where
    # every pick by that robot needs it, so a robot that holds something must free its hand
    # first; at an object's station it can do that only in ways that leave the object unpicked
    # until it moves (items) or that its row sees (a container's freeing steps).
    free_hands: list[int] = []
    if arrivals_apply:
        for robot in sorted(view.robots):
            free = task.fact_of("nothing", [robot])
            picks = [
                g
                for f in range(view.num_pred)
                if (named(f, "has_item") or named(f, "has_container")) and view.args(f)[0] == robot
                for g in view.writers.get(f, [])
                if dict(zip(view.eff[g], view.eff_value[g])).get(f) == 1
            ]
            proven = free in hand_facts
            free_hands.append(
                free if proven and all(free in view.pre_pos[g] for g in picks) else -1
            )

    # arrivals_apply includes one robot per station where there are several robots.
    hand_overs_apply = arrivals_apply and _hand_over_shapes(task.domain)

    # Where a robot stands at a container that a hand-over may need (see the tables).
    hand_over_places: list[int] = []
    if hand_overs_apply:
        robots_at: dict[int, list[tuple[int, int]]] = {}  # station -> (slot, position fact)
        for f in range(view.num_pred):
            if named(f, "loc") and view.args(f)[0] in slot_of:
                robot, station = view.args(f)
                robots_at.setdefault(station, []).append((slot_of[robot], f))
        for f in range(view.num_pred):
            if named(f, "container_at") and view.args(f)[0] in receivers:
                for slot, at in sorted(robots_at.get(view.args(f)[1], [])):
                    hand_over_places += [slot, at, f]

    # Per grounding: the slot of its robot (-1 for none), and whether it changes where that
    # robot stands. The rows read them for thousands of groundings each: built once.
    owner_slot = np.full(len(owner), -1, np.int64)
    for r, k in slot_of.items():
        owner_slot[task.owner == r] = k
    moves_itself = np.zeros(len(owner), bool)
    eff_begin, eff_facts = view.eff_csr[0], view.eff_csr[1]
    writing = np.repeat(np.arange(len(owner)), np.diff(eff_begin))  # per effect, its grounding
    place_fact = np.zeros(max(task.num_pred_facts, int(eff_facts.max(initial=-1)) + 1), bool)
    place_fact[sorted(robot_place)] = True
    moving = np.flatnonzero(place_fact[eff_facts] & (task.owner[writing] >= 0))  # effects
    own = (view.fact_args[eff_facts[moving]] == task.owner[writing[moving]][:, None]).any(axis=1)
    moves_itself[writing[moving[own]]] = True
    def arrival_codes(o: int, facts: set[int], relevant: list[int]) -> tuple[list[int], ...]:
        """Per relevant grounding its arrival code, and the colocated pairs (see the tables)."""
        held = {
            f for _, f in hold.get(o, []) if named(f, "has_item") or named(f, "has_container")
        }
        if not held:
            return [0] * len(relevant), []
        # A hand-over that keeps o (a container) leaves its robot where it cannot put o down.
        stays = containers_meet and o in container_at_of and drops_at_its_station(o, held)
        # (relevant is sorted: a grounding's place in it by bisection.)
        groundings = np.asarray(relevant, np.int64)
        slots = owner_slot[groundings]
        codes = np.where(slots >= 0, moves_itself[groundings], 0).astype(np.int64)
        triples: set[tuple[int, int, int]] = set()  # also without arrivals: the lifts read them
        # (Only a grounding that reads or writes o's hold facts picks, drops, keeps or hands o
        # over.)
        handling = np.asarray(sorted(view.touching(held).intersection(relevant)), np.int64)
        for k, g in zip(np.searchsorted(groundings, handling).tolist(), handling.tolist()):
            slot = int(slots[k])
            if slot < 0:
                continue
            code = int(codes[k])
            effects = view.final[g]
            keeps_o = False  # it needs o in the robot's hand and leaves it there
            for f in held:
                value = effects.get(f)
                if value == 0:
                    code |= 2
                elif value == 1:
                    code |= 4
                if value != 0 and f in view.pre_pos[g]:
                    keeps_o = True
            if code & 4:
                for at_fact in (f for f in view.pre_pos[g] if f in robot_place):
                    station = {a for a in view.args(at_fact) if a not in view.robots}
                    triples.update(
                        (slot, at_fact, f)
                        for f in view.pre_pos[g]
                        if f in facts and f not in robot_place and station & set(view.args(f))
                    )
            # A hand-over puts o into a container at the robot's station (drops o and frees the
            # hand), or needs one there while o stays in the robot's hand.
            if hand_overs_apply and g in hand_overs and (keeps_o or (code & 2 and frees_hand(g))):
                code |= 8
                if keeps_o and stays and o not in containers_needed(g):
                    code |= ARRIVAL_STAYS
            codes[k] = code
        freeing = np.asarray(sorted(set(freeing_at.get(o, [])).intersection(relevant)), np.int64)
        freeing = np.searchsorted(groundings, freeing)
        codes[freeing[slots[freeing] >= 0]] |= ARRIVAL_FREED
        if not arrivals_apply:
            return [0] * len(relevant), [x for triple in sorted(triples) for x in triple]
        codes = np.where(codes != 0, codes + ARRIVAL_SLOT * slots, 0)
        return codes.tolist(), [x for triple in sorted(triples) for x in triple]

    mutexes = union(invariants[o] for o in sorted(projected_set - unnamed))
    mutex_sets = [set(m) for m in mutexes]
    template_touched = set().union(
        *view.template_facts, *view.template_writes, *view.template_needs
    )

    def merges(o: int, facts: set[int]) -> list[int]:
        """Pairs (fact, representative) of P_o's facts that share one bit (see "Invariants").

        Merged: facts that differ only in which other item (not projected, of o's type) they
        name, lie in one invariant, are untouched by templates, are needed by every grounding
        that deletes them, and are never written two at once.
        """
        kind = task.object_type[o]

        def anonymous(a: int) -> bool:
            return a != o and a not in projected_set and task.object_type[a] == kind

        classes: dict[tuple[int, tuple[int, ...]], list[int]] = {}
        for f in sorted(facts - template_touched):
            args = view.args(f)
            if not any(anonymous(a) for a in args):
                continue
            shape = tuple(-1 if anonymous(a) else a for a in args)
            classes.setdefault((int(task.fact_pred[f]), shape), []).append(f)
        pairs: list[int] = []
        for members in classes.values():
            kept = [
                f
                for f in members
                if all(
                    f in view.pre_pos[g]
                    for g in view.writers.get(f, [])
                    if view.final[g].get(f) == 0
                )
            ]
            group = set(kept)
            # One written member per grounding: with two, the order of its writes would decide
            # the bit (delete one, then add another).
            single = all(
                len(group.intersection(view.eff[g])) <= 1
                for g in {g for f in kept for g in view.writers.get(f, [])}
            )
            if len(kept) >= 2 and single and any(group <= m for m in mutex_sets):
                pairs.extend(x for f in kept[1:] for x in (f, kept[0]))
        return pairs

    idling = _idling(view, hand_facts)
    # The groundings charged to some row or writing the hand that may apply while the robot
    # idles (see "Idling"), per kind of object (item or container) and idling key: a row to
    # which one of those it may meet is irrelevant gets no idling.
    unblocked: dict[tuple[bool, int], list[int]] = {}
    idle_groups: list[list[int]] = []
    if idling is not None:
        idle_groups = [sorted(idling.place.values())]
        hand = idling.hand | {idling.free}
        for g in range(len(view.eff)):
            if charged[g] >= 0 or g in movers or not hand.isdisjoint(view.eff[g]):
                for item, keys in ((True, idling.item_key), (False, idling.container_key)):
                    if keys[g] != NO_OBJECT:
                        unblocked.setdefault((item, keys[g]), []).append(g)

    hand_groups = [
        sorted(f for f in hand_facts if r in view.args(f))
        for r in sorted(view.robots)
        if any(r in view.args(f) for f in hand_facts)
    ]

    goal_predicates = _goal_predicates(task)

    # Per robot and set of its position facts: away_robots' tests of the groundings that touch
    # them which do not depend on the row, made once (tens of thousands of moves on the larger
    # multi-agent kitchens, and the same in every row).
    away_shapes: dict[tuple[int, frozenset[int]], _AwayShape] = {}

    def away_shape(robot: int, place: frozenset[int], station_of: dict[int, int]) -> _AwayShape:
        """The groundings that touch the robot's position facts ``place`` (see away_robots)."""
        found = away_shapes.get((robot, place))
        if found is not None:
            return found
        shape = _AwayShape()
        for g in sorted(view.touching(place)):
            stands = place.intersection(view.pre_pos[g])
            if owner[g] != robot or not place.isdisjoint(view.pre_neg[g]) or len(stands) != 1:
                shape.failing.append(g)
                continue
            (here,) = stands
            final = view.final[g]
            if place.isdisjoint(final):
                shape.others[g] = here
                continue
            # A move: from here to one other station, no more (in the row: see away_robots).
            there = [f for f, value in final.items() if value == 1 and f in place]
            if len(there) != 1 or {f: v for f, v in final.items() if f in place} != {
                here: 0,
                there[0]: 1,
            }:
                shape.failing.append(g)
                continue
            outside = view.touches(g) - place
            started = frozenset(view.sfx[g])
            shape.moves[g] = ((station_of[here], station_of[there[0]]), outside, started)
            shape.outside |= outside
            shape.started |= started
        away_shapes[(robot, place)] = shape
        return shape

    def away_robots(
        facts: set[int],
        templates: set[int],
        relevant: list[int],
        codes: list[tuple[int, ...]],
        holds: list[int],
        pairs: list[int],
        idle: list[int],
    ) -> list[int]:
        """Which robots the row may place anywhere while they are away (see "Away robots").

        Returns the slots of those robots as a mask, then (slot, position fact, station)
        triples of every robot's positions in the row; empty when no robot qualifies. ``codes``
        holds each relevant grounding's cost, arrival and idle codes.
        """
        positions: dict[int, dict[int, int]] = {}  # robot -> station -> its position fact
        for f in robot_place & facts:
            args = view.args(f)
            if len(args) != 2 or args[0] not in slot_of:
                return []
            positions.setdefault(args[0], {})[args[1]] = f
        colocated = {(pairs[k], pairs[k + 1], pairs[k + 2]) for k in range(0, len(pairs), 3)}
        colocated_at: dict[tuple[int, int], set[int]] = {}  # (slot, position) -> object facts
        for slot, robot_at, object_at in colocated:
            colocated_at.setdefault((slot, robot_at), set()).add(object_at)
        code_of = dict(zip(relevant, codes, strict=True))
        mask = 0
        for robot, at in sorted(positions.items()):
            slot = slot_of[robot]
            place = set(at.values())
            held = {f for r, f in zip(holds[::2], holds[1::2]) if r == robot}
            if (
                {int(task.fact_pred[f]) for f in place} & goal_predicates
                or place & template_touched  # (what templates read is in it too)
                or any(m & place and not m <= robot_place for m in mutex_sets)
                or any(
                    robot_at in place and (slot, robot_at, object_at) not in colocated
                    for robot_at, object_at in zip(idle[::4], idle[1::4])
                )
            ):
                continue
            station_of = {f: station for station, f in at.items()}
            # The relevant groundings that touch where the robot stands (place is part of
            # facts): its moves and its steps at a station, each of one shape.
            shape = away_shape(robot, frozenset(place), station_of)
            if any(g in code_of for g in shape.failing):
                continue
            # A move may touch no other fact of the row, nor start a template of it.
            quick = facts.isdisjoint(shape.outside) and templates.isdisjoint(shape.started)
            moves: dict[tuple[int, int], tuple[int, ...]] = {}
            fits = True
            for g in sorted(code_of.keys() & shape.moves.keys()):
                pair, outside, started = shape.moves[g]
                if not quick and not (facts.isdisjoint(outside) and templates.isdisjoint(started)):
                    fits = False
                    break
                moves[pair] = code_of[g]
            twins: dict[tuple[object, ...], set[int]] = {}
            for g in code_of.keys() & shape.others.keys() if fits else ():
                here = shape.others[g]
                pre = facts.intersection(view.pre_pos[g])
                if held & pre or not colocated_at.get((slot, here), set()).isdisjoint(pre):
                    continue  # it holds o, or stands where it could pick o up: not away
                shape_key = (
                    code_of[g],
                    frozenset(pre - {here}),
                    frozenset(facts.intersection(view.pre_neg[g])),
                    frozenset((f, v) for f, v in view.final[g].items() if f in facts),
                    frozenset(set(view.sfx[g]) & templates),
                )
                twins.setdefault(shape_key, set()).add(station_of[here])
            stations = set(at)
            every_move = {(a, b) for a in stations for b in stations if a != b}
            if (
                fits
                and set(moves) == every_move
                and len(set(moves.values())) <= 1
                and all(found == stations for found in twins.values())
            ):
                mask |= 1 << slot
        if not mask:
            return []
        triples = sorted(
            (slot_of[robot], f, station)
            for robot, at in positions.items()
            for station, f in at.items()
        )
        return [mask, *(x for triple in triples for x in triple)]

    def idle_tables(o: int, facts: set[int], relevant: list[int]) -> tuple[list[int], list[int]]:
        """The row's idle quadruples and, per relevant grounding, its idle code (see the tables)."""
        none: tuple[list[int], list[int]] = ([], [0] * len(relevant))
        if idling is None:
            return none
        tops = [f for f in facts if named(f, "clear") and view.args(f) == [o]]
        item = any(named(f, "item_at") and view.args(f)[0] == o for f in facts)
        if item and not tops:
            return none
        at = {
            view.args(f)[1]: f
            for f in facts
            if named(f, "item_at" if item else "container_at") and view.args(f)[0] == o
        }
        places = [
            (idling.place[s], f) for s, f in sorted(at.items()) if idling.place.get(s) in facts
        ]
        seen = set(relevant)
        if not places or any(
            g not in seen
            for key in (ANY_OBJECT, o)
            for g in unblocked.get((item, key), [])
        ):
            return none
        top = tops[0] if item else -1
        quadruples = [x for loc, f in places for x in (loc, f, top if item else f, idling.free)]
        # An item directly on the station is at it too (every station holds one stack).
        on = {
            view.args(f)[1]: f for f in facts if named(f, "item_on") and view.args(f)[0] == o
        }
        keys = np.asarray(idling.item_key if item else idling.container_key)[relevant]
        codes = np.where((keys == ANY_OBJECT) | (keys == o), 0, IDLE_BLOCKED)
        for k, g in enumerate(relevant):
            # Only a grounding that needs or frees an empty hand can leave one.
            if idling.free not in view.pre_pos[g] and idling.free not in view.eff[g]:
                continue
            after = set(view.pre_pos[g])
            for f, value in zip(view.eff[g], view.eff_value[g]):
                (after.add if value else after.discard)(f)
            if idling.free in after and any(
                loc in after
                and (f in after or on.get(view.args(f)[1], -1) in after)
                and (not item or top in after)
                for loc, f in places
            ):
                codes[k] += IDLE_SETS
        return quadruples, codes.tolist()

    def row(o: int, places: bool, variant: _Variant | None = None) -> tuple[list[int], ...] | None:
        # o's facts with robots and non-projection objects, and with other projection objects
        # where o comes first (o stacked on x: leaving it out would let o leave x unnoticed).
        # A creator's variant (see "Creators" in projection.h) leaves out every fact, template
        # and grounding that names another creator of its group.
        others = variant.others if variant else set()
        facts = {
            f
            for f in view.mutable_facts
            if o in view.args(f)
            and (
                view.args(f)[0] == o or all(a == o or a not in projected_set for a in view.args(f))
            )
            and unnamed.isdisjoint(view.args(f))
            and f not in status
        }
        # A creator also keeps the facts about what it may create (as their subject: the
        # water's, not an item's added to it), their existence, and the facts that actions
        # change together with them (the bowl's emptiness, so the water is poured out once).
        # A variant keeps only the made objects it is for.
        made = variant.made if variant else creators.get(o, set())
        if made:
            about_made = {
                f
                for f in view.mutable_facts
                if view.args(f) and view.args(f)[0] in made
            }
            facts |= about_made | ({int(task.exists_fact[m]) for m in made} - {-1})
            for g in range(len(view.eff)):
                if not about_made.isdisjoint(view.eff[g]):
                    facts.update(
                        f for f in view.eff[g] if not view.robots.intersection(view.args(f))
                    )
        if places:
            facts |= robot_place
        facts = {f for f in facts if others.isdisjoint(view.args(f))}
        # The templates that write a fact of P_o, closed under theirs: what they read is in P_o
        # too. (Templates that only read P_o, such as the boiling of water that P_o leaves
        # out, change nothing in it.)
        templates: set[int] = set()
        while True:
            for t in templates:
                facts |= (view.template_facts[t] - status) | view.template_needs[t]
            more = {
                t
                for t, writes in enumerate(view.template_writes)
                if t not in templates and writes & facts and (not variant or t not in variant.away)
            }
            if not more:
                break
            templates |= more
        if len(facts) > MAX_FACTS or any(view.template_deletes[t] for t in templates):
            return None
        appear: list[int] = []
        if variant:
            # The existence of pool objects after all it is for decides nothing it keeps: the
            # objects a creation may then make are left out ("Creators" in projection.h).
            facts -= variant.late
            appearing = _appearing(view, variant, facts)
            if appearing is None or not others.isdisjoint(a for f in facts for a in view.args(f)):
                return None
            appear = appearing
        relevant = sorted(
            (
                {g for f in facts for g in view.writers.get(f, [])}
                | {g for t in templates for g in view.starters.get(t, [])}
                | (set(freeing_at.get(o, [])) if places and arrivals_apply else set())
            )
            - (variant.never if variant else set())
        )
        costs = [
            1 if charged[g] == o else (2 if g in movers and places else 0) for g in relevant
        ]
        holds = [x for r, f in hold.get(o, []) for x in (r, f)]
        arrivals, pairs = (
            arrival_codes(o, facts, relevant) if places else ([0] * len(relevant), [])
        )
        idle, idle_codes = idle_tables(o, facts, relevant) if places else ([], [0] * len(relevant))
        # Covered objects (see "Arrivals"): a pick of an item needs it clear, and the robot at
        # its station can uncover it only by filling its hand.
        item = any(named(f, "has_item") for _, f in hold.get(o, []))
        covered = task.fact_of("clear", [o]) if places and arrivals_apply and item else -1
        # Facts that the arrivals, the hand and idling read one by one keep their own bits.
        mergeable = facts - set(holds[1::2]) - set(pairs[1::3]) - set(pairs[2::3]) - set(idle)
        away = (
            away_robots(
                facts,
                templates,
                relevant,
                list(zip(costs, arrivals, idle_codes)),
                holds,
                pairs,
                idle,
            )
            if places and arrivals_apply and pairs
            else []
        )
        return (
            sorted(facts),
            sorted(templates),
            relevant,
            costs,
            holds,
            arrivals,
            pairs,
            merges(o, mergeable),
            idle,
            idle_codes,
            [covered],
            away,
            appear,
        )

    # With the robots' positions (moves cost while o is held), and, as a fallback when that
    # abstraction is too large (several robots), without them (moves are free). A creator of a
    # group (see "Creators" in projection.h) has them once per nonempty subset of the group's
    # made objects, a variant each; a group where some variant has no row keeps plain rows.
    def rows_of(o: int, variant: _Variant | None = None) -> list[tuple[list[int], ...]]:
        places = [True, False] if o in hold else [False]
        return [r for r in (row(o, p, variant) for p in places) if r is not None]

    labelled: dict[int, list[tuple[list[int], set[int], list[tuple[list[int], ...]]]]] = {}
    groups: list[_CreatorGroup] = []
    for group in _creator_groups(task, view):
        found = {
            (slot, mask): (v, rows_of(c, v))
            for slot, c in enumerate(group.creators)
            for mask in range(1, 1 << len(group.made))
            for v in [_variant(view, group, c, mask)]
        }
        if all(built for _, built in found.values()):
            for (slot, mask), (v, built) in found.items():
                label = [len(groups), slot, mask]
                labelled.setdefault(group.creators[slot], []).append((label, v.forbid, built))
            groups.append(group)
    for o in projected:
        for label, forbidden, built in labelled.get(o) or [([-1, -1, 0], set(), rows_of(o))]:
            for k, variant in enumerate(built):
                objects.append(o)
                head = (*variant[:5], [1 if k else 0], *variant[5:12])
                rows.append((*head, sorted(forbidden), label, variant[12]))
    key_vars = _key_variables(task)
    # Robots are never swapped (arrival codes name their slots); nor are key values.
    fixed = {c for v in key_vars for c in task.goal_candidates[v]} | set(view.robots)
    share, share_templates = _shared_rows(task, objects, rows, mutexes, fixed)
    swap_facts, swap_templates, swap_slots = _robot_swaps(task, rows, mutexes, list(view.robots))

    def csr(column: int) -> tuple[IntArray, IntArray]:
        parts = [row[column] for row in rows]
        begin = np.cumsum([0, *(len(p) for p in parts)]).astype(np.int64)
        return begin, np.array([x for p in parts for x in p], np.int64)

    mutex_begin = np.cumsum([0, *(len(m) for m in mutexes)]).astype(np.int64)
    fact_begin, facts_flat = csr(0)
    template_begin, templates_flat = csr(1)
    grounding_begin, groundings_flat = csr(2)
    _, costs_flat = csr(3)
    hold_begin, hold_flat = csr(4)
    _, fallback = csr(5)
    _, arrivals_flat = csr(6)
    colocated_begin, colocated = csr(7)
    merge_begin, merge_pairs = csr(8)
    idle_begin, idle = csr(9)
    _, idle_codes = csr(10)
    _, clear_facts = csr(11)
    away_begin, away = csr(12)
    forbid_begin, forbid = csr(13)
    appear_begin, appear = csr(15)
    variants = np.array([x for r in rows for x in r[14]] if groups else [], np.int64)
    if not groups:
        forbid_begin = appear_begin = np.zeros(0, np.int64)
    idle_begin //= 4
    merge_begin //= 2
    hold_begin //= 2
    colocated_begin //= 3
    lifts = _lifts(task, view, key_vars, robots_proven, stacks_proven)
    return ProjectionTables(
        objects=objects,
        fact_begin=fact_begin,
        facts=facts_flat,
        template_begin=template_begin,
        templates=templates_flat,
        grounding_begin=grounding_begin,
        groundings=groundings_flat,
        costs=costs_flat,
        hold_begin=hold_begin,
        hold_facts=hold_flat,
        key_vars=key_vars,
        fallback=fallback,
        arrivals=arrivals_flat,
        colocated_begin=colocated_begin,
        colocated=colocated,
        lifts=lifts,
        lift_stacks=_lift_stacks(task) if lifts and stacks_proven else [],
        clearing=_clearing(
            task, view, projected_set, charged, movers, arrivals_apply, robots_proven, key_vars
        ),
        merge_begin=merge_begin,
        merges=merge_pairs,
        mutex_begin=mutex_begin,
        mutex_facts=np.array([f for m in mutexes for f in m], np.int64),
        share=np.array(share, np.int64),
        share_template_begin=_pair_offsets(share_templates),
        share_templates=np.array([x for t in share_templates for x in t], np.int64),
        robot_swap_fact_begin=_pair_offsets(swap_facts),
        robot_swap_facts=np.array([x for t in swap_facts for x in t], np.int64),
        robot_swap_template_begin=_pair_offsets(swap_templates),
        robot_swap_templates=np.array([x for t in swap_templates for x in t], np.int64),
        robot_swap_slots=np.array(swap_slots, np.int64),
        hand_over_places=np.array(hand_over_places, np.int64),
        idle_begin=idle_begin,
        idle=idle,
        idle_codes=idle_codes,
        idle_group_begin=np.cumsum([0, *(len(g) for g in idle_groups)]).astype(np.int64),
        idle_groups=np.array([f for g in idle_groups for f in g], np.int64),
        hand_group_begin=np.cumsum([0, *(len(g) for g in hand_groups)]).astype(np.int64),
        hand_groups=np.array([f for g in hand_groups for f in g], np.int64),
        free_hands=np.array(free_hands, np.int64),
        clear_facts=clear_facts,
        away_begin=away_begin,
        away=away,
        forbid_begin=forbid_begin,
        forbid=forbid,
        variants=variants,
        appear_begin=appear_begin,
        appear=appear,
    )


def _pair_offsets(rows: list[list[int]]) -> IntArray:
    """CSR offsets, in pairs, of rows of flat pairs."""
    return np.cumsum([0, *(len(r) // 2 for r in rows)]).astype(np.int64)


__all__ = ["MAX_FACTS", "ProjectionTables", "find_projections"]

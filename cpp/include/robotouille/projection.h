/*
 * The projection bound for A* (search.h): a sum, over projection objects, of exact goal
 * distances in the task projected onto each object's facts, under a cost partition. See
 * python/robotouille/projections.py for how the projections and the partition are chosen and
 * why the sum never overestimates; this file only computes it.
 *
 * A projection keeps a set F of facts (at most 192) and a set T of special-effect templates:
 * every template that writes a fact of F is in T, and the templates of T read only facts of F
 * (for a creation, the existence facts that pick the object it makes); what they write outside
 * F is dropped. An abstract state is F's truth values plus the templates of T in the active
 * list, in order, with their node words. A grounding applies when its
 * preconditions that are in F hold; it then runs exactly as in the engine (immediate effects,
 * templates started, one end-of-step pass), and the result is projected back (templates outside
 * T are dropped: they write no fact of F). Waiting (the end-of-step pass alone) costs 0. A
 * grounding costs what the partition charges this projection (1, 0, or 1 only while the acting
 * robot holds the object). The abstract goal: the real goal with every fact outside F taken as
 * true (goal atoms are positive, so every real goal state projects into it).
 *
 * Key variables: goal variables that several objects' atoms share (the table a burger stands
 * on) are fixed jointly. For each combination c of their values every projection gets its own
 * distances d_o,c (the goal with the key variables bound to c), and the bound is
 * min_c sum_o d_o,c: a real plan reaches the goal under some combination, and under it every
 * projection's argument above holds.
 *
 * Roles: the goal's other variables pick which object plays which part (which of three
 * lettuces goes in the sandwich, which bread is the bottom slice). An object o that is a
 * candidate of non-key variables of a single variable group G (its roles) gets one distance per
 * role v, d_o,c,v: the goal with the key variables bound to c and v bound to o. An object that
 * plays no role needs no move (no goal atom names it), so it costs 0. Per group, the bound takes
 * the cheapest assignment of G's variables to distinct objects (a matching, by dynamic
 * programming over subsets of the variables; a variable with a candidate outside the built
 * projections may take it for free). A real plan ends in a goal state under some assignment;
 * under it, each object's projected plan reaches its role's goal (or, without a role, costs at
 * least 0), so the matching never exceeds the real cost. Other objects (candidates in several
 * groups, or of a group with more than kMaxRoleVars variables) keep one distance per
 * combination: the goal with only the key variables bound.
 *
 * Arrivals: before a robot picks an item up at a station it must stand there with empty
 * hands. Arriving with something in hand does not do: the only places to put it down there (on
 * the station, which must be empty; into a container on it; on top of the clear item there)
 * leave no item at that station clear for a pick until the robot's hand is full again, and no
 * other robot can act at that station meanwhile (python/robotouille/projections.py checks that
 * the domain's actions have these shapes). So every pick by robot r that follows a move of r
 * since r last put that item down comes right after an empty-handed arrival of r, a move the
 * partition charges to nobody, and different picks come after different arrivals. A projection
 * with arrivals therefore carries one more bit per robot, "r has moved since it last put the
 * object down", set by r's moves and cleared by r's drops, and a pick by r with r's bit set
 * costs 1 more. The bits are history, not state. While r does not stand where the item is (it
 * lies elsewhere, or is in a hand), r can pick it up next only after a move of its own, which
 * sets r's bit, or after putting it down, which clears the bit anyway (r cannot stay while the
 * item is brought to it: its station is not vacant). Construction therefore sets r's bit after
 * every step that leaves r away from the item: every real plan still maps to an abstract plan
 * that pays the same at each pick, and the bits vary only in the states where r stands at the
 * item's station (about a sixth more states with two robots, not a factor of 4). A state's
 * bound is read with r's bit clear where r stands at the item's station (its arrival, if any,
 * is already paid for) and set elsewhere; construction also enumerates this canonical twin of
 * every state. Full hands: where every pick by r needs r's hand free (free_hands), a robot
 * standing at the item's station with its hand full is read with its bit set all the same. It
 * must free its hand before it picks the item up, and the ways to do that there leave no item
 * clear for a pick until its hand is full again, while no other robot acts at that station; so
 * r moves before that pick, which again comes right after an empty-handed arrival still to
 * come. So is a robot standing there empty-handed while the item is covered (not clear: every
 * pick needs it clear), where the tables name the item's clear fact (clear_facts): only that
 * robot can act there, and taking the item above off fills its hand. A state read so that was
 * never reached is read with the bit clear.
 *
 * A container c is picked up the same way, except that r may also arrive holding something
 * and free its hand at c's station (add an ingredient to a pot): a station that holds c holds
 * no item and no other container, so the only hand-freeing steps there need c at r's station.
 * A pick of c by r that follows a move of r since r last put c down therefore comes right after
 * an empty-handed arrival of r or right after such a step (kArrivalFreed), and the step clears
 * r's bit as putting c down does. The projection checks only the step's own facts in P_c (the
 * pot holds water, r stands at it), not what r holds, so it may free a hand that holds
 * nothing: that allows more, never less. A robot standing at c with a full hand is read with
 * its bit set too (see "Full hands" above): it moves before it picks c up, or frees its hand
 * by such a step first, which c's row sees (projections.py adds every one to the row) and
 * which clears the bit there, as it does after a robot's arrival holding something.
 *
 * Hand-overs: an item a robot puts into a container at its station (an ingredient added to a
 * pot) was carried there: when the robot picked it up, the item lay at its station, which
 * therefore held no container, and no container can arrive while the robot stands there
 * holding the item (containers move only in hands, so only a robot standing at a station puts
 * one there; the only hand of that robot is full, and with several robots no other robot can
 * come to a station where one stands). So a move comes between every pick of the item and
 * its hand-over. The same holds for every step that needs a container at r's station while r
 * holds the object and keeps it (the pot poured into the bowl): where r picked up a pot no
 * other container stood (a station holds one container at a time, a proven invariant), and
 * none can come there while r stands there holding the pot. A row with hand-overs carries one
 * more bit per robot, "r has picked the object up and has neither moved nor put it down
 * since", set by r's picks and cleared by r's moves and drops, and r's hand-over needs it
 * clear. A real state's bound is read with r's bit set where r holds the object and no
 * container that a hand-over needs stands at r's station (it must move before it can hand the
 * object over, whatever it did before), and clear elsewhere, which allows the most; where that
 * state was never reached, with the bits clear. (One list of such containers serves every row:
 * an ingredient held at a bowl, or a pot held at another pot, is read with its bit clear.)
 * python/robotouille/projections.py checks that the domain's actions have these shapes and,
 * with several robots, that they keep one robot per station.
 * Such a hand-over that keeps the object, a container (the pot poured into the bowl), leaves r
 * at a station where another container stands, and r cannot put the object down there: every
 * step that takes it out of r's hand puts it at r's station (projections.py checks it, code
 * kArrivalStays), where a second container cannot stand. The other container stays while r
 * does (only a robot at that station could take it, and r's hand is full), so r moves before
 * it next puts the object down. A row with such hand-overs carries one more bit per robot,
 * "r has handed the object over, keeping it, and has not moved since", set by those hand-overs
 * and cleared by r's moves and drops; r's drop needs it clear. So pouring at a sink and putting
 * the pot down right there for more water costs the move that the bowl standing there forces.
 * A real state is read with r's bit set where r holds the object and a container that a
 * hand-over needs stands at r's station (r moves before it puts the object down), and clear
 * elsewhere; where that state was never reached, with the bits clear.
 *
 * Idling: with one robot, while it stands empty-handed at the station of o, o being the clear top
 * item there (or the container there), every step it can take is a move, a step that o's
 * projection sees (an action on o), or a step that no projection is charged for (waiting):
 * any other needs a full hand, or the station empty, or a container or another clear item
 * there (python/robotouille/projections.py checks every grounding, and that every station
 * holds one stack; it gives no idle places to a row where some grounding the row does not see
 * could apply there and is charged or writes the hand). So a step that o's projection sees as
 * waiting is then a real step charged to nobody, and only o's projection is in that situation
 * (a station has one top). A row with idling carries one more bit, "the robot idles at o":
 * set by the groundings after which it provably does (putting o down, cooking it: idle code
 * kIdleSets), kept by waiting, cleared by every other step; while it is set, waiting costs 1
 * and the groundings that cannot apply then (they need a full hand, or something at the
 * station that o rules out: kIdleBlocked) are left out. Every real plan maps to an abstract
 * plan in which the bit is set only where the robot really idles at o, so its waits there are
 * real waits and its cost stays at most the real one. A real state is read with the bit set
 * where the robot idles at o (its free-hand fact, outside F, read from the state), so
 * construction also enumerates the bit-set twin of every state where the robot stands beside
 * o; where that state was never reached, it is read with the bit clear.
 *
 * Lifts: a role whose goal wants its object at a station K (a key variable: the sandwich's
 * table) while other goal objects, its companions, must join it there in a way that needs the
 * object out of the way first. Two kinds, both where every robot's hand holds one thing at a
 * time (projections.py checks the domain's actions have the shapes each argument rests on):
 *   - The role wants its object at K above a companion (clear on top of K's stack, like the
 *     top bread, or above it in the goal's chain of atop atoms). A companion not at K yet gets
 *     there from the hand of a robot standing at K, onto the top of K's stack; the object
 *     must end above it, and a stack changes only at its top. So right before the companion's
 *     last arrival at K the object is not at K, and a robot stands at K without holding it
 *     (its hand holds the companion).
 *   - A companion must be the bottom of K's stack (item_on: the bottom bread), and no candidate
 *     of it is there now. It gets there when a robot standing at K puts it down on the empty
 *     station (every station holds one stack, so empty means no item at all). So right before
 *     that, the object is not at K, and a robot stands at K without holding it.
 * When, under combination c, some companion variable has no candidate where it must be, the
 * role's distance is therefore the distance through an abstract state like that (its "via"
 * table, from a second backward search seeded with the goal distances of those states), not
 * its plain goal distance. With several robots (projections.py then also checks that no robot
 * comes to a station where another stands) no robot holding o stands at K then either: the one
 * there holds the companion. What F does not keep (a robot's position, its hand) is taken to
 * allow the state, so every real plan still passes through a via state.
 * Buried objects: where every station holds one stack (python/robotouille/projections.py
 * checks the stack shapes, and passes the atop facts), a companion y of the first kind that
 * stands at K above o must still arrive there once more. It must end below o, the order of two
 * items of one stack changes only when one of them leaves it, and o cannot leave while covered:
 * so y leaves K first. Right before y's last arrival at K, o is not at K (y would end above it
 * otherwise, and stay there) and a robot stands at K holding y. So where o stands at K and every
 * candidate of some companion variable (other than o itself) is away from K or above o (not in
 * the chain of atop facts below o), o's role costs its via distance too: a spare bread buried
 * under the sandwich's filling can be its top only by leaving the table and coming back. (For a
 * companion of the second kind the test asks no more than "no candidate there": the bottom of
 * K's stack lies below o.)
 *
 * Parks: where a lifted role's companion variable x (not at K under the combination) has an open
 * clearing requirement whose only station is s (x's atom P still to be made true there;
 * python/robotouille/projections.py checks that every step taking a candidate of x off s needs it
 * clear and its robot there with an empty hand, that every step making P true of an object needs
 * it on s, and that s is no candidate of a key variable). The object y that ends as x is made P on
 * s, the last time with y on s and clear, so alone there; its next departure from s comes before
 * its last arrival at K (it must end at K, which is not s), and only items put on y come to s
 * meanwhile, so s holds y alone at that departure too. Right before it a robot r stands at s with
 * an empty hand, so r does not hold the lifted object o, and o is not at s. Then comes the lift's
 * via state (see "Lifts"), right before y's last arrival at K. So every real plan passes through
 * such a state at s and then through a via state, and o's role costs at least its "park"
 * distance: the distance through a state where o is not at s, some robot stands at s without
 * holding o, and none stands there holding it, followed by a via state (a third backward
 * search, seeded at those states with their via distances). What F does not keep (a robot's
 * position or hand) is taken to allow the state.
 * Where o stands on s now (the top bread on the stove where the chicken must cook), that counts
 * o's parking: it must leave s before the chicken can cook, and can reach K only after the
 * chicken does. With several robots (projections.py then also checks one robot per station)
 * another robot may hold o meanwhile, but not at s, where r stands: a robot that holds o at s
 * must leave, and come to K later.
 *
 * Clearing: a goal atom P(x) that no candidate of x satisfies yet, with no special effect
 * running that could make it true, needs a grounding that makes it true or starts such an
 * effect. Where every such grounding needs item_on(y, s) and clear(y) for a projection object
 * y (cooking, cutting, frying), station s then holds y alone: every item in s's stack now has
 * left it by then. Take the items that no row is for and that lie on the station or on another
 * such item (python/robotouille/projections.py, _clearing): their first pick from s changes no
 * row's facts, and the tables charge it to nobody (a pick of an item off a projection object
 * changes that object's facts, and is charged to it). So for such a station the k items there
 * cost k picks that no row pays for. With arrivals (see above), each of those picks is also the
 * first pick after an empty-handed arrival of its robot at s, except for at most one made by a
 * robot that stands at s with an empty hand now: two picks at s need a move in between (the
 * first fills the hand, and only putting the item back on the stack could empty it there), or
 * another robot, which cannot stand at s meanwhile. Those arrivals are charged to nobody and
 * are not the arrivals the rows count, which come before their own objects' picks. Where, in
 * addition, every such grounding needs its robot at s with an empty hand, so does the picking
 * robot's next step with the item (its follow-up): while it stands at s holding the item, no
 * other robot acts at s and it cannot act there itself with a full hand, except by putting the
 * item back on the support it took it from (the stack below is unchanged); so it either does
 * that, or moves holding the item (charged to nobody: no row is for the item), before s can
 * hold y alone. Follow-ups are neither picks nor empty-handed moves, and each comes before the
 * next pick of its robot, so they are distinct steps too (the tables check that no row is
 * charged for putting the item on or taking it off such a support). A requirement therefore
 * adds the least such cost over its stations (k picks, plus k arrivals less one where a robot
 * stands ready, plus k follow-ups, as the tables' mode allows); requirements whose stations
 * overlap form a group that adds its largest, and groups (disjoint stations: different items)
 * add up. Every step counted is one that no row is charged for, so the sum stays admissible.
 * Covering candidates: a projection object o in the stack at such a station s that no such
 * grounding needs there (not one of the y), where every step that puts o on s or takes it off is
 * charged to o's row, must leave s too, in a pick charged to o, and the arrival and the follow-up
 * around it (as above) are charged to nobody or to o. Where o is a member of a role group, its
 * row adds nothing under an assignment in which it plays no role, so nothing counts those steps
 * there: while a requirement whose only station is s is open, the matching charges such an o
 * that plays no role its skip cost (its pick, plus its arrival and follow-up as the mode allows,
 * the arrival only where no robot stands ready at s). Under the real plan's assignment every
 * other row and the clearing term count other steps (other objects' picks, holds and arrivals),
 * so the sum stays admissible.
 *
 * Invariants: the tables may list fact sets of which no reachable state has two true
 * (python/robotouille/invariants.py proves them). A projection checks only the preconditions
 * inside F, so it reaches abstract states that violate one (a bun with several items "on" it);
 * no real state projects onto those, so construction drops every step into one. Every real plan
 * still maps to a projected plan through states that satisfy the invariants, so the distances
 * stay admissible, and the projections get smaller. A start state that itself violates a listed
 * invariant switches them off for that projection.
 *
 * Merged facts: a row may merge facts of one invariant into one bit, their disjunction (which
 * of a dozen distractor items lies on a bun matters less than whether one does). The tables
 * merge only facts that no template reads or writes, that every grounding deleting one needs
 * true, and of which no grounding writes two. Then the bit follows every real step exactly: a
 * grounding that needs a merged fact needs the bit, one that makes it true sets the bit, and one
 * that deletes it had it as the one true fact of its invariant, so the bit clears. A grounding
 * that needs a merged fact false keeps only its other conditions, and the abstract goal takes
 * every merged fact as its bit says. Both only let the projection do more, so it still never
 * overestimates.
 *
 * Timers: an abstract state keeps each running delayed effect's progress coarsely, as 0 ticks
 * or "1 or more, not yet done" (a real state projects that way too). A step then branches over
 * the ways the next tick can go: a timer at 0 completes on it only when its duration is 1; one
 * at "1 or more" completes (it had duration - 1 ticks) or, when its duration is at least 3,
 * keeps running. Every real step maps onto one of those branches, so every real plan still
 * maps to an abstract plan of the same cost. Waiting costs 0, so durations hardly matter to a
 * projection (the time bound charges them); what the coarse progress saves is the product of
 * every paused timer's progress (a pot filled and boiled part way at several sinks and stoves).
 * (A projection whose steps would branch more than 2^8 ways is dropped instead.)
 * The list's order of T's templates is kept too, unless every two of them commute within an
 * end-of-step pass: neither writes what the other reads or writes, or both are conditionals
 * that write nothing when their condition fails and need distinct facts of one invariant that
 * no template writes (so at most one of them acts in a pass). Then the order never changes a
 * step's result, and the key lists them sorted. Only facts of F count here: the templates of T
 * read nothing else, and what they write elsewhere is dropped. (Two cook timers of one chicken
 * on two stoves both write whether it is cooking, each pass; projections.py leaves that fact
 * out of F, so they commute, and the chicken's row lists them in one order, not in all.)
 *
 * Repeated timers: templates of one family (trees of the same shape, goals and effects, whose
 * conditions may differ: cooking one item on either of five stoves) can all be listed at once, in
 * any order and at any progress, and a row counts every such list (a chicken's row without
 * positions: 12k states, 126k while the list's order counted, of which one cook at a time needs
 * 2.3k), so its full row, with the robots' positions on top, often cannot be built at all. A row
 * can instead be built with a sink: one extra abstract state, a goal state of every column (and a
 * via state of every via column, see "Lifts"), with no steps of its own; every step whose result
 * lists two templates of one family leads there instead. This stays admissible: a real plan whose
 * projection never lists two of a family maps onto abstract steps as before, and one that does
 * maps, up to its first step into such a list, onto abstract steps that end in the sink at no more
 * than its cost, after which the sink's 0 is at most what the plan still pays. A real state whose
 * projection lists two of a family, and the sink's key (17 bytes, no real key's length), are looked
 * up in vain, so that state reads 0. But the sink is cheap to reach where a second timer of a
 * family can start soon (a pot filled at a second sink), so a row that repeats timers is built with
 * it only where it is predicted to exceed even the upgrade caps without (it could never be built
 * otherwise; caps grown with a time limit count as they were before growing, except a long
 * search's under a memory budget, kLongUpgradeSeconds: an optimal plan of multi_agent/10 seed
 * 420 fills one pot at two sinks, after which a row with the sink reads 0). A full row
 * predicted so from its fallback is predicted again from its fallback built with the sink (a few
 * thousand states, then dropped), and built with the sink, now or in the upgrade pass, where that
 * prediction fits (it replaces its fallback like any full row). A row
 * whose build goes over its cap and is predicted so from how far it got is built once more at once,
 * with the sink; failing that too, it gets no upgrade. Every other row is built without
 * (ProjectionLimits::timer_sinks = false: every row is).
 *
 * Created objects in order: a pool object exists only once every pool object before it in its
 * creation group does, where the group's objects are never deleted, their existence facts are
 * written only by creations, every creation that can make one of them lists the same pool in
 * the same order, and the existence of the start state's pool is a prefix of it (every
 * creation takes the first free object, so it stays one). Every grounding that names a pool
 * object needs its existence fact (compile.py adds it), so a row also checks that those of the
 * objects before it hold, where they are in F: no real step is left out, since each real state
 * has them. Without it, a row whose F keeps only the goal's pool objects lets a robot add an
 * ingredient to a later water that no state of the row can have (the pot's third) and so free
 * its hand at the pot, which clears its arrival bit: the pot's first pick would cost no arrival
 * (ProjectionLimits::existence_order = false leaves the check out, for comparisons).
 *
 * Creators: where several projection objects (two pots) can each create the goal's created
 * objects (the waters of two soups), each creator's plain row sees the others' steps as free:
 * pot 2 fills, and its water is poured into the bowl, at no cost to pot 1's row (pot 2 is
 * charged, and its place is not in pot 1's row), so both rows count almost nothing. Such a
 * creator p instead has a row per nonempty subset W of the made objects (a "variant"): p's
 * facts, the facts about the objects of W and the existence facts of the pool up to the last
 * object of W, without any fact, template or grounding that names another creator
 * (python/robotouille/projections.py). Call the creator that creates a made object its owner:
 * a made object is created once and never deleted, and only its owner's creation of it makes
 * a fact true that relates it to a creator (projections.py checks both), so whoever holds a made
 * object owns it; give the other made objects an owner at will. Let W_p be the objects p owns
 * under a real plan from a state s. The plan maps into the row for (p, W_p):
 *   - a grounding that names another creator q and needs an object of W_p in q never applies;
 *     the row leaves those out. It keeps the others where they change its facts, checking only
 *     the preconditions among them (pouring q's water makes a bowl full);
 *   - q's templates, left out, change the row's facts only by creating pool objects outside
 *     W_p (creating one of W_p would put it in q), so only existence facts, which the row's
 *     "appearing" steps make true at any time (no grounding, no end-of-step pass, cost 0);
 *     projections.py checks every left-out template for this;
 *   - a creation takes its pool's first free object, so whether p's creation makes an object
 *     of W_p, and which, does not depend on the pool's later objects; what it makes otherwise
 *     changes the row's facts in the same way whichever object it is (their own facts are not
 *     kept). So the row's templates may read those existence facts outside F.
 * The partition is the plain rows', so the sum over creators of their rows for W_p stays within
 * the real cost, and the bound takes, per combination, the least over assignments of made
 * objects to creators of that sum, an empty set costing 0 (a lower bound of any row). A real
 * state in which an object of W is in another creator (a "forbidden" fact of the row) is under
 * no such assignment, since that creator owns it, so the row reads kUnreached there. A real
 * plan under an assignment that gives p the set W also maps into p's row for every subset of W
 * (the objects left out are p's own creations, and the row's goal is part of W's), so W reads
 * the most of its own row and its subsets' rows: a row not built, or a state it never reached,
 * counts 0 there, and a coarser fallback row for W may read less than a full row for a subset
 * (multi_agent/10 seed 84: 8 for a pot's two waters, 11 for one of them).
 *
 * Shared rows: where swapping the objects a and b of two rows maps the task onto itself (its
 * dynamics and goal; python/robotouille/symmetry.py verifies it) and a's row onto b's (facts,
 * templates, groundings with their costs and arrival codes, holds, merges, invariants;
 * projections.py lists b's facts as the images of a's, bit by bit), the two rows' abstract
 * graphs are one graph, bit k of one meaning bit k of the other, and their goal columns agree
 * (neither object is a key value, and each plays the other's roles). So b's row reads a's
 * tables: b's projection of a state, with b's templates named as their images in its key, is
 * a's projection of the swapped state, whose distance is b's distance in the state. Only the
 * reachable parts differ, so a's row is enumerated from b's start key as well, and b's row is
 * then a copy of a's tables (built on its own only where a's row was not built).
 *
 * Robot swap: where swapping two robots maps the task onto itself (its dynamics and goal) and a
 * row onto itself (facts, templates, charged groundings with their costs and arrival codes, the
 * robots' slots swapped, holds, merges, invariants; python/robotouille/projections.py checks),
 * the swap is an automorphism of the row's abstract graph that keeps its goal columns (no goal
 * atom names a robot), so a state and its image have the same distances. The row keeps one
 * state of each such pair: every key, in construction and in evaluation, is replaced by the
 * smaller of itself and its image (fact bits and arrival bits permuted, templates renamed and,
 * where their order does not matter, sorted again). The distances over this quotient graph are
 * those of the whole graph, and a row with both robots' positions has about half the states.
 * A shared row reads its source's swap: the object swap behind the sharing commutes with it.
 *
 * Away robots: in a row with the robots' positions, a robot that neither holds the object nor
 * stands where a colocated fact of its slot holds (where it could pick the object up) is away,
 * and which station it stands at then changes no distance. It reaches any station in one move
 * that costs 0 (moves cost only while the robot holds the object, and F keeps no station's
 * vacancy) and changes no other bit (its arrival bit is set already: it is away). For each
 * robot the tables name (projections.py checks): the row has every move between two of its
 * stations, all with one cost and code, and its moves read and write no other fact of F; every
 * other grounding of the row that needs the robot at some station needs it to hold the object
 * or to stand at a colocated fact, or has a twin at every station with the same conditions,
 * effects, templates, cost and codes otherwise; no template reads or writes its position, no
 * goal atom names it, no invariant joins its position with a fact other than a robot's
 * position, and its idle places are colocated places. Then two away states that differ only in
 * where the robot stands reach each other at cost 0 (directly, unless another robot stands at
 * the target, which then is no state), and every step from one has a step from the other with
 * the same cost into a state that again differs only there: goal, via and park distances are
 * equal over such a class. The row keeps one state of each class: an away robot stands at the
 * first station (in the tables' order) where no colocated fact holds and no other robot stands,
 * those that are not away first, then the away robots by slot. Construction places them before
 * it tests a target against the invariants (a robot placed where another then arrives stood
 * elsewhere in the real state), and evaluation before it looks a state up; the via and park
 * seeds take an away robot to stand at K or s (some state of its class has it there: the robot
 * that stands there otherwise holds the object or stands where it lies). With a robot swap, both
 * swapped robots or neither are placed, and placing commutes with the swap. A row with two robots
 * in a kitchen of 23 stations keeps about 6 states per state of its fallback, not 300. For the
 * same reason construction takes, from each state, only the first of a robot's moves that leave
 * it away (with one cost and code): the others end in the same placed state; and evaluation
 * keeps a row's abstract state from the state evaluated before when the row's facts changed
 * only where robots stand that were away and placed there and are away again (most steps move
 * a robot, and most rows see it away).
 *
 * Joint steps (ProjectionLimits::tick_free; simultaneous mode with P >= 2 robots): a step
 * applies up to P actions, one after another in robot order, and then one end-of-step pass.
 * The rows are then built from each grounding applied alone, without the pass, while waiting
 * (the pass alone, cost 0) stays a step of its own, and idling is left out. A real plan maps
 * onto such a row step by step: each action it applies (the engine checks each against the
 * state the earlier robots left) is a grounding step of the row, the pass a wait. So a row's
 * distance bounds the partition's charges to the actions still to come, and the sum bounds the
 * number of those actions, which is at most P times the steps: the search divides it by P,
 * rounded up. Every other argument above is about the order of actions (what comes right
 * before a pick, a hand-over, a companion's arrival; one robot per station) and holds for that
 * sequence of actions just as for a centralized plan; the timers only gain ways to tick (none
 * between two actions of a step), which the wait steps cover. With one robot a joint step is
 * one action or none and then the pass, which is a centralized step: the rows stay as they are
 * and the sum is not divided.
 *
 * Construction enumerates the abstract states reachable from the search's start state (every
 * state the search can reach projects into them), then computes the distances backwards from
 * the abstract goal states, by distance layers for up to 64 goal columns at once (Dial's
 * algorithm; cpp/src/layered_distances.h). A state's steps that the row cannot tell apart (the
 * same conditions, effects and codes in F, no timer involved: in a row without the robots'
 * positions, every move of one robot) are taken once, and of its steps into one target only the
 * cheapest is kept as an edge. Evaluation projects a state onto each F and T and looks its
 * distance up: a few hash lookups per state. A projection with more than max_states
 * abstract states (or that a stop request interrupts) is dropped: it then adds 0, unless the
 * tables give a coarser fallback for the same object (without the robots' positions). The
 * fallback is built first; the full row follows when the fallback's size times the robots'
 * position combinations fits the caps, and replaces it (it keeps more facts, so it bounds no
 * lower; one that fits only with a sink is built with it, see "Repeated timers"). Full rows
 * that do not fit get a second pass with larger caps, smallest first, while time allows
 * (ProjectionLimits). Under a time limit, so do the rows that failed under the
 * first caps with nothing to fall back on (a fallback itself, or an object with one row), each
 * when its size, predicted from how far its failed enumeration got, fits the larger caps and
 * the rate of its failed build predicts it ends in time; a fallback built so then queues its
 * full row as an upgrade too (the pot's row for both waters of multi_agent/10, see "Creators"). Up
 * to ProjectionLimits::threads rows are built at once, each on a builder (a copy of the
 * construction state without the rows built so far): in the first pass, further threads start the
 * rows it builds anyway (no fallback, or a fallback, and no shared tables) ahead of their turn, and
 * a full row once its fallback is built and predicts it within the row cap (cancelled if its turn
 * does not want it); every row is committed in the one-thread order under the caps as they stand
 * then (a row that shares a row whose build failed is not built in this pass where the second pass
 * tries it again: it waits there for its shared row). The second pass starts its rows in order, a
 * row whose shared row is still to come (in flight, queued, or the follow-up of a retry in flight
 * or queued; on one thread too) waiting aside until that one is built or passed over, and keeps
 * each that fits the caps when it ends. Its last row to build, started while no other is built, is
 * enumerated by the idle threads too (each takes a batch of states, expands it alone and interns
 * its targets under a lock; the row is the same function of the keys as one thread's, so the bound
 * is the same). Without a time budget the rows kept are those of one thread. The total of abstract
 * states over all projections is capped as well, and so are the distance tables: one entry per
 * abstract state and distinct column, where combinations and roles with the same abstract goal
 * states share a column.
 *
 * Ownership: a ProjectionHeuristic owns its tables, refers to the Task (which must outlive it)
 * and keeps scratch space, so one instance serves one thread. Its clones (one per further
 * thread of a search) share the tables, which nothing writes once construction ends, and keep
 * scratch of their own. During construction each row is built on a builder of its own, and each
 * helper of a row's enumeration on one more; they share only that enumeration (its keys, index
 * and edges, under its lock), which the row's owner keeps and hands on to the row.
 */
#ifndef ROBOTOUILLE_PROJECTION_H_
#define ROBOTOUILLE_PROJECTION_H_

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "robotouille/id_index.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille {

// The tables python/robotouille/projections.py builds (see its ProjectionTables).
struct ProjectionSpec {
  IntVec objects;
  IntVec fact_begin, facts;
  IntVec template_begin, templates;
  IntVec grounding_begin, groundings, costs;  // costs: 0, 1, or 2 (1 while holding)
  IntVec hold_begin, hold_facts;              // (robot, fact) pairs
  IntVec key_vars;  // goal variables enumerated jointly across the projections
  IntVec fallback;  // per row: 1 = the coarser variant of the row before (built if it failed)
  // Arrival charges (see "Arrivals" above); empty: none. Per relevant grounding, a sum of
  // kArrivalMove (moves the robot), kArrivalDrop (the robot puts the object down),
  // kArrivalPick (the robot picks the object up from a station), kArrivalHandOver (the robot
  // puts the object into a container at its station; see "Hand-overs"), kArrivalFreed (the
  // robot's hand is freed at the station of the object, a container; see "Arrivals") and
  // kArrivalStays (a hand-over that keeps the object where the robot cannot put it down; see
  // "Hand-overs"), plus kArrivalSlot x the acting robot's slot (0, 1, ...).
  IntVec arrivals;
  // Per row, triples (robot slot, that robot's position fact, object fact at the same
  // station): the robot stands where it could pick the object up without moving.
  IntVec colocated_begin, colocated;
  // Lifts (see "Lifts" above), entries one after another: the goal variable of the lifted role,
  // the goal atom "that variable at K" (two arguments: the variable, then a key variable), the
  // number n of companion atoms, and n atoms "companion variable at (or on) K".
  IntVec lifts;
  // Buried objects (see "Lifts"): triples (fact "upper atop lower", upper, lower) of every
  // stackable pair of items; empty: none (the stations are not proven to hold one stack).
  IntVec lift_stacks;
  // Clearing (see above), entries one after another in the layout of _clearing in
  // python/robotouille/projections.py; empty: none.
  IntVec clearing;
  // At-most-one invariants (see "Invariants" above): CSR over fact sets; empty: none.
  IntVec mutex_begin, mutex_facts;
  // Shared rows (see above); empty: none. Per row, an earlier row whose tables it reads, or -1;
  // per row (CSR over pairs), (its template, the shared row's template).
  IntVec share, share_template_begin, share_templates;
  // Per row (CSR over pairs; empty: none), (fact, representative): the fact shares its
  // representative's bit (see "Merged facts" above). Both are facts of the row.
  IntVec merge_begin, merges;
  // Robot swap (see above); all empty: none. Per row (CSR over pairs), (fact, image) and
  // (template, image) pairs of the facts and templates that swapping two robots moves, each
  // pair listed both ways; a row with no fact pairs is not swapped. Then the two robots' slots.
  IntVec robot_swap_fact_begin, robot_swap_facts;
  IntVec robot_swap_template_begin, robot_swap_templates;
  IntVec robot_swap_slots;
  // Hand-overs (see above); empty: none. Triples (a robot's slot, its position fact, a
  // container's fact at the same station) for the containers that hand-overs need.
  IntVec hand_over_places;
  // Idling (see above); empty: none. Per row (CSR over quadruples), (the robot's position fact,
  // the object's fact at that station, the fact that makes it the top there, the robot's
  // free-hand fact); per relevant grounding (with groundings), kIdleSets + kIdleBlocked.
  IntVec idle_begin, idle, idle_codes;
  // Full hands (see "Arrivals" above); empty: none. Per robot slot, the robot's free-hand fact,
  // or -1 where a full hand says nothing. Per row (empty: none), the fact that its object is
  // clear, or -1 where that says nothing (covered objects, see "Arrivals").
  IntVec free_hands, clear_facts;
  // Away robots (see "Away robots" above); empty: none. Per row (CSR, empty: none), the mask
  // of the robot slots placed anywhere while away, then (slot, position fact, station)
  // triples of every robot's positions in the row.
  IntVec away_begin, away;
  // Creators (see above); all empty: none. Per row, a triple (group, creator, mask): the row
  // is creator `creator` of creator group `group` (0, 1, ...) for the made objects in `mask`
  // (bit k: the group's k-th made object), or (-1, -1, 0) for a row that is no such variant.
  // A group's rows hold every creator with every nonempty mask, each once (a fallback row
  // repeats its row's triple). Per row (CSR), its forbidden facts (outside its facts: read
  // from the real state), and the facts of the row that its appearing steps make true.
  IntVec variants;
  IntVec forbid_begin, forbid;
  IntVec appear_begin, appear;
};

constexpr int32_t kIdleSets = 1, kIdleBlocked = 2;

constexpr int32_t kArrivalMove = 1, kArrivalDrop = 2, kArrivalPick = 4, kArrivalHandOver = 8,
                  kArrivalFreed = 16, kArrivalStays = 32;
constexpr int32_t kArrivalSlot = 64;

// Caps on construction (see "Construction" above). Full rows (with the robots' positions)
// predicted over max_states wait for the upgrade pass, which builds them up to upgrade_states
// each and upgrade_total_states in all, smallest first, then (with upgrade_seconds > 0 only)
// retries the rows that failed with no fallback. With upgrade_seconds > 0, an upgrade starts
// only when construction so far predicts that it ends within that many seconds of
// construction, and one that runs over by kUpgradeGrace of them is dropped (its fallback
// stays).
// A search under a time limit that names no upgrade_seconds gives upgrades kUpgradeShare of
// it (search.cc). The default upgrade caps suit about kUpgradeCapSeconds of upgrades; a search
// that derives a longer upgrade_seconds raises them in proportion, since the time check, not
// the caps, should then decide what gets built, up to kMaxUpgradeCapScale times (a 10 s
// search's 5 s share doubles them; a 30 s search's reaches the most). Construction holds up
// to about kConstructionBytesPerState per abstract state while it runs (1.7 GB for
// multi_agent/8's 7.7M, 1.0 GB for /9's 2.6M).
inline constexpr double kUpgradeShare = 0.5;
// An upgrade that was predicted to end within the share but runs past it is dropped only this
// much of the share later: the original multi_agent/10's pots' row for both waters, under a
// 10 s limit on two threads, ended 0.1-0.3 s past the share in two of eight runs, and the
// search then stopped at 51 instead of solving.
inline constexpr double kUpgradeGrace = 0.25;
inline constexpr double kUpgradeCapSeconds = 2.5;
// What a further thread adds to construction, in threads: one that helps a row's enumeration
// (see "Construction") made the pots' row of the original multi_agent/10 about 1.45 times as
// fast on two threads. The upgrade pass predicts a row built with helpers by it, and the upgrade
// caps grow with the threads by it too (they suit kUpgradeCapSeconds on one thread).
inline constexpr double kHelperGain = 0.4;
inline constexpr double kMaxUpgradeCapScale = 6.0;
// A retried row's cap grows with the upgrade caps only from this much of an upgrade share on
// (a 15 s search's, so that a 20 s search's share grows it after the seconds the planner's
// preparation takes from the limit; see ProjectionLimits::retry_states). Below it a retry that
// fails again costs too large a part of the search: grown at 10 s, the multi-agent originals in
// simultaneous mode expanded 1-41% fewer states within their 10 s on six of the eleven in two
// rounds, and multi_agent/3, which the old rule solved in both, in neither.
inline constexpr double kRetryGrowthSeconds = 7.5;
inline constexpr double kConstructionBytesPerState = 400.0;
// A search with at least this many seconds of upgrades (a time limit of 5 minutes) under a
// memory budget sets every upgrade cap to what kLongBudgetShare of the budget holds at
// kConstructionBytesPerState, where that is more than the caps grown as above, and decides the
// sink against it (see "Repeated timers"): the rows it builds are kept while it searches (about
// 240 bytes per state), so half of the budget leaves room for both. On multi_agent/10 seed 420
// the pots' row that makes both waters has 11.3M states whole, 0.6M with the sink, and the
// start bound is 54 against 45 (the row takes two minutes to build; the search then solves in
// about five).
inline constexpr double kLongUpgradeSeconds = 150.0;
inline constexpr double kLongBudgetShare = 0.5;
// ... and lets the distance tables hold this many entries per state of those caps (where that
// is more than ProjectionLimits::max_distance_entries): the rows of multi_agent/10 have one or
// two goal columns, and a pot's row shared by its twin counts twice. On seed 126 the pots'
// row for both waters has 23.4M states of one column: with caps planned for 32 GB (half of a
// 64 GB machine's memory) the default 48M entries kept the row but not its twin's share, so
// the start bound stayed 55 after 100 s of building it; with this room it is 61. 8 bytes per
// state, against the 400 of construction.
inline constexpr int64_t kLongDistanceEntriesPerState = 4;
// A long search without a time limit (one planned with ProjectionLimits::planned_seconds) gives
// its upgrades at least the seconds its long caps take to build at this rate, per thread (at
// kHelperGain for each further one): its caps were planned for memory, and a share of the
// planned seconds alone would leave the largest rows they admit unbuilt. Measured on the bounds
// of multi_agent/10, one thread: 6.9 us per abstract state (seed 126, 26.6M states in 183.5 s),
// 6.8 and 8.6 us in two runs of seed 378 (47.8M states); the rate leaves room for slower days.
// Caps planned for 12.6 GB (half of 24 GB) take 158 s at it on one thread, 113 s on two, about
// the 150 s of the planned share; seed 378's, planned for 36 GiB, 483 s on one, which builds
// its pots' row of 38.7M states without a time limit.
inline constexpr double kLongSecondsPerState = 10e-6;
struct ProjectionLimits {
  int64_t max_states = 120'000;
  int64_t max_total_states = 1'200'000;
  int64_t upgrade_states = 480'000;
  int64_t upgrade_total_states = 2'400'000;
  double upgrade_seconds = 0;
  // A search without a time limit plans its construction as a search with this one would
  // (upgrades get kUpgradeShare of it, under caps grown with it; search.cc), or 0: no upgrade
  // seconds, the first caps only. Read where upgrade_seconds is 0 and there is no time limit.
  double planned_seconds = 0;
  // The caps are planned as a search with this memory budget would plan them (search.cc,
  // bound_limits: a long one's take half of it), in place of the search's own budget, or 0:
  // that budget, if any. The search itself keeps its budget (unlimited without one).
  int64_t planned_memory_bytes = 0;
  // The cap on a retried row (one that failed under the first caps), or -1: upgrade_states.
  // A search that scales the upgrade caps grows this one as they grow on one thread (search.cc,
  // bound_limits; not with the helpers' gain), from an upgrade share of kRetryGrowthSeconds on.
  // It once grew more slowly: on multi_agent/10 the pots' retries took the whole upgrade share
  // and then failed, so that no full row was upgraded. Construction has since become about six
  // times as fast (seed 210's rows under a 120 s search's caps: 28.8 s at c100e5f, 3.9 s now),
  // and under a 30 s search's share the retries fit: seeds 210, 252 and 420 start at 59, 51 and
  // 50 instead of 53, 45 and 43 (see benchmarks/README.md, "Retried rows at the pace of the
  // upgrades").
  int64_t retry_states = -1;
  // A full row that repeats timers gets a sink where predicted above this (see "Repeated
  // timers"), or -1: the retry cap where set (at most upgrade_states), else upgrade_states. A
  // search that scales the upgrade caps keeps this at the caps before growing.
  int64_t sink_states = -1;
  // The distance tables' entries over all rows: a row's abstract states times its distinct
  // goal columns, a shared row's counted again (it copies its source's tables); 2 bytes each,
  // so 96 MB by default. A long search under a memory budget raises it with its caps
  // (kLongDistanceEntriesPerState).
  int64_t max_distance_entries = 48'000'000;
  int32_t threads = 1;  // upgrades built at once (see "Construction")
  bool exact_timers = false;  // keep every timer's progress (see "Timers"); for comparisons
  bool timer_sinks = true;    // false: no row gets a sink (see "Repeated timers"); likewise
  bool existence_order = true;  // false: no "Created objects in order" check; likewise
  // Actions without the end-of-step pass, which only waiting runs (see "Joint steps"): for
  // simultaneous mode with several robots, where the sum then bounds the actions, not steps.
  bool tick_free = false;
};

class ProjectionHeuristic {
 public:
  static constexpr int32_t kDeadEnd = std::numeric_limits<int32_t>::max();

  // Validates the tables (throws std::invalid_argument) and builds every projection from the
  // given start state. `stop` (may be empty) is polled while building; once it returns true
  // the projection being built and the remaining ones are dropped (the bound stays admissible,
  // only weaker), so the search's time limit and cancellation also cover construction.
  ProjectionHeuristic(const Task& task, const ProjectionSpec& spec, const uint64_t* words,
                      const int32_t* counters, std::function<bool()> stop = {},
                      const ProjectionLimits& limits = {});

  // The sum of the projections' distances; kDeadEnd when some projection cannot reach its goal.
  // Incremental: a projection whose facts (and, with timers, the counters) equal those of the
  // previous call, or differ only where robots that stay away stand (see "Away robots"), keeps
  // its abstract state, and a group whose members all kept theirs keeps its matching (A*
  // evaluates a state's successors one after another; most differ in few facts).
  int32_t evaluate(const uint64_t* words, const int32_t* counters);
  // Makes the next evaluate() compute everything afresh, as the first call does.
  void forget() { last_words_.clear(); }

  int64_t abstract_states() const { return abstract_states_; }
  // The spec's objects (rows that are no fallback) whose full row was not built, for lack of
  // time or room: a fallback stands in for it, or nothing does.
  int32_t coarse_rows() const { return coarse_rows_; }
  // The spec's objects whose full row was built with a sink (see "Repeated timers").
  int32_t sink_rows() const { return sink_rows_; }

  // A heuristic for another thread: it shares this one's tables, which construction leaves
  // immutable, and has scratch and caches of its own (it starts with a copy of this one's).
  std::unique_ptr<ProjectionHeuristic> clone() const;

  // An abstract state's fact bits, then its history bits (arrivals, fresh picks, idling): at
  // most kBitsWords * 64 in all. Three words: the full rows of the generator's larger kitchens
  // need up to about 150.
  static constexpr int32_t kBitsWords = 3;
  struct Bits {
    uint64_t w[kBitsWords] = {};
    void set(int32_t i) { set_bit(w, i, true); }
    void assign(int32_t i, bool value) { set_bit(w, i, value); }
    bool test(int32_t i) const { return test_bit(w, i); }
    bool operator==(const Bits&) const = default;
    bool any() const {
      uint64_t any = 0;
      for (int32_t k = 0; k < kBitsWords; ++k) any |= w[k];
      return any != 0;
    }
    // Whether some bit is set in both.
    bool meets(const Bits& other) const {
      uint64_t any = 0;
      for (int32_t k = 0; k < kBitsWords; ++k) any |= w[k] & other.w[k];
      return any != 0;
    }
    // Whether every bit of `other` is set here.
    bool covers(const Bits& other) const {
      for (int32_t k = 0; k < kBitsWords; ++k) {
        if ((w[k] & other.w[k]) != other.w[k]) return false;
      }
      return true;
    }
    // The bits set in both, counted.
    int32_t common(const Bits& other) const {
      int32_t count = 0;
      for (int32_t k = 0; k < kBitsWords; ++k) count += std::popcount(w[k] & other.w[k]);
      return count;
    }
    Bits& operator&=(const Bits& other) {
      for (int32_t k = 0; k < kBitsWords; ++k) w[k] &= other.w[k];
      return *this;
    }
    // As numbers, the last word the most significant (the order canonical keys pick by).
    bool operator<(const Bits& other) const {
      for (int32_t k = kBitsWords - 1; k >= 0; --k) {
        if (w[k] != other.w[k]) return w[k] < other.w[k];
      }
      return false;
    }
  };

 private:
  ProjectionHeuristic(const ProjectionHeuristic&) = default;  // for clone()
  // A copy of the construction state without the rows built so far, for building a row on
  // another thread (see "Construction").
  std::unique_ptr<ProjectionHeuristic> builder();

  struct FactMask {
    int32_t word;   // a word of the state's facts (-1: ends a companion atom's masks)
    uint64_t mask;  // facts in it
  };
  struct Projection {
    IntVec facts;      // F, in bit order
    struct FactRun {
      int32_t fact, bit, length;  // facts fact.. are bits bit.. (length <= 64)
    };
    std::vector<FactRun> runs;  // F as runs of consecutive facts, for project()
    // Merged facts other than their representative, (bit, fact): project() ORs them in.
    std::vector<std::pair<int32_t, int32_t>> merged;
    Bits merged_bits;  // the bits with merged facts
    IntVec templates;  // T, sorted
    // Per template of T, the id its keys name instead (the shared row's; see "Shared rows"),
    // or empty: its own.
    IntVec key_templates;
    int32_t row = -1;     // its row in the spec
    bool shared = false;  // its tables are a copy of another row's (not counted as built)
    bool with_sink = false;  // its repeated timers lead to a sink (see "Repeated timers")
    int32_t object = -1;
    // Creators (see above): the forbidden facts, by word of the real state, and the row's
    // (group, creator, mask), group -1: none.
    std::vector<FactMask> forbidden_words;
    int32_t variant_group = -1, variant_creator = -1, variant_mask = 0;
    bool coarse_timers = true;   // see "Timers"
    bool sorted_timers = false;  // keys list T's templates sorted (see "Timers")
    int32_t group = -1;  // index into groups_, or -1 when the object has no roles
    IntVec roles;        // per role: the variable's index in its group's vars
    int32_t arrival_bit = -1;  // the first arrival bit (after F), or -1: no arrivals
    int32_t arrival_slots = 0;  // arrival bits, one per robot slot
    int32_t covered = -1;  // the fact that the object is clear (a real fact), or -1: unread
    // The fresh-pick bit (after the arrival bit; see "Hand-overs"), or -1: no hand-overs.
    int32_t picked_bit = -1;
    // The kept-hand-over bit (after the fresh-pick bits; see "Hand-overs"), or -1: none.
    int32_t stays_bit = -1;
    // With hand-overs, per robot slot: the bits of the facts that say that robot holds the
    // object.
    std::vector<Bits> slot_holds;
    struct Colocated {
      int32_t slot, robot_at, object_at;  // robot slot; local bits of the two facts
    };
    std::vector<Colocated> colocated;
    // Idling: the bit (after the arrival and fresh-pick bits), or -1: none; where the robot
    // idles at the object (local bits of its position, the object's place, its top fact); and
    // the robot's free-hand fact, read from the real state.
    int32_t idle_bit = -1;
    struct IdlePlace {
      int32_t robot_at, object_at, top;
    };
    std::vector<IdlePlace> idle_places;
    int32_t idle_free = -1;
    // Whether the robot stands where it idles at the object, by F's bits alone.
    bool idle_place(const Bits& bits) const {
      return std::any_of(idle_places.begin(), idle_places.end(), [&](const IdlePlace& at) {
        return bits.test(at.robot_at) && bits.test(at.object_at) && bits.test(at.top);
      });
    }
    // The same pairs for quick tests: per robot slot, its position bits among them, and per
    // position bit (kMaxFacts entries, or none), the object's bits that go with it.
    std::vector<Bits> slot_places;
    // Away robots (see "Away robots"), or empty: per robot slot, whether it is placed while
    // away, its robot, its position bits (and per station, the bit: -1 where none), and the
    // bits that say it holds the object; per position bit its station (an index below 64, -1
    // for other bits), and per bit of a colocated fact the stations where it lies (a mask).
    struct AwaySlot {
      bool placed = false;
      int32_t robot = -1;
      Bits positions;
      std::array<int16_t, 64> bit_at;
      uint64_t stations = 0;
      Bits holds;
      // Whether the robot is placed, stands somewhere in `bits` and holds nothing there: away
      // unless it stands where it could pick the object up (colocated_slots()).
      bool free(const Bits& bits) const {
        return placed && !bits.meets(holds) && bits.meets(positions);
      }
    };
    std::vector<AwaySlot> away_slots;
    // Whether `robot` has its slot in `away` (from away_now()).
    bool is_away(const Bits& away, int32_t robot) const {
      for (size_t k = 0; k < away_slots.size(); ++k) {
        if (away_slots[k].robot == robot) return away.test(static_cast<int32_t>(k));
      }
      return false;
    }
    std::vector<int8_t> station_of;
    Bits place_bits;
    std::vector<uint64_t> place_stations;
    std::vector<Bits> objects_at;
    // Robot swap (see "Robot swap"): the bits it exchanges, as groups of pairs at one
    // distance (bits `mask` of word `from` and the same bits shifted by `shift`, `to_mask`, in
    // word `to`), and the template ids (as keys name them) it renames, sorted. No groups: no
    // swap.
    struct SwapGroup {
      int32_t from, to, shift;
      uint64_t mask, to_mask;
    };
    std::vector<SwapGroup> swap_groups;
    std::vector<std::pair<int32_t, int32_t>> swap_templates;
    int32_t width = 1;   // distances per (state, combination): one per role, at least 1
    // An abstract state's key: its bits' words up to the last that the row uses (most rows
    // need two), then its templates and their node words (see project()).
    size_t key_bytes = sizeof(Bits::w);
    // Open addressing for the keys without timers: slot i at plain[i * (key words + 1)] holds
    // the key's words, then its id (kEmptyPlain: an empty slot). Key and id share a slot so
    // that a probe misses the cache once, not twice.
    std::vector<uint64_t> plain;
    size_t plain_slots = 0;
    // The other keys (with running timers): their bytes one after another (key k ends at
    // timed_end[k]), each key's state id, and an index of them by hash_bytes.
    std::string timed_keys;
    std::vector<size_t> timed_end;
    std::vector<int32_t> timed_ids;
    IdIndex timed_index{16};
    std::string_view timed_key(uint32_t k) const {
      const size_t begin = k == 0 ? 0 : timed_end[k - 1];
      return std::string_view(timed_keys).substr(begin, timed_end[k] - begin);
    }
    // Distances: combination c and role r read column column_of[c * width + r] of
    // distance[id * columns + column] (see kUnreached). Columns with the same goal states (most
    // combinations differ only in key variables the object's roles do not name) share one.
    IntVec column_of;
    int32_t columns = 0;
    std::vector<uint16_t> distance;
    IntVec lift_of_role;  // per role: its index into lifts_, or -1
    // Lifted roles' via distances (see "Lifts"), laid out the same way; via_column_of is -1
    // where the plain distance stands.
    IntVec via_column_of;
    int32_t via_columns = 0;
    std::vector<uint16_t> via;
    // Park distances (see "Parks"): per link of park_links_ that applies to a lifted role of
    // the row, its index there and a table laid out as via.
    struct ParkTable {
      int32_t link;
      std::vector<uint16_t> distance;
    };
    std::vector<ParkTable> parks;
    int32_t states = 0;              // abstract states
    std::vector<FactMask> watched;   // the words and bits of F and its merged facts
    // Where placed away robots stand (see evaluate()): per entry of watched (none where the row
    // places no robot), its bits that are their positions, and for each such bit the robot's
    // slot and the position's bit in the row.
    struct WordPositions {
      uint64_t mask = 0;
      std::array<std::pair<int16_t, int16_t>, 64> at{};
    };
    std::vector<WordPositions> watched_positions;
    // Its share of the distance tables' cap (ProjectionLimits::max_distance_entries).
    int64_t entries() const {
      size_t n = distance.size() + via.size();
      for (const ParkTable& t : parks) n += t.distance.size();
      return static_cast<int64_t>(n);
    }
  };
  struct Lift {
    int32_t var = -1;      // the top role's goal variable
    int32_t atom = -1;     // the goal atom "var at K"
    int32_t station = -1;  // K, a key variable
    int32_t key = -1;      // K's index in key_vars_
    // Per value of K (in the combinations): each companion atom's facts (one per candidate)
    // at that value, as masks per word, then {-1, 0}.
    std::vector<std::vector<FactMask>> companions;
    IntVec value_of_combo;  // per combination: the index of K's value in companions
    int32_t missing_begin = 0;  // its values' entries in missing_
    IntVec companion_vars;      // per companion atom, its variable
    IntVec companion_begin;     // per value and companion atom, where its masks begin there
    // Buried objects (see "Lifts"), where lift_stacks is given: per value of K, each companion
    // atom's (fact, candidate) pairs, then {-1, -1}; the candidates of var, and per candidate
    // j and value v, at j * values + v, its fact "at K" and its entry in missing_ (from
    // buried_begin), which also holds the lift's own flag.
    std::vector<IntVec> companion_objects;
    IntVec buried_objects, buried_at;
    int32_t buried_begin = 0;
  };
  // The variables of one goal-variable group that objects play as roles (see above).
  struct RoleGroup {
    IntVec vars;             // goal variables, at most kMaxRoleVars
    IntVec members;          // projections whose object has roles in this group
    uint32_t free_vars = 0;  // variables with a candidate that is not a member (cost 0)
    // Combinations whose matchings always cost the same (the same columns for every role)
    // form a class: per combination its class, per class its first combination.
    IntVec combo_class, class_combos;
    // Per member (in members' order), role r and class k, at role_begin[member's index] +
    // r * classes + k: where match() reads the cost (resolved once, since the columns and
    // the lifts depend only on the class).
    struct RoleColumn {
      int32_t column;      // in the member's distance row
      int32_t via_column;  // in its via row, where the role is lifted under this class
      int32_t missing;     // the entry of missing_ that decides it, or -1: never lifted
      int32_t park_begin, park_end;  // its entries in park_refs
    };
    std::vector<RoleColumn> role_columns;
    // (park table of the member's row, entry of missing_ that says it applies) pairs.
    std::vector<std::pair<int32_t, int32_t>> park_refs;
    IntVec flags;  // the entries of missing_ that the matching reads (its key holds them)
    IntVec role_begin;
    // The matching's cost per combination, by the members' abstract state ids: states that
    // differ only outside the group's objects (most successors) reuse it.
    // ... kept in a cache: entry e's record at records[e * stride] is its key (the members'
    // ids, then its flags as bits, then its skip costs; key_units 16-bit units, zero-padded),
    // then its costs per combination, capped at kUnreached. Key and costs share a record so
    // that a probe that finds the key has the first costs in cache too.
    IdIndex cache;
    std::vector<uint16_t> records;
    size_t key_units = 0, stride = 0;
    // Covering candidates among the members (see "Clearing"): a member that plays no role
    // costs its skip cost, which the key then includes (one byte per member).
    struct Cover {
      int32_t member;   // index into members
      int32_t station;  // into clearing_stations_
      int32_t at;       // the member's object at that station
    };
    std::vector<Cover> covers;
    std::vector<FactMask> cover_masks;  // the covers' facts by word: all clear, no skip costs
    std::vector<uint8_t> skip;  // per member, the current state's skip cost
    bool skipping = false;      // some skip cost is not 0
    std::vector<uint16_t> key;  // scratch: the key evaluate() probes for
    uint32_t hash = 0;          // scratch: its hash
    int64_t last = -1;  // the entry evaluate() used last, or -1
  };
  static constexpr int64_t kMaxCachedCosts = 4'000'000;  // per group; then the cache restarts
  static constexpr int32_t kMaxRoleVars = 10;

  // Per class of the group's combinations (class_costs_), the cheapest assignment of the
  // group's variables to distinct members, by dynamic programming over subsets of variables.
  void match(const RoleGroup& group);
  struct Edge {
    int32_t to;
    int32_t cost;
  };

  // The id of the state's abstract state under p, or -1 when it was never reached. Sets
  // hands_read to whether a robot's hand decided an arrival bit (a robot stands at the object).
  int32_t find(const Projection& p, const uint64_t* words, const int32_t* counters,
               bool& hands_read);
  // The id of key_ under p, or -1.
  int32_t lookup(const Projection& p) const;
  // The bits a state's bound is read with: a robot standing where it could pick the object up
  // without moving (in `here`, from colocated_slots()) has its arrival bit clear, every other
  // robot has it set (projection.h); fresh-pick bits stay.
  static Bits canonical_arrivals(const Projection& p, Bits bits, const Bits& here) {
    for (int32_t k = 0; k < p.arrival_slots; ++k) bits.assign(p.arrival_bit + k, !here.test(k));
    return bits;
  }
  // Whether the robot in `slot` must move before it can hand p's object over (see
  // "Hand-overs").
  bool must_move_to_hand_over(const Projection& p, int32_t slot, const Bits& bits,
                              const uint64_t* words) const;
  // These four, like canonical_arrivals() above, are defined here, not in projection.cc:
  // construction calls them for every step of every abstract state (tens of millions of times
  // for a row of a million states), and out of line their calls cost more than their bodies.
  //
  // The robot slots (as bits) that stand where they could pick the object up without moving.
  static Bits colocated_slots(const Projection& p, const Bits& bits) {
    Bits here;
    for (size_t k = 0; k < p.slot_places.size(); ++k) {
      if (colocated(p, static_cast<int32_t>(k), bits)) here.set(static_cast<int32_t>(k));
    }
    return here;
  }
  // Whether the robot in `slot` does.
  static bool colocated(const Projection& p, int32_t slot, const Bits& bits) {
    if (static_cast<size_t>(slot) >= p.slot_places.size()) return false;
    const Bits& places = p.slot_places[static_cast<size_t>(slot)];
    for (int32_t w = 0; w < kBitsWords; ++w) {  // (places has no bits past the key's words)
      // A robot stands at one place: usually a single bit.
      for (uint64_t at = bits.w[w] & places.w[w]; at != 0; at &= at - 1) {
        if (p.objects_at[static_cast<size_t>(w * 64 + std::countr_zero(at))].meets(bits)) {
          return true;
        }
      }
    }
    return false;
  }
  // The slots of the robots that are away in `bits` and placed (see "Away robots"), given the
  // slots that colocated_slots() finds there.
  static Bits away_now(const Projection& p, const Bits& bits, const Bits& here) {
    Bits away;
    for (size_t k = 0; k < p.away_slots.size(); ++k) {
      if (p.away_slots[k].free(bits) && !here.test(static_cast<int32_t>(k))) {
        away.set(static_cast<int32_t>(k));
      }
    }
    return away;
  }
  // The same, asking colocated_slots() itself (none without away robots).
  static Bits away_now(const Projection& p, const Bits& bits);
  // Whether away_now() has `slot`, asking only about that slot's robot.
  static bool slot_away(const Projection& p, int32_t slot, const Bits& bits) {
    if (static_cast<size_t>(slot) >= p.away_slots.size()) return false;
    return p.away_slots[static_cast<size_t>(slot)].free(bits) && !colocated(p, slot, bits);
  }
  // Places the away robots of `bits` where the row keeps them (see "Away robots"), given the
  // slots that colocated_slots() finds there (placing changes none of them). False where some
  // away robot has no station to stand at (no real state): `bits` then stay as they were.
  // With `placed`, sets it to the slots placed.
  static bool place_away(const Projection& p, Bits& bits, const Bits& here,
                         Bits* placed = nullptr);
  // Whether the state `words` reads as row `row` read the state before it, all its changes to
  // the row's facts (moved_) being moves of robots that were away there and are still away
  // (see evaluate()); updates row_bits_[row] when so.
  bool moved_while_away(const Projection& p, size_t row, const uint64_t* words);
  // Reads row `index`'s away robots into p (after its colocated triples and robot swap).
  void read_away(const ProjectionSpec& spec, int32_t index, const std::vector<int16_t>& bit_of,
                 Projection& p) const;
  // Replaces `key` (under p) by the smaller of it and its image under p's robot swap.
  void canonical_robots(const Projection& p, std::string& key);
  // Fills p's robot swap from row `index` of the spec (after F's bits and the arrival bits).
  void read_robot_swap(const ProjectionSpec& spec, int32_t index,
                       const std::vector<int16_t>& bit_of, Projection& p) const;
  // Appends the abstract key of (words, counters) under projection p to key_.
  void project(const Projection& p, const uint64_t* words, const int32_t* counters);
  // Reads row `index`'s object, F (as bits: bit_of per fact, -1 outside F; merged flags per
  // fact) and T into p; `shared`: with key_templates, for reading it with its shared row's tables.
  void read_view(const ProjectionSpec& spec, int32_t index, bool shared, Projection& p,
                 std::vector<int16_t>& bit_of, std::vector<uint8_t>& merged) const;
  // Adds a copy of the tables of the row `row` shares, read as `row`; false when that row is not
  // built (or `row` shares none).
  bool share_row(const ProjectionSpec& spec, size_t row);
  // Fills object_roles_ and groups_' variables (see "Roles" above).
  void assign_roles(const ProjectionSpec& spec);
  // Validates spec.lifts and fills lifts_ (after the combinations are known).
  void read_lifts(const ProjectionSpec& spec);
  // Fills p.via for p's lifted roles from p.distance over the reverse edges (see "Lifts"),
  // given each abstract state's bits and the sink's id (-1: none; see "Repeated timers");
  // false when its columns need more than `room` entries.
  bool build_via(Projection& p, const ProjectionSpec& spec, int32_t index,
                 const std::vector<Bits>& bits, int32_t sink, const std::vector<int16_t>& bit_of,
                 const IntVec& reverse_begin, const IntVec& reverse_source,
                 const std::vector<uint8_t>& reverse_cost, int64_t room);
  // Whether two templates of the row share a family (see "Repeated timers").
  bool repeats_timers(const ProjectionSpec& spec, size_t row) const;
  // Builds row `index` (see "Construction"), with a sink for its repeated timers where
  // `sink_repeats`, or where it fails without and could not fit the upgrade caps either (see
  // "Repeated timers"). False when it fails.
  bool build(const ProjectionSpec& spec, int32_t index, const uint64_t* words,
             const int32_t* counters, int64_t max_states, const std::function<bool()>& stop,
             bool sink_repeats);
  // Fills implied_begin_ and implied_ for the search's start state `words`.
  void find_existence_order(const uint64_t* words);
  // Builds row `index` (build()'s work without the retry with a sink). With row_helpers_ set,
  // that many more threads enumerate its states with this one (see "Construction"); a helper
  // passes its owner's enumeration as `joined`, and returns false once it is done.
  struct SharedEnumeration;
  bool build_row(const ProjectionSpec& spec, int32_t index, const uint64_t* words,
                 const int32_t* counters, int64_t max_states, const std::function<bool()>& stop,
                 bool sink_repeats, SharedEnumeration* joined = nullptr);
  int32_t row_helpers_ = 0;  // the threads that help this builder's rows (see build_row)

  const Task& task_;
  bool exact_timers_ = false;
  bool timer_sinks_ = true;
  // Created objects in order (see above): per fact (CSR), the existence facts that it implies
  // where it is a pool object's existence fact, those of the objects before it.
  IntVec implied_begin_, implied_;
  bool tick_free_ = false;
  int64_t upgrade_states_ = 0;
  int64_t max_distance_entries_ = 0;  // ProjectionLimits::max_distance_entries
  bool built_with_sink_ = false;  // whether the last build() ended with a sink
  IntVec combos_;          // [c * key_vars + k]: the value of key variable k in combination c
  int32_t num_combos_ = 1;
  IntVec key_vars_;
  std::vector<Projection> projections_;  // the rows while construction builds them
  // ... then, once built, shared with clones (read-only).
  std::shared_ptr<const std::vector<Projection>> rows_;
  std::vector<RoleGroup> groups_;
  std::unordered_map<int32_t, std::pair<int32_t, IntVec>> object_roles_;  // (group, roles)
  IntVec ungrouped_;            // projections without roles
  IntVec ids_, dp_;             // scratch: per projection, its state's id; matching table
  IntVec probed_;  // scratch: the groups whose members changed, to look up in their caches
  std::vector<Lift> lifts_;
  // Creators (see above): per group, its creators and made objects, the projection of each
  // creator and nonempty mask (creator * masks + mask; -1: not built, which reads 0), and the
  // assignments of made objects to creators as one mask per creator (assignment a's at
  // a * creators).
  struct CreatorGroup {
    int32_t creators = 0, made = 0;
    IntVec row_of;
    IntVec assignments;
  };
  static constexpr int32_t kMaxCreators = 4, kMaxMade = 4;
  std::vector<CreatorGroup> creator_groups_;
  IntVec variant_costs_;  // scratch: per creator and mask, its cost under one combination
  // Reads spec.variants into creator_groups_ (the rows come later, once built).
  void read_variants(const ProjectionSpec& spec);
  // Adds each creator group's least assignment to sums_ (see "Creators").
  void add_creator_costs(const uint64_t* words);
  // Clearing (see above): per station, the (robot position, free hand) fact pairs of the
  // robots that could stand there, and its items: the fact "at the station" and the facts
  // (supports charged to a row) that rule the item out.
  struct ClearingItem {
    int32_t at = -1;
    IntVec blocks;
  };
  struct ClearingStation {
    IntVec ready;  // pairs
    std::vector<ClearingItem> items;
    // Covering candidates (see "Clearing"): (object, its fact "at the station") pairs.
    IntVec covers;
    IntVec alone;  // the requirements with this station alone
  };
  struct ClearingRequirement {
    int32_t group = 0;
    IntVec void_facts, void_templates, stations;
  };
  // What counts per item: kClearPicks, kClearArrivals (also the arrival before the pick) or
  // kClearFollowUps (also the step after it).
  int32_t clearing_mode_ = 0;
  static constexpr int32_t kClearPicks = 0, kClearArrivals = 1, kClearFollowUps = 2;
  std::vector<ClearingStation> clearing_stations_;
  std::vector<ClearingRequirement> clearing_requirements_;
  IntVec station_costs_, group_costs_;  // scratch for clearing()
  // Validates spec.clearing and fills the clearing tables.
  void read_clearing(const ProjectionSpec& spec);
  // Fills requirement_open_: per requirement, whether the state still needs it.
  void open_requirements(const uint64_t* words, const int32_t* counters);
  // Whether a robot stands at the station with an empty hand (it needs no arrival there).
  static bool ready_at(const ClearingStation& station, const uint64_t* words);
  // The clearing cost of a state whose requirement_open_ is filled (0 without requirements).
  int32_t clearing(const uint64_t* words);
  // Fills each group's skip costs (see "Clearing"); whether any changed since the last call.
  bool skip_costs(const uint64_t* words);
  std::vector<uint8_t> requirement_open_;
  // Parks (see above), from the clearing entries: a requirement with one station s and a goal
  // variable, the robots that may stand at s with their position facts there, and the
  // projection objects that may stand at s with their facts "at s" (pairs).
  struct Park {
    int32_t requirement, variable;
    IntVec robots, at;
  };
  std::vector<Park> parks_;
  // A park whose variable is companion `companion` of lift `lift`; its entries in missing_
  // (one per value of K, after the lifts') say where it applies.
  struct ParkLink {
    int32_t park, lift, companion, flag_begin;
  };
  std::vector<ParkLink> park_links_;
  // Links parks_ to lifts_ and makes room for their flags (after both are read).
  void link_parks();
  // Fills p.parks for the row's lifted roles from p.via (see "Parks"); false past `room`.
  bool build_parks(Projection& p, const ProjectionSpec& spec, int32_t index,
                   const std::vector<Bits>& bits, int32_t sink, const std::vector<int16_t>& bit_of,
                   const IntVec& reverse_begin, const IntVec& reverse_source,
                   const std::vector<uint8_t>& reverse_cost, int64_t room);
  std::vector<uint8_t> skip_before_;  // scratch for skip_costs()
  // spec.hand_over_places: a robot slot, that robot's position fact, and the fact of a
  // container that hand-overs need at that station; and the robot (the position fact's first
  // argument).
  struct HandOverPlace {
    int32_t slot, robot_at, container_at, robot;
  };
  std::vector<HandOverPlace> hand_over_places_;
  IntVec free_hands_;  // spec.free_hands
  IntVec sums_;                   // scratch: per combination, the bound's sum
  // Per combination, the sum without the creators' costs, and its terms as evaluate() last
  // added them (per ungrouped projection, then per group; see evaluate()).
  IntVec base_sums_, terms_;
  // Scratch for match(): its result per class, and a member's costs per (role, class).
  IntVec class_costs_, role_costs_;
  // Per lift (from its missing_begin) and value of its K: some companion is missing there.
  // Then, per lift, candidate and value (from its buried_begin): that, or the candidate is
  // buried under every candidate of some companion there.
  std::vector<uint8_t> missing_;
  // Buried objects: per item, the (fact "it lies atop lower", lower) pairs of lift_stacks.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> atop_of_;
  IntVec below_;  // scratch for buried(): the items below the candidate
  // Fills the buried entries of missing_ (after the lifts' own).
  void bury(const uint64_t* words);
  // Whether `object`, standing at K's value `value` of `lift`, lies below every candidate at K
  // of some companion atom.
  bool buried(const Lift& lift, size_t value, int32_t object, const uint64_t* words);
  // The entry of missing_ that decides whether the role of `object` under `lift` is lifted at
  // K's value `value`.
  int32_t lift_flag(const Lift& lift, int32_t object, int32_t value) const;
  std::vector<FactMask> lift_words_;  // every lift's companion facts, by word
  std::vector<FactMask> bury_words_;  // the facts bury() reads, by word
  int64_t abstract_states_ = 0;
  int32_t coarse_rows_ = 0;
  int32_t sink_rows_ = 0;
  int64_t distance_entries_ = 0;
  // The last build() that ran past its max_states: how many of the states it found it had
  // expanded (0: none did). The upgrade pass predicts a retry's size from it.
  int64_t over_cap_expanded_ = 0;
  int64_t enumerated_states_ = 0;  // abstract states of every build so far, failed ones too
  std::string key_;
  std::string swapped_key_;  // scratch for canonical_robots(): the image key
  std::vector<std::pair<int32_t, size_t>> swapped_listed_;  // ... and its templates
  std::vector<std::pair<int32_t, int32_t>> listed_;  // scratch for project(): T's listed
  // The state evaluate() saw last (empty before the first call), and its missing_.
  std::vector<uint64_t> last_words_;
  IntVec last_counters_;
  std::vector<uint8_t> last_missing_;
  std::vector<uint8_t> id_changed_;  // scratch: per projection, its id differs from last call's
  // Per projection: whether a robot stood at its object when find() last read it, so that the
  // robots' hands (hand_masks_, from free_hands_) decided its arrival bits.
  std::vector<uint8_t> hand_read_;
  std::vector<FactMask> hand_masks_;
  // Per projection, what find() read last: F's bits (with the positions the rows' away robots
  // moved to since) and the slots it placed as away (a mask; 0 where placing failed). find()
  // leaves them for the state it reads in found_bits_ and found_away_.
  std::vector<Bits> row_bits_;
  std::vector<uint64_t> row_away_;
  // Scratch: the facts of a row that changed, as (entry of its watched, the bits there).
  std::vector<std::pair<int32_t, uint64_t>> moved_;
  Bits found_bits_;
  uint64_t found_away_ = 0;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_PROJECTION_H_

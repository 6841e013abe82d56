/*
 * Exact optimal planning over the full delayed state space of a Task: breadth-first search and
 * A* with the admissible DelayHeuristic (heuristic.h). A plan is a sequence of steps; each step
 * is one grounding (centralized, turn-based) or one grounding or -1 per robot (simultaneous),
 * and every step costs 1, so the plan with the fewest steps is optimal. Waiting is a step.
 *
 * State space: a node is the whole engine state (fact words and effect counters, including
 * timers, the active-effect list and created objects), so delays are exact: waiting, overlapping
 * work with cooking and pausing a timer are all just states. In centralized and simultaneous
 * mode the current-player counter is irrelevant and cleared; in turn-based mode it is part of
 * the state.
 *
 * Packed states: facts that no action or effect can change are dropped, the others are copied
 * bit-exactly, except that each given at-most-one fact set (of n >= 3 facts) is stored as one
 * field of bit_width(n) bits: 0 when none of its facts is true, else 1 + the index of the true
 * one (a state with two true throws std::logic_error: the set was no invariant). The counters
 * (few distinct values: they are non-zero only for running effects) are interned in a side
 * table and stored as a uint32. So are the other facts' bits (the plain facts: what is cut,
 * cooked, clear, which stations are vacant), where they fill at least min_interned_bytes, in
 * parts of at most about 24 bytes, each in a table of its own: they take far fewer values than
 * the states, while the sets' fields (where each item and robot is) make most of the
 * difference between states. A row is then the fields' bytes, an id per part and the
 * counters' id: on multi_agent/10 seed 294, 38 bytes instead of 96, and about 64 bytes per
 * stored state in all instead of 118 (benchmarks/README.md, "Plain facts interned").
 * Stored states live in fixed-size blocks of rows indexed by id, as do the per-id parent, g,
 * bound and flags (growing never copies them, and memory follows the number of states); a
 * hash set of ids (open addressing, 4-byte slots: the id and a tag of the row's hash) is the
 * visited set.
 * The plan is the walk back along parents; the step between a state and its parent is found
 * again among the parent's successors (storing it would cost 4 bytes per state, a joint
 * step's width in simultaneous mode).
 *
 * Optimality: BFS tests the goal when a state is generated and expands by layers, so the first
 * goal found is at minimal depth. A* pops the lowest f = g + h (ties: highest g) and stops when
 * it pops a goal; with an admissible h and re-opening of states reached by a shorter path that
 * is optimal. States whose relaxation cannot reach the goal are pruned (no plan exists there).
 * With the projection bound, the DelayHeuristic part is kept only where it exceeds the
 * projection bound at the start, and it is deferred: a generated state gets the projection
 * value, and the rest is computed when it is popped; if that raises its f it goes back to the
 * open list (admissible either way, so optimality is unaffected). In simultaneous mode with P
 * robots the projections bound the actions still to come (projection.h, "Joint steps"), and
 * their bound is that divided by P, rounded up.
 * Weighted A* (weight w > 1, for plans that need not be optimal): f = g + w * h; the plan is
 * then at most w times the optimum, and `bound` proves nothing (reported as 0). w may be a
 * fraction p / q: layers are then counted in units of 1 / q (f = q g + p h), so they stay
 * integers. A weight just above 1 (17 / 16) keeps A*'s order among states of about equal f,
 * and its plans near the optimum, while letting it go deeper: where the bound is tight it
 * finishes far sooner than A* (benchmarks/README.md, "Weighted A*").
 *
 * Symmetry reduction (optional, symmetry.h): every generated state, the start included, is
 * replaced by its orbit's representative before it is stored, evaluated or expanded; goal
 * tests are unaffected (the goal is invariant). The plan found is a path between
 * representatives; extraction replays it, tracking the permutation from the real states to the
 * representatives, and maps each step's groundings back to the real objects. A state's steps
 * that differ only by trading two class members that the state cannot tell apart (two empty
 * tables: Canonicalizer::stabilizer) lead to one orbit, so only one of them is generated (a
 * joint step in simultaneous mode, where the robots are never traded, counts as one step
 * naming the objects of all its entries); the others would only be canonicalized, packed and
 * found again.
 *
 * Effect order: the active special-effect list is stored in its normal form (effect_order.h):
 * effects that commute (a cooking patty's timer and a chicken's) are listed in a fixed order
 * whichever started first, so states that differ only in that order are stored once. The plan
 * is unaffected: the order changes no step's outcome. Done before and after symmetry reduction
 * (whose renaming of templates can unsort the list).
 *
 * Relocation pruning (centralized mode, optional): relocation_robot marks the groundings that
 * only move a robot r between stations (python/robotouille/planning.py checks the domain's move
 * has the shape this rests on: it needs loc(r, a) and vacant(b) and only swaps those facts, no
 * special effect reads or writes them, and a wait with no preconditions or effects exists).
 * After a step that moved r, neither r's moves nor a no-op (a grounding without effects) are
 * expanded. Every plan can be rewritten into one without those, of the same length and end
 * state: nothing else acts between two steps and the end-of-step pass ignores where robots
 * stand, so
 *   - r's moves a -> b -> c become a -> c and a wait (a wait and a wait when c == a);
 *   - r's move and a no-op become a wait and the move (vacancy does not change while waiting);
 * and each rewrite removes a move or moves a wait earlier, so rewriting ends. So the graph of
 * (state, robot the step into it moved) nodes, pruned so, keeps an optimal plan. The search
 * stores each state once: with its fewest steps found so far, and the pruning of the step that
 * reached it so; an equally short step that prunes less (another robot's move, or no move)
 * lifts the pruning, since the node with fewer successors pruned dominates. If the state was
 * expanded already, it is expanded once more for the successors skipped before. Under
 * symmetry reduction the robot is named as in the stored representative.
 *
 * Commutation pruning (with relocation pruning, two robots): commuting_robot marks the
 * groundings of robot s that commute with every move of the other robot r: no move and no
 * no-op, no special effect started, and none of their facts (preconditions and effects) read or
 * written by a special effect or by a move of r (python/robotouille/planning.py checks this per
 * grounding). After such a step, neither r's moves nor a no-op are expanded, as after r's own
 * move. A step b of s followed by r's move a becomes a then b, and b followed by a wait
 * becomes the wait then b, with the same length and end state: a needs only where r stands and
 * that its target is vacant, which b leaves as they are; b's preconditions are facts that
 * neither a nor the end-of-step pass writes, so they held a step earlier; and the pass does
 * the same in either order, since it reads nothing a or b writes and writes nothing they
 * write. Together with the rewrites above, each rewrite removes a move, or moves a wait
 * earlier, or (b before a) keeps both and undoes one pair of a commuting step before a later
 * move of the other robot, so rewriting ends in a plan that neither pruning skips. The rule
 * names no robot order, so it holds under symmetry reduction's renaming of the robots.
 *
 * Threads (A*): with threads > 1, A* pops a batch of states of its current f layer (deepest
 * first), every thread expands some of them (successors, symmetry, packing, a read-only probe of
 * the visited set, the bound of those not found: most of the work), each with its own
 * canonicalizer, bounds (the projections' tables shared, read-only) and packing scratch; then
 * thread 0 stores the successors in the batch's order, exactly as A* would store them had it
 * popped the batch's states one after another, before any of their successors. The threads
 * never write what another reads in the same phase, and nothing depends on their timing: the
 * search is the same for a batch size whatever the number of threads. The new successors are
 * bounded after the whole batch is expanded, each thread taking the next expansion's; one that
 * two expansions of the batch reach (neither finds it stored yet) is bounded once, the later
 * copy taking the earlier one's bound, which is what merging it would find stored. It is
 * still A* (every f layer is exhausted before the next), so the plan is optimal; a batch
 * changes the order within a layer, so the plan found and the statistics may differ from those
 * of a batch of one. New counter values are interned when stored, so their ids too follow the
 * batch order.
 * BFS the same way: a batch holds states of one layer, in the order stored, every thread
 * generates and packs the successors of some of them and probes the visited set (read-only),
 * and thread 0 interns what the tables lacked and stores the successors in the batch's order.
 * A successor lies one layer deeper than the batch, so storing changes nothing the batch's
 * expansions read (a stored state's relocation pruning only relaxes), and the search, its plan
 * and statistics are those of one thread whatever the threads and the batch size (only the
 * memory may differ: the tables get room for a batch before it is stored, and may hold the
 * entries of a batch's rest where the search stops in it). Thread 0 stores a batch while the
 * other threads expand the next one of the same layer, then joins them: the tables first get
 * room for everything the store may add (nothing grows while the others read), and the others'
 * probes do not see what it adds meanwhile, so they leave those successors to the store, as
 * they do any state not stored yet.
 *
 * Partial expansion (A*, to save memory): most stored states are generated and never
 * expanded, since A* stops at the optimum's layer while a state's successors lie in layers up
 * to two above its own (the original multi_agent/10: 2.0M stored for 294K expanded). From
 * partial_from_bytes of the search's tables on (by default half of max_memory_bytes; never
 * without a budget), an expansion stores only the new successors whose f is at most the
 * layer expanded plus partial_slack (0 by default), and puts the state back in the open list
 * at the layer where the lowest f it left out, less the slack, falls due; expanded there, it
 * generates its successors again, stores those now due and puts itself back again if some
 * are still left out. Each successor is so stored before its layer is reached, so the layers
 * A* exhausts hold the same states and the plan is still optimal (partial expansion A*,
 * Yoshizumi, Miura and Ishida, AAAI 2000). Successors found among the stored states are
 * treated as before. Meanwhile a state that relocation pruning would expand once more for the
 * successors it skipped is expanded again whole instead, so no expansion generates fewer
 * successors than the one before it, which left some out. The cost is the regenerated
 * successors and their bounds: on the original multi_agent/10 from the start, 10.5x fewer
 * states stored (191K) for 6% more expansions and 1.3-1.4x the time (benchmarks/README.md,
 * "Partial expansion").
 *
 * Limits: max_states (stored states), max_memory_bytes (the search's own tables), time_limit
 * (seconds) and a poll callback (for Ctrl-C and progress reports: it gets the statistics so
 * far), checked every few hundred expansions; when one trips the search stops and returns its
 * status with the statistics so far; their `bound` is a proven lower bound on the optimum (A*
 * at the state limit stops before it starts a layer, since a successor left out may lie in the
 * layer before). Plans are at most kMaxSearchDepth steps long (a state's steps from the start
 * take 16 bits): a search about to expand a state that deep stops too.
 *
 * Ownership: search() reads the Task (shared, immutable) and owns everything it allocates,
 * its threads included (they end with the call); it is safe to run many searches on different
 * threads at once.
 */
#ifndef ROBOTOUILLE_SEARCH_H_
#define ROBOTOUILLE_SEARCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "robotouille/projection.h"
#include "robotouille/symmetry.h"
#include "robotouille/task.h"

namespace robotouille {

enum class Algorithm : int32_t { kBfs = 0, kAstar = 1 };
enum class PlanMode : int32_t { kCentralized = 0, kTurnBased = 1, kSimultaneous = 2 };
enum class SearchStatus : int32_t {
  kSolved = 0,
  kUnsolvable = 1,   // the reachable state space holds no goal
  kStateLimit = 2,
  kMemoryLimit = 3,
  kTimeLimit = 4,
  kCancelled = 5,    // the poll callback asked to stop
  kDepthLimit = 6,   // a state kMaxSearchDepth steps deep was to be expanded
};

// The deepest state a search keeps (its step count is stored in 16 bits), so the longest plan
// it can return; a search that would go deeper stops with kDepthLimit.
inline constexpr int32_t kMaxSearchDepth = 0xFFFF;

struct SearchStats;

struct SearchOptions {
  Algorithm algorithm = Algorithm::kAstar;
  PlanMode mode = PlanMode::kCentralized;
  bool lmcut = true;             // A*: max(LM-cut, time) rather than the time bound alone
  // A*: f = g + w * h with w = weight / weight_denominator (from 1 to 64, the denominator at
  // most 64); above 1 the plan is not necessarily optimal.
  int32_t weight = 1;
  int32_t weight_denominator = 1;
  int32_t threads = 1;           // threads that expand states (see "Threads")
  int32_t batch = 0;             // states expanded at once; 0: 1 on one thread, else 32 per
                                 // thread (A*) or 128 (BFS)
  // A*: also the projection bound (projection.h), built from the start state; the heuristic
  // is then the max of it and the bounds above.
  std::shared_ptr<const ProjectionSpec> projections;
  // The task the projections are built for, if not the searched one: the same task with goal
  // atoms that every reachable goal state satisfies added (python/robotouille/projections.py,
  // implied_goal_task). Same facts, groundings and effects; only the goal differs. Not owned:
  // the caller keeps it alive while the search runs.
  const Task* projection_task = nullptr;
  // Caps on building the projections. upgrade_seconds 0 here means kUpgradeShare of time_limit
  // (or of projection_limits.planned_seconds without one; search.cc, bound_limits).
  ProjectionLimits projection_limits;
  std::vector<int32_t> robots;   // robot object ids in player order (turn-based, simultaneous)
  int64_t max_states = 0;        // 0: no limit
  int64_t max_memory_bytes = 0;  // 0: no limit
  double time_limit = 0;         // seconds; 0: no limit
  // Per grounding: the robot it relocates, or -1 (see "Relocation pruning"); empty: none.
  // Used in centralized mode only.
  IntVec relocation_robot;
  // Per grounding: the robot whose moves are not expanded right after it, or -1 (see
  // "Commutation pruning"); empty: none. Used only together with relocation_robot.
  IntVec commuting_robot;
  // Interchangeable objects (symmetry.h); null or no classes: every state is stored as is.
  std::shared_ptr<const SymmetrySpec> symmetry;
  // Called every ~0.1 s from the searching thread with the statistics so far (stored, bytes,
  // bound and seconds as of the call); returning true cancels the search.
  std::function<bool(const SearchStats&)> poll;
  // At-most-one fact sets (CSR; python/robotouille/invariants.py proves them), packed as an
  // index each (see "Packed states"). Empty: every mutable fact is one bit.
  IntVec pack_group_begin, pack_group_facts;
  // The other mutable facts' bytes are interned where they fill at least this many (see
  // "Packed states"); 0: never. Changes the memory only, not the search. Fewer may not pay:
  // 8 bytes of them, interned in synchronous/6's breadth-first search, took more memory than
  // they saved in the rows (36.6 bytes per stored state instead of 32.8).
  int32_t min_interned_bytes = 16;
  // A* under memory pressure (see "Partial expansion"): once the search's tables hold
  // partial_from_bytes, a new successor whose f exceeds the layer being expanded by more than
  // partial_slack is not stored, and its parent is expanded again when that successor falls
  // due. partial_from_bytes -1: from half of max_memory_bytes where there is a budget, else
  // never; partial_slack -1: never.
  int32_t partial_slack = 0;
  int64_t partial_from_bytes = -1;
};

struct SearchStats {
  int64_t expanded = 0;
  int64_t generated = 0;
  int64_t stored = 0;
  int64_t bytes = 0;          // memory held by the search's tables at the end
  int64_t state_bytes = 0;    // bytes of one packed state
  int64_t pruned = 0;         // successors dropped: dead ends, exhausted creation pools
  int64_t deferred = 0;       // expansions that left successors out (partial expansion)
  int32_t initial_h = 0;
  int64_t abstract_states = 0;  // states of the projection bound's abstractions
  int32_t coarse_rows = 0;      // its objects whose full row was not built (coarse_rows())
  int32_t sink_rows = 0;        // its objects whose full row has a sink (sink_rows())
  int32_t bound = 0;            // lower bound proven: A*'s current f layer, BFS's depth
  double seconds = 0;
};

struct SearchResult {
  SearchStatus status = SearchStatus::kUnsolvable;
  // One entry per step: the groundings applied in that step (one, or one or -1 per robot).
  std::vector<std::vector<int32_t>> plan;
  SearchStats stats;
};

SearchResult search(const Task& task, const uint64_t* words, const int32_t* counters,
                    const SearchOptions& options);

// The caps a search builds its projection bound under: options.projection_limits, with the
// threads, and grown with the time limit and the memory budget unless they name
// upgrade_seconds (see bound_limits in search.cc).
ProjectionLimits bound_limits(const SearchOptions& options);

// The heuristic value of one state (for tests and diagnostics); DelayHeuristic::kDeadEnd when
// the relaxation cannot reach the goal.
int32_t heuristic_value(const Task& task, const uint64_t* words, const int32_t* counters,
                        const SearchOptions& options);

std::string status_name(SearchStatus status);

}  // namespace robotouille

#endif  // ROBOTOUILLE_SEARCH_H_

/*
 * Admissible lower bounds on the number of steps from a state to the goal, for A* (search.h).
 *
 * Both bounds are computed on the delete relaxation of the task: negative preconditions and
 * every fact deletion are dropped, and each grounding g becomes relaxed operators
 *   o_g   cost 1: adds g's immediate effects and every fact any of its special effects could ever
 *         add outside a repetitive node (conditional effects also add what their failure branch
 *         would write, creations add facts of every object in their pool);
 *   o_g*  cost r (only for "counted" groundings, below): adds o_g's facts plus those under its
 *         repetitive node, which needs r more applications (r = goal - progress in the state).
 * Effects already under way in the state (active special effects) are free: their pending facts
 * are treated as true (for the cost bound) or true after their remaining delay (time bound).
 * The goal's variables: those shared by several atoms (e.g. the table a burger stands on) are
 * enumerated jointly, the others relaxed per atom (an atom holds when any fact it can map to
 * under the fixed shared values holds); the relaxed goal holds when some assignment's atoms do.
 *
 *   lmcut(s)  the LM-cut bound (Helmert & Domshlak 2009) on the relaxed operators' costs.
 *   time(s)   the critical path: h_max where an operator's facts arrive after latencies
 *             (1 for an action's effects, + d - 1 per delayed node of duration d on the path,
 *             r for a repetitive node needing r applications).
 *
 * Why they never overestimate. Take any real plan of n steps from s. In centralized and
 * turn-based mode each step applies at most one grounding. Map the plan to a relaxed plan: for
 * each grounding g it applies, include o_g, or o_g* if one of g's repetitive nodes fired. A
 * grounding is "counted" only if it triggers exactly one repetitive node and every grounding
 * that triggers the same special-effect template has the same o_g facts; then the r
 * applications that fire the node are applications of such groundings, so one o_g* (cost r)
 * stands for all of them. Every fact the real plan makes true is added by the relaxed plan, so
 * it reaches every goal atom, and its cost is at most the number of applications, at most n.
 * LM-cut never exceeds the optimal relaxed cost, so lmcut(s) <= n. For time: the real plan
 * makes no fact true earlier than the relaxed earliest-arrival times (an action's effects exist
 * after its step; a delayed node of duration d fires d - 1 steps after its activation step; a
 * repetitive node needs r steps with an application), so the goal is reached no earlier than
 * time(s). In simultaneous mode up to P robots act per step: the cost bound is divided by P
 * (rounded up) and repetitive latencies become ceil(r / P). The heuristic is max(both).
 * Objects made by creations: where the task has no deletion, an object that exists in s can
 * never be created again, so a fact that only its creation adds and that is false in s stays
 * false along every real plan from s. Such facts are blocked for s (never reached in the
 * relaxation); the mapping above never needs them. This makes, e.g., a soup already poured
 * into its bowl a dead end for "add more to it" (adding needs it in a pot).
 *
 * Ownership: a DelayHeuristic holds the relaxed task (immutable after construction) and
 * per-call scratch space, so one instance must be used by one thread at a time; it refers to
 * the Task, which must outlive it.
 */
#ifndef ROBOTOUILLE_HEURISTIC_H_
#define ROBOTOUILLE_HEURISTIC_H_

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "robotouille/task.h"

namespace robotouille {

class DelayHeuristic {
 public:
  static constexpr int32_t kDeadEnd = std::numeric_limits<int32_t>::max();

  // parallel_actions: actions per step (1, or the number of robots in simultaneous mode).
  DelayHeuristic(const Task& task, int32_t parallel_actions, bool use_lmcut);

  // max(lmcut, time); kDeadEnd when even the relaxation cannot reach the goal.
  int32_t evaluate(const uint64_t* words, const int32_t* counters);
  int32_t lmcut(const uint64_t* words, const int32_t* counters);
  int32_t time_bound(const uint64_t* words, const int32_t* counters);

 private:
  struct PendingFact {
    int32_t fact;
    int32_t time;
  };
  void build(const Task& task);
  void build_goal(const Task& task);
  void add_op(const IntVec& pre, const IntVec& adds, const IntVec& lats, int32_t cost,
              int32_t rep_node);
  // Adds of node `n`'s own literals (relaxed), into out (cached in node_adds_), and into
  // owners for each the object it is a fact of as the node's created object (else -1).
  void compute_node_adds(int32_t node, IntVec& out, IntVec& owners) const;
  // Collects (fact, latency) of the subtree of `node` (latency of its activation = base).
  void subtree_adds(int32_t node, int32_t base, bool stop_at_repetitive, IntVec& facts,
                    IntVec& latencies, IntVec* repetitive) const;
  // Sets per-state op costs, latencies, the state's relevant true facts (stack_) and the facts
  // that will be true for free (pending_). The time bound only reads it; LM-cut then uses up
  // the costs, so it runs last.
  void prepare(const uint64_t* words, const int32_t* counters);
  int32_t lmcut_prepared();
  void pending_of_template(const int32_t* counters, int32_t node, bool running, int32_t time);
  // h_max over current costs from the prepared state; fills supporter_. Returns goal value.
  int32_t hmax(bool with_times);

  const Task& task_;
  int32_t parallel_;
  bool use_lmcut_;
  int32_t num_rfacts_ = 0;   // task facts, TRUE, TOP, then one per goal-atom instance
  int32_t top_ = 0, true_ = 0;
  // Operators (CSR): preconditions, adds with latencies, base cost and repetitive source.
  IntVec op_pre_begin_, op_pre_, op_add_begin_, op_add_, op_lat_;
  IntVec op_cost_;       // base cost (0 for goal operators, 1 for groundings)
  IntVec op_rep_node_;   // counted o_g*: its repetitive node (cost r from the state), else -1
  IntVec pre_of_begin_, pre_of_;  // fact -> operators with it as a precondition
  IntVec add_of_begin_, add_of_;  // fact -> operators adding it
  IntVec node_template_;          // node -> its template
  IntVec node_add_begin_, node_adds_;  // node -> its own literals' relaxed adds (CSR)
  IntVec relevant_;               // fact -> 1 if it can matter for the goal
  // Per object some creation makes: its exists fact, and the facts only its creation adds.
  std::vector<std::pair<int32_t, IntVec>> created_facts_;
  IntVec blocked_, blocked_list_;      // per state: facts of existing objects that stay false
  std::vector<std::pair<int32_t, int32_t>> atom_links_;  // (task fact, atom instance)
  std::vector<IntVec> goal_sets_;  // per key assignment: the atom instances TOP needs
  // Scratch.
  IntVec cost_, lat_extra_, value_, unsat_, supporter_, zone_;
  std::vector<PendingFact> pending_;
  std::vector<IntVec> buckets_;
  IntVec stack_;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_HEURISTIC_H_

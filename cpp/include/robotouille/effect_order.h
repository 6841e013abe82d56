/*
 * The order of the active special-effect list, reduced to what matters: a normal form that the
 * planner stores instead of the order the effects happened to start in.
 *
 * The engine keeps active special effects in creation order (task.h, counters [2, 2+L)) and its
 * end-of-step pass updates them in that order (kernels.h). The order matters only there. Two
 * templates commute when updating one never changes what updating the other reads or writes:
 * neither creates or deletes objects (that moves ranks and exists facts), neither writes a
 * literal over a created object, and the facts one writes (effect literals of any of its
 * nodes) are disjoint from the facts the other writes or reads (conditions and literal guards).
 * Node words are per template, so they never clash.
 *
 * Why exchanging adjacent commuting templates in the list changes nothing: the pass gives the
 * same facts and node words (each update reads and writes only what the other leaves alone).
 * Afterwards both lists lose the same completed templates (order kept), and a step appends the
 * same new templates to both; two lists related by exchanges of adjacent commuting templates
 * stay so related under both (dropping or appending the same templates keeps every exchange
 * valid). So the two states have the same successors, step by step, up to the list's order,
 * and the same distance to the goal, for every sequence of steps.
 *
 * Normal form: of all the orders reachable by such exchanges (a trace, in the sense of
 * Mazurkiewicz), the lexicographically smallest by template id. It is built by picking, again
 * and again, the smallest template that commutes with every template still before it.
 *
 * Ownership: an EffectOrder copies what it needs from the Task at construction (read-only
 * afterwards, so one instance may serve many threads).
 */
#ifndef ROBOTOUILLE_EFFECT_ORDER_H_
#define ROBOTOUILLE_EFFECT_ORDER_H_

#include <cstdint>
#include <vector>

#include "robotouille/task.h"

namespace robotouille {

class EffectOrder {
 public:
  explicit EffectOrder(const Task& task);

  // Whether no pair of templates commutes (then normalize never changes a list).
  bool empty() const { return empty_; }

  // Whether updating t and u in either order gives the same state.
  bool commute(int32_t t, int32_t u) const;

  // Rewrites the active list in counters into its normal form. Returns whether it changed.
  bool normalize(int32_t* counters) const;

 private:
  // Per template: the facts its nodes write and those they read, each sorted (CSR), and
  // whether it creates or deletes objects (then it commutes with nothing).
  IntVec write_begin_, writes_, read_begin_, reads_;
  std::vector<uint8_t> global_;
  bool empty_ = true;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_EFFECT_ORDER_H_

#include "robotouille/kernels.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace robotouille {
namespace {

// Applies literals [begin, end); negate flips every value (a failing conditional writes the
// negation of its effects). Literals over an object that no longer exists are skipped, and
// `created` (or -1) is substituted for the created placeholder.
void apply_literals(const Task& task, uint64_t* words, int32_t begin, int32_t end, bool negate,
                    int32_t created) {
  const TaskSpec& s = task.spec;
  for (int32_t l = begin; l < end; ++l) {
    bool live = true;
    for (int32_t k = s.lit_guard_begin[l]; k < s.lit_guard_begin[l + 1]; ++k) {
      live = live && test_bit(words, s.lit_guards[k]);
    }
    if (!live) continue;
    int32_t fact = s.lit_fact[l];
    if (s.lit_created_stride[l] > 0) {
      if (created < 0) continue;
      fact += s.lit_created_stride[l] * s.typepos[created];
      // The created object can equal another argument only when an object of the same name
      // was deleted and re-created within one update; the original has no such predicate.
      if (test_bit(task.hole_mask.data(), fact)) continue;
    }
    set_bit(words, fact, (s.lit_value[l] != 0) != negate);
  }
}

// Creates the next object of a creation group: base name + (1 + highest existing suffix).
// Returns the object, or -1 when the pool is exhausted.
int32_t create_object(const Task& task, uint64_t* words, int32_t* counters, int32_t group) {
  const TaskSpec& s = task.spec;
  const int32_t begin = s.group_slot_begin[group];
  const int32_t end = s.group_slot_begin[group + 1];
  int32_t next = begin;
  for (int32_t k = end - 1; k >= begin; --k) {
    const int32_t ex = s.exists_fact[s.group_slots[k]];
    if (ex < 0 || test_bit(words, ex)) {
      next = k + 1;
      break;
    }
  }
  if (next >= end) return -1;
  const int32_t obj = s.group_slots[next];
  if (s.exists_fact[obj] >= 0) set_bit(words, s.exists_fact[obj], true);
  // The original appends a created object to its object list: give it the next rank.
  if (task.rank_slot[obj] >= 0) {
    int32_t* ranks = counters + task.rank_offset;
    int32_t top = 0;
    for (int32_t i = 0; i < task.num_ranked; ++i) top = std::max(top, ranks[i]);
    ranks[task.rank_slot[obj]] = top + 1;
  }
  return obj;
}

void delete_object(const Task& task, uint64_t* words, int32_t* counters, int32_t obj) {
  const TaskSpec& s = task.spec;
  for (int32_t k = s.delete_fact_begin[obj]; k < s.delete_fact_begin[obj + 1]; ++k) {
    set_bit(words, s.delete_facts[k], false);
  }
  // Keep ranks dense: the objects appended after it move up by one.
  if (task.rank_slot[obj] >= 0) {
    int32_t* ranks = counters + task.rank_offset;
    const int32_t gone = ranks[task.rank_slot[obj]];
    ranks[task.rank_slot[obj]] = 0;
    if (gone > 0) {
      for (int32_t i = 0; i < task.num_ranked; ++i) ranks[i] -= ranks[i] > gone ? 1 : 0;
    }
  }
}

// Updates children of `node` with the flag; returns whether all of them are completed.
int update_node(const Task& task, uint64_t* words, int32_t* counters, int32_t node, bool active,
                bool* all_done);

int update_children(const Task& task, uint64_t* words, int32_t* counters, int32_t node,
                    bool active, bool* all_done) {
  const TaskSpec& s = task.spec;
  int status = 0;
  bool done = true;
  for (int32_t k = s.node_child_begin[node]; k < s.node_child_begin[node + 1]; ++k) {
    bool child_done = false;
    status |= update_node(task, words, counters, s.node_children[k], active, &child_done);
    done = done && child_done;
  }
  if (all_done) *all_done = done;
  return status;
}

// The update rules of reference §1.7. *done reports whether the node is completed afterwards.
int update_node(const Task& task, uint64_t* words, int32_t* counters, int32_t node, bool active,
                bool* done) {
  const TaskSpec& s = task.spec;
  int32_t& state = counters[task.node_offset + node];
  int status = 0;
  if (state & kCompleted) {
    *done = true;
    return 0;
  }
  const int32_t fx_begin = s.node_fx_begin[node];
  const int32_t fx_end = s.node_cond_begin[node];
  const int32_t cond_end = s.node_fx_begin[node + 1];
  switch (static_cast<EffectType>(s.node_type[node])) {
    case EffectType::kDelayed:
    case EffectType::kRepetitive: {
      const bool delayed = s.node_type[node] == static_cast<int32_t>(EffectType::kDelayed);
      // Delayed effects count passive updates (one per step); repetitive ones count actions.
      if (active == delayed) break;
      state += 1;
      if ((state & kProgressMask) == s.node_goal[node]) {
        apply_literals(task, words, fx_begin, fx_end, false, -1);
        status |= update_children(task, words, counters, node, !delayed, nullptr);
        state |= kCompleted;
      }
      break;
    }
    case EffectType::kConditional: {
      for (int32_t l = fx_end; l < cond_end; ++l) {
        if (test_bit(words, s.lit_fact[l]) != (s.lit_value[l] != 0)) {
          // A failing condition writes the negated effects and pauses nested timers.
          apply_literals(task, words, fx_begin, fx_end, true, -1);
          *done = false;
          return 0;
        }
      }
      apply_literals(task, words, fx_begin, fx_end, false, -1);
      bool all = true;
      status |= update_children(task, words, counters, node, active, &all);
      if (all) state |= kCompleted;
      break;
    }
    case EffectType::kCreation: {
      const int32_t obj = create_object(task, words, counters, s.node_create_group[node]);
      if (obj < 0) return kStatusPoolExhausted;
      apply_literals(task, words, fx_begin, fx_end, false, obj);
      bool all = true;
      status |= update_children(task, words, counters, node, active, &all);
      if (all) state |= kCompleted;
      break;
    }
    case EffectType::kDeletion: {
      delete_object(task, words, counters, s.node_delete_object[node]);
      apply_literals(task, words, fx_begin, fx_end, false, -1);
      status |= update_children(task, words, counters, node, active, nullptr);
      state |= kCompleted;
      break;
    }
  }
  *done = (state & kCompleted) != 0;
  return status;
}

void clear_template(const Task& task, int32_t* counters, int32_t t) {
  const int32_t first = task.spec.template_first[t];
  std::memset(counters + task.node_offset + first, 0,
              sizeof(int32_t) * static_cast<size_t>(task.spec.template_count[t]));
}

}  // namespace

bool is_valid(const Task& task, const uint64_t* words, int32_t g) {
  const TaskSpec& s = task.spec;
  for (int32_t k = s.pre_pos_begin[g]; k < s.pre_pos_begin[g + 1]; ++k) {
    if (!test_bit(words, s.pre_pos[k])) return false;
  }
  for (int32_t k = s.pre_neg_begin[g]; k < s.pre_neg_begin[g + 1]; ++k) {
    if (test_bit(words, s.pre_neg[k])) return false;
  }
  return true;
}

namespace {

// Depth-first walk of one applicability tree; the depth is the tree's height (small).
void walk_tree(const Task& task, const uint64_t* words, uint64_t* mask, int32_t player,
               int32_t node_id) {
  const TaskSpec& s = task.spec;
  while (node_id >= 0) {
    const Task::TreeNode& node = task.tree[node_id];
    for (int32_t k = node.leaf_begin; k < node.leaf_end; ++k) {
      const int32_t g = task.tree_leaves[k];
      if (player < 0 || s.owner[g] < 0 || s.owner[g] == player) {
        mask[g >> 6] |= uint64_t{1} << (g & 63);
      }
    }
    if (node.fact < 0) return;
    const int32_t next = test_bit(words, node.fact) ? node.child_true : node.child_false;
    if (next >= 0) walk_tree(task, words, mask, player, next);
    node_id = node.child_any;  // tail position: iterate instead of recursing
  }
}

}  // namespace

void valid_mask(const Task& task, const uint64_t* words, uint64_t* mask, int32_t player) {
  std::memset(mask, 0, sizeof(uint64_t) * static_cast<size_t>(task.mask_words));
  if (task.unkeyed_root >= 0) walk_tree(task, words, mask, player, task.unkeyed_root);
  // Only the buckets of true key facts can hold valid groundings.
  for (int32_t w = 0; w < task.num_words; ++w) {
    uint64_t bits = words[w] & task.key_mask[w];
    while (bits) {
      walk_tree(task, words, mask, player, task.key_root[w * 64 + std::countr_zero(bits)]);
      bits &= bits - 1;
    }
  }
}

bool object_order(const Task& task, const uint64_t* words, const int32_t* counters,
                  std::vector<int32_t>& out) {
  const TaskSpec& s = task.spec;
  out.clear();
  std::vector<std::pair<int32_t, int32_t>> appended;  // (rank, object)
  for (int32_t o = 0; o < task.num_objects; ++o) {
    if (s.exists_fact[o] >= 0 && !test_bit(words, s.exists_fact[o])) continue;
    const int32_t rank = counters && task.rank_slot[o] >= 0
                             ? counters[task.rank_offset + task.rank_slot[o]]
                             : 0;
    if (rank > 0) {
      appended.emplace_back(rank, o);
    } else {
      out.push_back(o);
    }
  }
  std::sort(appended.begin(), appended.end());
  bool reordered = false;
  for (const auto& [rank, o] : appended) {
    reordered = reordered || (!out.empty() && o < out.back());
    out.push_back(o);
  }
  return reordered;
}

void dynamic_keys(const Task& task, const std::vector<int32_t>& order, std::vector<int32_t>& key) {
  // Objects compare by their position in the state's object order; absent ones come first.
  key.assign(static_cast<size_t>(task.num_objects), -1);
  for (size_t i = 0; i < order.size(); ++i) key[order[i]] = static_cast<int32_t>(i);
}

void valid_groundings(const Task& task, const uint64_t* words, std::vector<int32_t>& out,
                      int32_t player, const int32_t* counters) {
  std::vector<uint64_t> mask(static_cast<size_t>(task.mask_words));
  valid_mask(task, words, mask.data(), player);
  out.clear();
  for (int32_t w = 0; w < task.mask_words; ++w) {
    uint64_t bits = mask[w];
    while (bits) {
      out.push_back(w * 64 + std::countr_zero(bits));
      bits &= bits - 1;
    }
  }
  std::vector<int32_t> order, key;
  if (!counters || !object_order(task, words, counters, order)) return;
  // Canonical order over the state's object order: action, then arguments left to right.
  dynamic_keys(task, order, key);
  const TaskSpec& s = task.spec;
  const auto width = static_cast<size_t>(task.max_params);
  auto arg_key = [&](int32_t g, size_t i) {
    const int32_t o = s.grounding_args[static_cast<size_t>(g) * width + i];
    return o < 0 ? -1 : key[o];
  };
  std::stable_sort(out.begin(), out.end(), [&](int32_t a, int32_t b) {
    if (s.action_of[a] != s.action_of[b]) return s.action_of[a] < s.action_of[b];
    for (size_t i = 0; i < width; ++i) {
      if (arg_key(a, i) != arg_key(b, i)) return arg_key(a, i) < arg_key(b, i);
    }
    return false;
  });
}

int apply_grounding(const Task& task, uint64_t* words, int32_t* counters, int32_t g) {
  const TaskSpec& s = task.spec;
  for (int32_t k = s.eff_begin[g]; k < s.eff_begin[g + 1]; ++k) {
    set_bit(words, s.eff_fact[k], s.eff_value[k] != 0);
  }
  int status = 0;
  for (int32_t k = s.sfx_begin[g]; k < s.sfx_begin[g + 1]; ++k) {
    const int32_t t = s.sfx_template[k];
    const int32_t root = s.template_first[t];
    int32_t& root_state = counters[task.node_offset + root];
    if (!(root_state & kActive)) {
      // A new instance: fresh counters, appended to the active list.
      clear_template(task, counters, t);
      root_state = kActive;
      counters[2 + counters[1]] = t;
      counters[1] += 1;
    }
    bool done = false;
    status |= update_node(task, words, counters, root, true, &done);
  }
  return status;
}

int end_step(const Task& task, uint64_t* words, int32_t* counters) {
  int32_t* list = counters + 2;
  const int32_t length = counters[1];
  int status = 0;
  for (int32_t i = 0; i < length; ++i) {
    bool done = false;
    status |= update_node(task, words, counters, task.spec.template_first[list[i]], false, &done);
  }
  int32_t kept = 0;
  for (int32_t i = 0; i < length; ++i) {
    const int32_t t = list[i];
    if (counters[task.node_offset + task.spec.template_first[t]] & kCompleted) {
      clear_template(task, counters, t);
    } else {
      list[kept++] = t;
    }
  }
  for (int32_t i = kept; i < length; ++i) list[i] = 0;
  counters[1] = kept;
  return status;
}

int step(const Task& task, uint64_t* words, int32_t* counters, const int32_t* groundings,
         int32_t n, uint8_t* applied) {
  int status = 0;
  for (int32_t k = 0; k < n; ++k) {
    const int32_t g = groundings[k];
    const bool ok = g >= 0 && g < task.num_groundings && is_valid(task, words, g);
    if (applied) applied[k] = ok ? 1 : 0;
    if (ok) status |= apply_grounding(task, words, counters, g);
  }
  status |= end_step(task, words, counters);
  if (goal_reached(task, words)) {
    status |= kStatusGoal;
  } else if (task.num_players > 0) {
    counters[0] = (counters[0] + 1) % task.num_players;
  }
  return status;
}

uint64_t splitmix64(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int32_t random_set_bit(const uint64_t* mask, int32_t words, uint64_t& rng) {
  int32_t count = 0;
  for (int32_t w = 0; w < words; ++w) count += std::popcount(mask[w]);
  const uint64_t z = splitmix64(rng);
  if (count == 0) return -1;
  auto pick = static_cast<int32_t>(z % static_cast<uint64_t>(count));
  for (int32_t w = 0;; ++w) {
    uint64_t bits = mask[w];
    const int32_t n = std::popcount(bits);
    if (pick >= n) {
      pick -= n;
      continue;
    }
    for (; pick > 0; --pick) bits &= bits - 1;
    return w * 64 + std::countr_zero(bits);
  }
}

int64_t random_rollout(const Task& task, uint64_t* words, int32_t* counters, int64_t steps,
                       uint64_t seed, const uint64_t* reset_words, const int32_t* reset_counters) {
  std::vector<uint64_t> mask(static_cast<size_t>(task.mask_words));
  uint64_t rng = seed;
  int64_t goals = 0;
  for (int64_t i = 0; i < steps; ++i) {
    valid_mask(task, words, mask.data());
    int32_t g = random_set_bit(mask.data(), task.mask_words, rng);
    const int status = step(task, words, counters, &g, 1, nullptr);
    if (status & (kStatusGoal | kStatusPoolExhausted)) {
      goals += (status & kStatusGoal) ? 1 : 0;
      std::memcpy(words, reset_words, sizeof(uint64_t) * static_cast<size_t>(task.num_words));
      std::memcpy(counters, reset_counters,
                  sizeof(int32_t) * static_cast<size_t>(task.num_counters));
    }
  }
  return goals;
}

}  // namespace robotouille

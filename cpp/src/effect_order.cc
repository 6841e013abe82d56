#include "robotouille/effect_order.h"

#include <algorithm>

namespace robotouille {
namespace {

// Whether two sorted fact lists share no fact.
bool disjoint(const int32_t* a, const int32_t* a_end, const int32_t* b, const int32_t* b_end) {
  while (a != a_end && b != b_end) {
    if (*a == *b) return false;
    if (*a < *b) {
      ++a;
    } else {
      ++b;
    }
  }
  return true;
}

}  // namespace

EffectOrder::EffectOrder(const Task& task) {
  const TaskSpec& s = task.spec;
  global_.assign(static_cast<size_t>(task.num_templates), 0);
  write_begin_.push_back(0);
  read_begin_.push_back(0);
  int32_t local = 0;  // templates that can commute with some other
  for (int32_t t = 0; t < task.num_templates; ++t) {
    IntVec writes, reads;
    bool global = false;
    auto read_guards = [&](int32_t l) {
      for (int32_t k = s.lit_guard_begin[l]; k < s.lit_guard_begin[l + 1]; ++k) {
        reads.push_back(s.lit_guards[k]);
      }
    };
    const int32_t first = s.template_first[t];
    for (int32_t n = first; n < first + s.template_count[t]; ++n) {
      const auto type = static_cast<EffectType>(s.node_type[n]);
      global = global || type == EffectType::kCreation || type == EffectType::kDeletion;
      for (int32_t l = s.node_fx_begin[n]; l < s.node_fx_begin[n + 1]; ++l) {
        global = global || s.lit_created_stride[l] != 0;
        (l < s.node_cond_begin[n] ? writes : reads).push_back(s.lit_fact[l]);
        read_guards(l);
      }
    }
    for (IntVec* facts : {&writes, &reads}) {
      std::sort(facts->begin(), facts->end());
      facts->erase(std::unique(facts->begin(), facts->end()), facts->end());
    }
    global_[t] = global ? 1 : 0;
    local += global ? 0 : 1;
    writes_.insert(writes_.end(), writes.begin(), writes.end());
    reads_.insert(reads_.end(), reads.begin(), reads.end());
    write_begin_.push_back(static_cast<int32_t>(writes_.size()));
    read_begin_.push_back(static_cast<int32_t>(reads_.size()));
  }
  empty_ = local < 2;
}

bool EffectOrder::commute(int32_t t, int32_t u) const {
  if (t == u) return true;
  if (global_[t] || global_[u]) return false;
  const int32_t* w = writes_.data();
  const int32_t* r = reads_.data();
  const int32_t *wt = w + write_begin_[t], *wt_end = w + write_begin_[t + 1];
  const int32_t *wu = w + write_begin_[u], *wu_end = w + write_begin_[u + 1];
  return disjoint(wt, wt_end, wu, wu_end) &&
         disjoint(wt, wt_end, r + read_begin_[u], r + read_begin_[u + 1]) &&
         disjoint(wu, wu_end, r + read_begin_[t], r + read_begin_[t + 1]);
}

bool EffectOrder::normalize(int32_t* counters) const {
  const int32_t length = counters[1];
  int32_t* list = counters + 2;
  // Ascending is the smallest order of all, so already the normal form.
  if (empty_ || length < 2 || std::is_sorted(list, list + length)) return false;
  // The templates not placed yet, in their order (the lists are short: a handful of timers).
  constexpr int32_t kShort = 32;
  int32_t short_rest[kShort];
  IntVec long_rest;
  int32_t* rest = short_rest;
  if (length > kShort) {
    long_rest.assign(list, list + length);
    rest = long_rest.data();
  } else {
    std::copy(list, list + length, rest);
  }
  bool changed = false;
  for (int32_t placed = 0, left = length; placed < length; ++placed, --left) {
    int32_t pick = 0;  // the first template left can always come next
    for (int32_t i = 1; i < left; ++i) {
      if (rest[i] > rest[pick]) continue;
      bool free = true;
      for (int32_t j = 0; j < i && free; ++j) free = commute(rest[j], rest[i]);
      if (free) pick = i;
    }
    list[placed] = rest[pick];
    changed = changed || pick != 0;
    std::copy(rest + pick + 1, rest + left, rest + pick);
  }
  return changed;
}

}  // namespace robotouille

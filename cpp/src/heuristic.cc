#include "robotouille/heuristic.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "robotouille/kernels.h"

namespace robotouille {
namespace {

constexpr int32_t kInf = DelayHeuristic::kDeadEnd;

EffectType type_of(const TaskSpec& s, int32_t node) {
  return static_cast<EffectType>(s.node_type[node]);
}

void sort_unique(IntVec& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}


// The state's true facts that matter, into out.
void true_relevant(const Task& task, const uint64_t* words, const IntVec& relevant, IntVec& out) {
  out.clear();
  for (int32_t w = 0; w < task.num_words; ++w) {
    uint64_t bits = words[w];
    while (bits) {
      const int32_t f = w * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      if (relevant[f]) out.push_back(f);
    }
  }
}

}  // namespace

DelayHeuristic::DelayHeuristic(const Task& task, int32_t parallel_actions, bool use_lmcut)
    : task_(task), parallel_(std::max<int32_t>(1, parallel_actions)), use_lmcut_(use_lmcut) {
  build(task);
}

void DelayHeuristic::compute_node_adds(int32_t node, IntVec& out, IntVec& owners) const {
  const TaskSpec& s = task_.spec;
  const EffectType type = type_of(s, node);
  const IntVec made = task_.creatable(node);
  for (int32_t obj : made) {
    if (s.exists_fact[obj] >= 0) {
      out.push_back(s.exists_fact[obj]);
      owners.push_back(obj);
    }
  }
  for (int32_t l = s.node_fx_begin[node]; l < s.node_cond_begin[node]; ++l) {
    // A failing conditional writes the negation of its effects: negative literals can add.
    if (s.lit_value[l] == 0 && type != EffectType::kConditional) continue;
    const IntVec facts = task_.literal_facts(node, l);
    out.insert(out.end(), facts.begin(), facts.end());
    // literal_facts lists a created-object literal's fact once per object `made` holds.
    for (size_t i = 0; i < facts.size(); ++i) {
      owners.push_back(s.lit_created_stride[l] != 0 ? made[i] : -1);
    }
  }
}

void DelayHeuristic::subtree_adds(int32_t node, int32_t base, bool stop_at_repetitive,
                                  IntVec& facts, IntVec& latencies, IntVec* repetitive) const {
  const TaskSpec& s = task_.spec;
  const EffectType type = type_of(s, node);
  if (type == EffectType::kRepetitive && stop_at_repetitive) {
    if (repetitive) repetitive->push_back(node);
    return;
  }
  // A delayed node of duration d fires d - 1 steps after its activation step.
  const int32_t fire = type == EffectType::kDelayed ? base + std::max(0, s.node_goal[node] - 1)
                                                    : base;
  for (int32_t k = node_add_begin_[node]; k < node_add_begin_[node + 1]; ++k) {
    facts.push_back(node_adds_[k]);
    latencies.push_back(fire);
  }
  for (int32_t k = s.node_child_begin[node]; k < s.node_child_begin[node + 1]; ++k) {
    subtree_adds(s.node_children[k], fire, stop_at_repetitive, facts, latencies, repetitive);
  }
}

void DelayHeuristic::build(const Task& task) {
  const TaskSpec& s = task.spec;
  // Facts after the task's: TRUE, TOP, then the goal-atom instances (build_goal).
  true_ = task.num_facts;
  top_ = true_ + 1;
  num_rfacts_ = top_ + 1;
  node_template_.assign(static_cast<size_t>(task.num_nodes), -1);
  for (int32_t t = 0; t < task.num_templates; ++t) {
    for (int32_t n = s.template_first[t]; n < s.template_first[t] + s.template_count[t]; ++n) {
      node_template_[n] = t;
    }
  }
  node_add_begin_.assign(1, 0);
  IntVec own, owners;
  for (int32_t n = 0; n < task.num_nodes; ++n) {
    own.clear();
    compute_node_adds(n, own, owners);
    node_adds_.insert(node_adds_.end(), own.begin(), own.end());
    node_add_begin_.push_back(static_cast<int32_t>(node_adds_.size()));
  }
  // The facts only a creation adds, each about the object it creates. Without deletions an
  // object that exists can never be created again: from a state where it exists, such a fact
  // that is false stays false (prepare() blocks it). A real plan never makes it true, so the
  // bounds stay admissible. With a deletion, an object may be created again: nothing is blocked.
  const bool deletions = std::any_of(s.node_type.begin(), s.node_type.end(), [](int32_t t) {
    return t == static_cast<int32_t>(EffectType::kDeletion);
  });
  IntVec origin(static_cast<size_t>(task.num_facts), -2);  // -2 never added, -1 not only
  auto note = [&](int32_t f, int32_t obj) {
    origin[f] = origin[f] == -2 || origin[f] == obj ? obj : -1;
  };
  for (size_t k = 0; k < node_adds_.size(); ++k) note(node_adds_[k], owners[k]);
  for (size_t k = 0; k < s.eff_fact.size(); ++k) {
    if (s.eff_value[k] != 0) note(s.eff_fact[k], -1);
  }
  std::vector<IntVec> by_object(static_cast<size_t>(task.num_objects));
  for (int32_t f = 0; f < task.num_facts && !deletions; ++f) {
    if (origin[f] >= 0) by_object[origin[f]].push_back(f);
  }
  for (int32_t obj = 0; obj < task.num_objects; ++obj) {
    if (!by_object[obj].empty() && s.exists_fact[obj] >= 0) {
      created_facts_.emplace_back(s.exists_fact[obj], std::move(by_object[obj]));
    }
  }
  blocked_.assign(static_cast<size_t>(task.num_facts), 0);

  // Per grounding: the o_g adds (with latencies) and its top-most repetitive nodes.
  struct Draft {
    IntVec pre, adds, lats, rep_adds, rep_lats;
    int32_t rep_node = -1;
    bool counted = false;
  };
  std::vector<Draft> drafts(static_cast<size_t>(task.num_groundings));
  std::vector<IntVec> triggers(static_cast<size_t>(task.num_templates));
  for (int32_t g = 0; g < task.num_groundings; ++g) {
    Draft& d = drafts[g];
    d.pre.assign(s.pre_pos.begin() + s.pre_pos_begin[g],
                 s.pre_pos.begin() + s.pre_pos_begin[g + 1]);
    for (int32_t k = s.eff_begin[g]; k < s.eff_begin[g + 1]; ++k) {
      if (s.eff_value[k] != 0) {
        d.adds.push_back(s.eff_fact[k]);
        d.lats.push_back(1);
      }
    }
    IntVec reps;
    for (int32_t k = s.sfx_begin[g]; k < s.sfx_begin[g + 1]; ++k) {
      const int32_t t = s.sfx_template[k];
      triggers[t].push_back(g);
      subtree_adds(s.template_first[t], 1, true, d.adds, d.lats, &reps);
    }
    if (reps.size() == 1) {
      d.rep_node = reps[0];
      // Its subtree, with latencies relative to the step at which the node fires.
      const int32_t n = reps[0];
      for (int32_t k = node_add_begin_[n]; k < node_add_begin_[n + 1]; ++k) {
        d.rep_adds.push_back(node_adds_[k]);
        d.rep_lats.push_back(0);
      }
      for (int32_t c = s.node_child_begin[n]; c < s.node_child_begin[n + 1]; ++c) {
        subtree_adds(s.node_children[c], 0, false, d.rep_adds, d.rep_lats, nullptr);
      }
    } else {
      // No counted operator: every repetitive subtree comes with o_g at cost 1.
      for (int32_t n : reps) subtree_adds(n, 1, false, d.adds, d.lats, nullptr);
    }
  }
  // A repetitive node is counted only when every grounding triggering its template is a
  // candidate for the same node with the same o_g facts (see the header's argument).
  for (int32_t g = 0; g < task.num_groundings; ++g) {
    Draft& d = drafts[g];
    if (d.rep_node < 0) continue;
    IntVec mine = d.adds;
    sort_unique(mine);
    bool ok = true;
    for (int32_t other : triggers[node_template_[d.rep_node]]) {
      const Draft& o = drafts[other];
      IntVec theirs = o.adds;
      sort_unique(theirs);
      ok = ok && o.rep_node == d.rep_node && theirs == mine;
    }
    d.counted = ok;
    if (!ok) {
      for (size_t i = 0; i < d.rep_adds.size(); ++i) {
        d.adds.push_back(d.rep_adds[i]);
        d.lats.push_back(1 + d.rep_lats[i]);
      }
      d.rep_adds.clear();
      d.rep_lats.clear();
    }
  }

  // Relevance: facts that can matter for a goal atom through preconditions.
  build_goal(task);
  relevant_.assign(static_cast<size_t>(task.num_facts), 0);
  for (const auto& [fact, instance] : atom_links_) relevant_[fact] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Draft& d : drafts) {
      bool useful = false;
      for (int32_t f : d.adds) useful = useful || relevant_[f];
      for (int32_t f : d.rep_adds) useful = useful || relevant_[f];
      if (!useful) continue;
      for (int32_t f : d.pre) {
        if (!relevant_[f]) relevant_[f] = 1, changed = true;
      }
    }
  }

  op_pre_begin_.assign(1, 0);
  op_add_begin_.assign(1, 0);
  for (const Draft& d : drafts) {
    add_op(d.pre, d.adds, d.lats, 1, -1);
    if (d.counted) {
      // o_g*: o_g's facts (latency r, set per state) plus the repetitive subtree.
      IntVec adds = d.adds, lats(d.adds.size(), 0);
      adds.insert(adds.end(), d.rep_adds.begin(), d.rep_adds.end());
      lats.insert(lats.end(), d.rep_lats.begin(), d.rep_lats.end());
      add_op(d.pre, adds, lats, 1, d.rep_node);
    }
  }
  for (const auto& [fact, instance] : atom_links_) add_op({fact}, {instance}, {0}, 0, -1);
  for (const IntVec& pre : goal_sets_) add_op(pre, {top_}, {0}, 0, -1);
  const auto num_ops = static_cast<int32_t>(op_cost_.size());
  auto invert = [&](const IntVec& begin, const IntVec& items, IntVec& out_begin, IntVec& out) {
    out_begin.assign(static_cast<size_t>(num_rfacts_) + 1, 0);
    for (int32_t f : items) out_begin[f + 1]++;
    for (int32_t f = 0; f < num_rfacts_; ++f) out_begin[f + 1] += out_begin[f];
    out.assign(items.size(), 0);
    IntVec fill(out_begin.begin(), out_begin.end() - 1);
    for (int32_t o = 0; o < num_ops; ++o) {
      for (int32_t k = begin[o]; k < begin[o + 1]; ++k) out[fill[items[k]]++] = o;
    }
  };
  invert(op_pre_begin_, op_pre_, pre_of_begin_, pre_of_);
  invert(op_add_begin_, op_add_, add_of_begin_, add_of_);
  relevant_.resize(static_cast<size_t>(num_rfacts_), 1);
  cost_.assign(static_cast<size_t>(num_ops), 0);
  lat_extra_.assign(static_cast<size_t>(num_ops), 0);
  unsat_.assign(static_cast<size_t>(num_ops), 0);
  supporter_.assign(static_cast<size_t>(num_ops), -1);
  value_.assign(static_cast<size_t>(num_rfacts_), kInf);
  zone_.assign(static_cast<size_t>(num_rfacts_), 0);
}

void DelayHeuristic::add_op(const IntVec& pre, const IntVec& adds, const IntVec& lats,
                            int32_t cost, int32_t rep_node) {
  std::map<int32_t, int32_t> best;  // fact -> smallest latency
  for (size_t i = 0; i < adds.size(); ++i) {
    if (adds[i] < task_.num_facts && !relevant_[adds[i]]) continue;  // others: TRUE, TOP, atoms
    auto [it, fresh] = best.emplace(adds[i], lats[i]);
    if (!fresh) it->second = std::min(it->second, lats[i]);
  }
  if (best.empty()) return;
  if (pre.empty()) {
    op_pre_.push_back(true_);
  } else {
    IntVec p = pre;
    sort_unique(p);
    op_pre_.insert(op_pre_.end(), p.begin(), p.end());
  }
  op_pre_begin_.push_back(static_cast<int32_t>(op_pre_.size()));
  for (const auto& [f, lat] : best) {
    op_add_.push_back(f);
    op_lat_.push_back(lat);
  }
  op_add_begin_.push_back(static_cast<int32_t>(op_add_.size()));
  op_cost_.push_back(cost);
  op_rep_node_.push_back(rep_node);
}

void DelayHeuristic::build_goal(const Task& task) {
  // The goal's variables are existential (an injective assignment per group). Relaxing every
  // atom separately loses "all on the same table"; so the variables shared by several atoms
  // are enumerated jointly (up to kMaxAssignments combinations): TOP has one achiever per
  // assignment, needing one fact per atom instance, and the other variables stay per atom.
  constexpr int64_t kMaxAssignments = 256;
  constexpr int64_t kMaxFacts = 256;
  const TaskSpec& s = task.spec;
  const auto num_atoms = static_cast<int32_t>(s.goal_atom_base.size());
  const auto num_vars = static_cast<int32_t>(s.goal_var_group.size());
  auto arg = [&](int32_t k) { return &s.goal_atom_args[4 * static_cast<size_t>(k)]; };
  auto num_cands = [&](int32_t v) { return s.goal_cand_begin[v + 1] - s.goal_cand_begin[v]; };
  IntVec uses(static_cast<size_t>(num_vars), 0);
  for (int32_t a = 0; a < num_atoms; ++a) {
    IntVec seen;
    for (int32_t k = s.goal_atom_arg_begin[a]; k < s.goal_atom_arg_begin[a + 1]; ++k) {
      if (arg(k)[0]) seen.push_back(arg(k)[1]);
    }
    sort_unique(seen);
    for (int32_t v : seen) uses[v]++;
  }
  IntVec shared;
  for (int32_t v = 0; v < num_vars; ++v) {
    if (uses[v] >= 2 && num_cands(v) > 1) shared.push_back(v);
  }
  std::stable_sort(shared.begin(), shared.end(), [&](int32_t x, int32_t y) {
    return uses[x] != uses[y] ? uses[x] > uses[y] : num_cands(x) < num_cands(y);
  });
  IntVec key;
  int64_t product = 1;
  for (int32_t v : shared) {
    if (product * num_cands(v) > kMaxAssignments) continue;
    key.push_back(v);
    product *= num_cands(v);
  }
  IntVec assign(static_cast<size_t>(num_vars), -1);
  std::map<std::pair<int32_t, IntVec>, int32_t> instances;  // (atom, key values) -> fact
  IntVec pick(key.size(), 0), facts;
  bool any_empty = false;
  for (int32_t v : key) any_empty = any_empty || num_cands(v) == 0;
  while (!any_empty) {
    bool injective = true;
    for (size_t i = 0; i < key.size(); ++i) {
      assign[key[i]] = s.goal_candidates[s.goal_cand_begin[key[i]] + pick[i]];
      for (size_t j = 0; j < i; ++j) {
        injective = injective && !(s.goal_var_group[key[i]] == s.goal_var_group[key[j]] &&
                                   assign[key[i]] == assign[key[j]]);
      }
    }
    IntVec goal_pre;
    bool possible = injective;
    for (int32_t a = 0; a < num_atoms && possible; ++a) {
      IntVec signature;
      for (int32_t k = s.goal_atom_arg_begin[a]; k < s.goal_atom_arg_begin[a + 1]; ++k) {
        if (arg(k)[0]) signature.push_back(assign[arg(k)[1]]);
      }
      auto [it, fresh] = instances.emplace(std::make_pair(a, signature), -1);
      if (fresh) {
        if (!task.atom_facts_under(a, assign.data(), kMaxFacts, facts)) {
          it->second = -1;  // too many facts: relaxed away (admissible)
        } else if (facts.empty()) {
          it->second = -2;  // impossible under this assignment
        } else {
          it->second = num_rfacts_++;
          for (int32_t f : facts) atom_links_.push_back({f, it->second});
        }
      }
      if (it->second == -2) possible = false;
      if (it->second >= 0) goal_pre.push_back(it->second);
    }
    if (possible) goal_sets_.push_back(std::move(goal_pre));
    size_t i = 0;
    while (i < pick.size() && ++pick[i] == num_cands(key[i])) pick[i++] = 0;
    if (i == pick.size()) break;
  }
  for (int32_t v : key) assign[v] = -1;
}

void DelayHeuristic::pending_of_template(const int32_t* counters, int32_t node, bool running,
                                         int32_t time) {
  // `time`: the step (from now) of the node's next update; running: it has started counting.
  const TaskSpec& s = task_.spec;
  const int32_t word = counters[task_.node_offset + node];
  if (word & kCompleted) return;  // children of a completed node are never updated again
  const EffectType type = type_of(s, node);
  if (type == EffectType::kRepetitive) return;  // needs actions: the operators cover it
  int32_t fire = time;
  if (type == EffectType::kDelayed) {
    const int32_t progress = running ? (word & kProgressMask) : 0;
    fire = time + std::max(0, s.node_goal[node] - progress - 1);
  }
  for (int32_t k = node_add_begin_[node]; k < node_add_begin_[node + 1]; ++k) {
    if (relevant_[node_adds_[k]]) pending_.push_back({node_adds_[k], fire});
  }
  // Children of a pass-through node get its updates from now on; those of a delayed node get
  // their first when it fires.
  const bool children_running = running && type != EffectType::kDelayed;
  for (int32_t k = s.node_child_begin[node]; k < s.node_child_begin[node + 1]; ++k) {
    pending_of_template(counters, s.node_children[k], children_running, fire);
  }
}

void DelayHeuristic::prepare(const uint64_t* words, const int32_t* counters) {
  true_relevant(task_, words, relevant_, stack_);
  const TaskSpec& s = task_.spec;
  auto holds = [&](int32_t f) { return (words[f / 64] >> (f % 64)) & 1; };
  for (int32_t f : blocked_list_) blocked_[f] = 0;
  blocked_list_.clear();
  for (const auto& [exists, facts] : created_facts_) {
    if (!holds(exists)) continue;
    for (int32_t f : facts) {
      if (!holds(f)) blocked_[f] = 1, blocked_list_.push_back(f);
    }
  }
  const auto num_ops = static_cast<int32_t>(op_cost_.size());
  for (int32_t o = 0; o < num_ops; ++o) {
    const int32_t n = op_rep_node_[o];
    if (n < 0) {
      cost_[o] = op_cost_[o];
      lat_extra_[o] = 0;
      continue;
    }
    const int32_t word = counters[task_.node_offset + n];
    const int32_t root = s.template_first[node_template_[n]];
    const bool active = (counters[task_.node_offset + root] & kActive) != 0;
    int32_t remaining = s.node_goal[n];
    if (active && !(word & kCompleted)) remaining -= word & kProgressMask;
    remaining = std::max(1, remaining);
    cost_[o] = remaining;
    lat_extra_[o] = (remaining + parallel_ - 1) / parallel_;
  }
  pending_.clear();
  const int32_t* list = counters + 2;
  for (int32_t i = 0; i < counters[1]; ++i) {
    pending_of_template(counters, s.template_first[list[i]], true, 1);
  }
}

int32_t DelayHeuristic::hmax(bool with_times) {
  const auto num_ops = static_cast<int32_t>(op_cost_.size());
  std::fill(value_.begin(), value_.end(), kInf);
  std::fill(supporter_.begin(), supporter_.end(), -1);
  for (int32_t o = 0; o < num_ops; ++o) unsat_[o] = op_pre_begin_[o + 1] - op_pre_begin_[o];
  for (IntVec& b : buckets_) b.clear();
  auto push = [&](int32_t f, int32_t v) {
    if (v >= value_[f] || (f < task_.num_facts && blocked_[f])) return;
    value_[f] = v;
    if (static_cast<size_t>(v) >= buckets_.size()) buckets_.resize(static_cast<size_t>(v) + 1);
    buckets_[v].push_back(f);
  };
  for (int32_t f : stack_) push(f, 0);  // the state's true facts (set by prepare)
  push(true_, 0);
  for (const PendingFact& p : pending_) push(p.fact, with_times ? p.time : 0);
  for (size_t v = 0; v < buckets_.size(); ++v) {
    for (size_t i = 0; i < buckets_[v].size(); ++i) {
      const int32_t f = buckets_[v][i];
      if (value_[f] != static_cast<int32_t>(v)) continue;
      // The time bound needs only the goal's value, final once popped (LM-cut needs every
      // supporter below it, so its passes run to the end).
      if (with_times && f == top_) return value_[top_];
      for (int32_t k = pre_of_begin_[f]; k < pre_of_begin_[f + 1]; ++k) {
        const int32_t o = pre_of_[k];
        if (--unsat_[o] != 0) continue;
        supporter_[o] = f;
        const int32_t start = static_cast<int32_t>(v);
        for (int32_t a = op_add_begin_[o]; a < op_add_begin_[o + 1]; ++a) {
          int32_t next;
          if (with_times) {
            next = start + op_lat_[a] + (op_rep_node_[o] >= 0 ? lat_extra_[o] : 0);
          } else {
            next = start + cost_[o];
          }
          push(op_add_[a], next);
        }
      }
    }
  }
  return value_[top_];
}


int32_t DelayHeuristic::time_bound(const uint64_t* words, const int32_t* counters) {
  prepare(words, counters);
  return hmax(true);
}

int32_t DelayHeuristic::lmcut(const uint64_t* words, const int32_t* counters) {
  prepare(words, counters);
  return lmcut_prepared();
}

int32_t DelayHeuristic::lmcut_prepared() {
  IntVec work, cut;
  int64_t total = 0;
  for (;;) {
    const int32_t goal = hmax(false);
    if (goal == kInf) return kDeadEnd;
    if (goal == 0) break;
    // Goal zone: facts from which TOP is reached through zero-cost supporter edges.
    std::fill(zone_.begin(), zone_.end(), 0);
    zone_[top_] = 1;
    work.assign(1, top_);
    while (!work.empty()) {
      const int32_t f = work.back();
      work.pop_back();
      for (int32_t k = add_of_begin_[f]; k < add_of_begin_[f + 1]; ++k) {
        const int32_t o = add_of_[k];
        const int32_t sup = supporter_[o];
        if (cost_[o] != 0 || sup < 0 || zone_[sup] == 1) continue;
        zone_[sup] = 1;
        work.push_back(sup);
      }
    }
    // Forward from the state through supporter edges, stopping at the goal zone; the
    // operators that cross into it form the cut.
    work.clear();
    auto reach = [&](int32_t f) {
      if (zone_[f] == 0) {
        zone_[f] = 2;
        work.push_back(f);
      }
    };
    for (int32_t f : stack_) reach(f);
    reach(true_);
    for (const PendingFact& p : pending_) reach(p.fact);
    cut.clear();
    while (!work.empty()) {
      const int32_t f = work.back();
      work.pop_back();
      for (int32_t k = pre_of_begin_[f]; k < pre_of_begin_[f + 1]; ++k) {
        const int32_t o = pre_of_[k];
        if (supporter_[o] != f) continue;
        bool crosses = false;
        for (int32_t a = op_add_begin_[o]; a < op_add_begin_[o + 1]; ++a) {
          crosses = crosses || zone_[op_add_[a]] == 1;
        }
        if (crosses) {
          cut.push_back(o);
        } else {
          for (int32_t a = op_add_begin_[o]; a < op_add_begin_[o + 1]; ++a) reach(op_add_[a]);
        }
      }
    }
    int32_t m = kInf;
    for (int32_t o : cut) m = std::min(m, cost_[o]);
    if (cut.empty() || m <= 0 || m == kInf) break;  // cannot happen for a positive goal value
    for (int32_t o : cut) cost_[o] -= m;
    total += m;
  }
  return static_cast<int32_t>((total + parallel_ - 1) / parallel_);
}

int32_t DelayHeuristic::evaluate(const uint64_t* words, const int32_t* counters) {
  prepare(words, counters);  // once for both bounds: the time bound first (LM-cut uses up costs)
  const int32_t time = hmax(true);
  if (time == kInf || !use_lmcut_) return time;
  return std::max(time, lmcut_prepared());
}

}  // namespace robotouille

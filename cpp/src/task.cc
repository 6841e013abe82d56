#include "robotouille/task.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace robotouille {
namespace {

// (A view, not a std::string: the checks run per table entry, and a message is built only for
// a failure. Building one for every entry took most of a large task's construction.)
void require(bool ok, std::string_view what) {
  if (!ok) throw std::invalid_argument("invalid task spec: " + std::string(what));
}

// Checks a CSR offset array of `rows` rows over a values array of size `size`.
void check_csr(const IntVec& begin, size_t rows, size_t size, const char* name) {
  if (begin.size() != rows + 1) {
    require(false, std::string(name) + " must have one entry per row plus one");
  }
  if (begin.front() != 0 || static_cast<size_t>(begin.back()) != size) {
    require(false, std::string(name) + " must start at 0 and end at the values' size");
  }
  if (!std::is_sorted(begin.begin(), begin.end())) {
    require(false, std::string(name) + " must be non-decreasing");
  }
}

void check_range(const IntVec& v, int32_t lo, int32_t hi, const char* name) {
  for (int32_t x : v) {
    if (x < lo || x >= hi) {
      require(false, std::string(name) + " holds an out-of-range value " + std::to_string(x));
    }
  }
}

}  // namespace

Task::Task(TaskSpec s) : spec(std::move(s)) {
  num_facts = spec.num_facts;
  num_objects = spec.num_objects;
  num_players = spec.num_players;
  require(num_facts >= 0 && num_objects >= 0 && num_players >= 0, "negative sizes");
  num_words = std::max<int32_t>(1, (num_facts + 63) / 64);
  num_groundings = static_cast<int32_t>(spec.action_of.size());
  num_templates = static_cast<int32_t>(spec.template_first.size());
  num_nodes = static_cast<int32_t>(spec.node_type.size());
  node_offset = 2 + num_templates;
  rank_offset = node_offset + num_nodes;
  num_counters = rank_offset;  // plus one rank per object with an exists fact, below
  mask_words = std::max<int32_t>(1, (num_groundings + 63) / 64);
  const size_t G = static_cast<size_t>(num_groundings);
  const size_t O = static_cast<size_t>(num_objects);

  require(spec.object_type.size() == O && spec.typepos.size() == O &&
              spec.exists_fact.size() == O && spec.object_names.size() == O &&
              spec.object_labels.size() == O,
          "object tables must have one entry per object");
  check_range(spec.exists_fact, -1, num_facts, "exists_fact");
  rank_slot.assign(O, -1);
  for (size_t o = 0; o < O; ++o) {
    if (spec.exists_fact[o] >= 0) rank_slot[o] = num_ranked++;
  }
  num_counters += num_ranked;
  check_range(spec.hole_facts, 0, num_facts, "hole_facts");
  hole_mask.assign(static_cast<size_t>(num_words), 0);
  for (int32_t f : spec.hole_facts) hole_mask[f >> 6] |= uint64_t{1} << (f & 63);
  check_csr(spec.pre_pos_begin, G, spec.pre_pos.size(), "pre_pos_begin");
  check_csr(spec.pre_neg_begin, G, spec.pre_neg.size(), "pre_neg_begin");
  check_csr(spec.eff_begin, G, spec.eff_fact.size(), "eff_begin");
  check_csr(spec.sfx_begin, G, spec.sfx_template.size(), "sfx_begin");
  require(spec.eff_value.size() == spec.eff_fact.size(), "eff_value size");
  check_range(spec.pre_pos, 0, num_facts, "pre_pos");
  check_range(spec.pre_neg, 0, num_facts, "pre_neg");
  check_range(spec.eff_fact, 0, num_facts, "eff_fact");
  check_range(spec.sfx_template, 0, num_templates, "sfx_template");
  require(spec.owner.size() == G, "per-grounding tables");
  require(spec.fact_hint.empty() || spec.fact_hint.size() == static_cast<size_t>(num_facts),
          "fact_hint must be empty or have one entry per fact");
  check_range(spec.owner, -1, num_objects, "owner");
  max_params = G ? static_cast<int32_t>(spec.grounding_args.size() / G) : 0;
  require(spec.grounding_args.size() == G * static_cast<size_t>(max_params), "grounding_args");
  check_range(spec.grounding_args, -1, num_objects, "grounding_args");
  check_range(spec.action_of, 0, static_cast<int32_t>(spec.action_templates.size()), "action_of");
  for (const TextTemplate& t : spec.action_templates) {
    require(t.pieces.size() == t.slots.size() + 1, "action template pieces/slots");
    check_range(t.slots, 0, std::max(max_params, 1), "action template slot");
  }
  for (int32_t g = 0; g < num_groundings; ++g) {
    for (int32_t slot : spec.action_templates[spec.action_of[g]].slots) {
      require(slot < max_params && spec.grounding_args[g * max_params + slot] >= 0,
              "action template slot names no argument of the grounding");
    }
  }

  // Special-effect tables.
  require(spec.template_count.size() == spec.template_first.size(), "template_count size");
  for (int32_t t = 0; t < num_templates; ++t) {
    require(spec.template_count[t] >= 1 && spec.template_first[t] >= 0 &&
                spec.template_count[t] <= num_nodes - spec.template_first[t],
            "template node range");
  }
  const size_t N = static_cast<size_t>(num_nodes);
  require(spec.node_goal.size() == N && spec.node_delete_object.size() == N &&
              spec.node_create_group.size() == N,
          "per-node tables");
  check_range(spec.node_type, 0, 5, "node_type");
  check_csr(spec.node_child_begin, N, spec.node_children.size(), "node_child_begin");
  check_range(spec.node_children, 0, num_nodes, "node_children");
  // Templates are preorder trees: children follow their parent inside its template (no cycles).
  for (int32_t t = 0; t < num_templates; ++t) {
    const int32_t end = spec.template_first[t] + spec.template_count[t];
    for (int32_t n = spec.template_first[t]; n < end; ++n) {
      for (int32_t k = spec.node_child_begin[n]; k < spec.node_child_begin[n + 1]; ++k) {
        require(spec.node_children[k] > n && spec.node_children[k] < end,
                "node children must follow their parent inside its template");
      }
    }
  }
  const size_t L = spec.lit_fact.size();
  require(spec.node_fx_begin.size() == N + 1 && spec.node_cond_begin.size() == N + 1,
          "node literal offsets");
  require(spec.lit_value.size() == L && spec.lit_created_stride.size() == L, "literal tables");
  check_csr(spec.lit_guard_begin, L, spec.lit_guards.size(), "lit_guard_begin");
  check_range(spec.lit_guards, 0, num_facts, "lit_guards");
  check_range(spec.lit_fact, 0, num_facts, "lit_fact");
  for (size_t n = 0; n < N; ++n) {
    require(spec.node_fx_begin[n] <= spec.node_cond_begin[n] &&
                spec.node_cond_begin[n] <= spec.node_fx_begin[n + 1] &&
                spec.node_fx_begin[n + 1] <= static_cast<int32_t>(L),
            "node literal ranges");
    if (spec.node_type[n] == static_cast<int32_t>(EffectType::kDelayed) ||
        spec.node_type[n] == static_cast<int32_t>(EffectType::kRepetitive)) {
      require(spec.node_goal[n] >= 1 && spec.node_goal[n] < kProgressMask, "node goal");
    }
  }
  require(spec.node_fx_begin.empty() || spec.node_fx_begin[0] == 0, "node_fx_begin[0]");
  const size_t num_groups = spec.group_slot_begin.empty() ? 0 : spec.group_slot_begin.size() - 1;
  if (!spec.group_slot_begin.empty()) {
    check_csr(spec.group_slot_begin, num_groups, spec.group_slots.size(), "group_slot_begin");
  }
  check_range(spec.group_slots, 0, num_objects, "group_slots");
  check_range(spec.node_create_group, -1, static_cast<int32_t>(num_groups), "node_create_group");
  check_range(spec.node_delete_object, -1, num_objects, "node_delete_object");
  check_csr(spec.delete_fact_begin, O, spec.delete_facts.size(), "delete_fact_begin");
  check_range(spec.delete_facts, 0, num_facts, "delete_facts");
  for (size_t n = 0; n < N; ++n) {
    if (spec.node_type[n] == static_cast<int32_t>(EffectType::kDeletion)) {
      require(spec.node_delete_object[n] >= 0, "deletion node without an object");
    }
    if (spec.node_type[n] != static_cast<int32_t>(EffectType::kCreation)) continue;
    const int32_t group = spec.node_create_group[n];
    require(group >= 0, "creation node without a group");
    // A created literal's fact is lit_fact + stride * typepos[created], for any object of the pool.
    for (int32_t l = spec.node_fx_begin[n]; l < spec.node_cond_begin[n]; ++l) {
      if (spec.lit_created_stride[l] <= 0) continue;
      for (int32_t k = spec.group_slot_begin[group]; k < spec.group_slot_begin[group + 1]; ++k) {
        const int64_t f = int64_t{spec.lit_fact[l]} +
                          int64_t{spec.lit_created_stride[l]} * spec.typepos[spec.group_slots[k]];
        require(f >= 0 && f < num_facts, "created literal fact out of range");
      }
    }
  }

  // Goal tables.
  const size_t V = spec.goal_var_group.size();
  check_csr(spec.goal_cand_begin, V, spec.goal_candidates.size(), "goal_cand_begin");
  check_range(spec.goal_candidates, 0, std::numeric_limits<int32_t>::max(), "goal_candidates");
  require(spec.goal_order.size() == V, "goal_order size");
  check_range(spec.goal_order, 0, static_cast<int32_t>(V), "goal_order");
  var_level.assign(V, -1);
  for (size_t i = 0; i < V; ++i) {
    require(var_level[spec.goal_order[i]] < 0, "goal_order must be a permutation");
    var_level[spec.goal_order[i]] = static_cast<int32_t>(i);
  }
  const size_t A = spec.goal_atom_base.size();
  require(spec.goal_atom_level.size() == A, "goal_atom_level size");
  check_range(spec.goal_atom_level, -1, static_cast<int32_t>(V), "goal_atom_level");
  require(spec.goal_atom_args.size() % 4 == 0, "goal_atom_args must hold 4 ints per argument");
  check_csr(spec.goal_atom_arg_begin, A, spec.goal_atom_args.size() / 4, "goal_atom_arg_begin");
  for (size_t k = 0; k * 4 < spec.goal_atom_args.size(); ++k) {
    const int32_t is_var = spec.goal_atom_args[4 * k];
    const int32_t value = spec.goal_atom_args[4 * k + 1];
    require(is_var ? (value >= 0 && static_cast<size_t>(value) < V) : value >= 0,
            "goal atom argument");
  }
  for (size_t a = 0; a < A; ++a) {
    // An atom is tested once all its variables are assigned, and only at facts that exist:
    // base + sum(stride * typepos) over the objects of the right type it may name.
    int64_t lo = spec.goal_atom_base[a];
    int64_t hi = lo;
    bool readable = true;
    for (int32_t k = spec.goal_atom_arg_begin[a]; k < spec.goal_atom_arg_begin[a + 1]; ++k) {
      const int32_t* arg = &spec.goal_atom_args[4 * static_cast<size_t>(k)];
      if (arg[0]) {
        require(spec.goal_atom_level[a] >= var_level[arg[1]],
                "goal atom tested before its variables are assigned");
      }
      int64_t arg_lo = std::numeric_limits<int64_t>::max();
      int64_t arg_hi = std::numeric_limits<int64_t>::min();
      auto consider = [&](int32_t obj) {
        if (obj >= num_objects || spec.object_type[obj] != arg[2]) return;
        const int64_t term = int64_t{arg[3]} * spec.typepos[obj];
        arg_lo = std::min(arg_lo, term);
        arg_hi = std::max(arg_hi, term);
      };
      if (arg[0]) {
        for (int32_t c = spec.goal_cand_begin[arg[1]]; c < spec.goal_cand_begin[arg[1] + 1]; ++c) {
          consider(spec.goal_candidates[c]);
        }
      } else {
        consider(arg[1]);
      }
      if (arg_lo > arg_hi) readable = false;  // no object fits: the atom is never read
      if (!readable) continue;
      lo += arg_lo;
      hi += arg_hi;
    }
    require(!readable || (lo >= 0 && hi < num_facts), "goal atom fact out of range");
  }
  level_atom_begin.assign(V + 2, 0);
  for (size_t a = 0; a < A; ++a) level_atom_begin[spec.goal_atom_level[a] + 2]++;
  for (size_t i = 1; i < level_atom_begin.size(); ++i) {
    level_atom_begin[i] += level_atom_begin[i - 1];
  }
  level_atoms.assign(A, 0);
  {
    IntVec fill(level_atom_begin.begin(), level_atom_begin.end() - 1);
    for (size_t a = 0; a < A; ++a) {
      level_atoms[fill[spec.goal_atom_level[a] + 1]++] = static_cast<int32_t>(a);
    }
  }

  // Rendering tables.
  check_csr(spec.line_begin, O, spec.line_fact.size(), "line_begin");
  require(spec.line_template.size() == spec.line_fact.size(), "line_template size");
  check_range(spec.line_fact, 0, num_facts, "line_fact");
  check_range(spec.line_template, 0, static_cast<int32_t>(spec.text_templates.size()),
              "line_template");
  max_arity = spec.fact_args_width;
  require(max_arity >= 1 && spec.fact_args.size() % static_cast<size_t>(max_arity) == 0,
          "fact_args width");
  const auto fact_rows = static_cast<int32_t>(spec.fact_args.size() / max_arity);
  check_range(spec.fact_args, -1, num_objects, "fact_args");
  for (int32_t f : spec.line_fact) require(f < fact_rows, "line_fact beyond fact_args");
  require(spec.template_pred.empty() || spec.template_pred.size() == spec.text_templates.size(),
          "template_pred must be empty or have one entry per text template");
  for (const TextTemplate& t : spec.text_templates) {
    require(t.pieces.size() == t.slots.size() + 1, "text template pieces/slots");
  }
  for (size_t k = 0; k < spec.line_fact.size(); ++k) {
    for (int32_t slot : spec.text_templates[spec.line_template[k]].slots) {
      require(slot >= 0 && slot < max_arity &&
                  spec.fact_args[static_cast<size_t>(spec.line_fact[k]) * max_arity + slot] >= 0,
              "text template slot names no argument of the line's fact");
    }
  }

  build_index();
  build_goal_filter();
}

bool Task::atom_facts_under(int32_t atom, const int32_t* assign, int64_t max_facts,
                            IntVec& facts) const {
  const TaskSpec& s = spec;
  facts.clear();
  // The candidate values of each argument: a constant, an assigned variable, or a variable's
  // candidates.
  std::vector<IntVec> values;
  int64_t combos = 1;
  for (int32_t k = s.goal_atom_arg_begin[atom]; k < s.goal_atom_arg_begin[atom + 1]; ++k) {
    const int32_t* arg = &s.goal_atom_args[4 * static_cast<size_t>(k)];
    IntVec v;
    if (!arg[0]) {
      v.push_back(arg[1]);
    } else if (assign && assign[arg[1]] >= 0) {
      v.push_back(assign[arg[1]]);
    } else {
      v.assign(s.goal_candidates.begin() + s.goal_cand_begin[arg[1]],
               s.goal_candidates.begin() + s.goal_cand_begin[arg[1] + 1]);
    }
    if (v.empty()) return true;  // a variable without candidates: the atom never holds
    combos *= static_cast<int64_t>(v.size());
    values.push_back(std::move(v));
  }
  if (combos > max_facts) return false;
  IntVec pick(values.size(), 0);
  for (;;) {
    int64_t fact = s.goal_atom_base[atom];
    bool ok = true;
    for (size_t i = 0; i < values.size() && ok; ++i) {
      const int32_t obj = values[i][pick[i]];
      const int32_t* arg = &s.goal_atom_args[4 * (s.goal_atom_arg_begin[atom] + i)];
      ok = obj < num_objects && s.object_type[obj] == arg[2];
      fact += static_cast<int64_t>(arg[3]) * (ok ? s.typepos[obj] : 0);
    }
    if (ok) facts.push_back(static_cast<int32_t>(fact));
    size_t i = 0;  // next combination (odometer)
    while (i < pick.size() && ++pick[i] == static_cast<int32_t>(values[i].size())) {
      pick[i++] = 0;
    }
    if (i == pick.size()) break;
  }
  std::sort(facts.begin(), facts.end());
  facts.erase(std::unique(facts.begin(), facts.end()), facts.end());
  return true;
}

void Task::build_goal_filter() {
  constexpr int64_t kMaxFacts = 256;  // atoms with more possible facts are left to the matcher
  std::vector<IntVec> lists;
  IntVec facts;
  for (size_t a = 0; a < spec.goal_atom_base.size(); ++a) {
    if (atom_facts_under(static_cast<int32_t>(a), nullptr, kMaxFacts, facts)) {
      lists.push_back(facts);
    }
  }
  std::stable_sort(lists.begin(), lists.end(),
                   [](const IntVec& x, const IntVec& y) { return x.size() < y.size(); });
  filter_begin.assign(1, 0);
  for (const IntVec& l : lists) {
    filter_facts.insert(filter_facts.end(), l.begin(), l.end());
    filter_begin.push_back(static_cast<int32_t>(filter_facts.size()));
  }
}

struct Task::TreeScratch {
  explicit TreeScratch(int32_t num_facts)
      : marked(static_cast<size_t>(num_facts), 0),
        count(static_cast<size_t>(num_facts), 0),
        count_true(static_cast<size_t>(num_facts), 0) {}
  std::vector<char> marked;  // the facts tested on the path to the node being built
  IntVec count, count_true;  // per fact, the node's groundings that test it (true)
};

void Task::build_index() {
  const TaskSpec& s = spec;
  const bool hinted = s.fact_hint.size() == static_cast<size_t>(num_facts);
  // How many groundings mention each fact as a positive precondition (the bucket it would key).
  IntVec uses(static_cast<size_t>(num_facts), 0);
  for (int32_t f : s.pre_pos) uses[f]++;
  key_root.assign(static_cast<size_t>(num_facts), -1);
  key_mask.assign(static_cast<size_t>(num_words), 0);
  std::vector<IntVec> buckets(static_cast<size_t>(num_facts));
  IntVec unkeyed;
  for (int32_t g = 0; g < num_groundings; ++g) {
    // Key: prefer facts not hinted true, then the smallest bucket, then the lowest id.
    int32_t key = -1;
    for (int32_t k = s.pre_pos_begin[g]; k < s.pre_pos_begin[g + 1]; ++k) {
      const int32_t f = s.pre_pos[k];
      auto rank = [&](int32_t x) { return std::make_tuple(hinted && s.fact_hint[x], uses[x], x); };
      if (key < 0 || rank(f) < rank(key)) key = f;
    }
    if (key < 0) {
      unkeyed.push_back(g);
    } else {
      buckets[key].push_back(g);
    }
  }
  // One scratch for every tree: a tree per keyed fact (thousands on the larger multi-agent
  // kitchens), and zeroing per-fact arrays for each took most of the construction.
  TreeScratch scratch(num_facts);
  for (int32_t f = 0; f < num_facts; ++f) {
    if (buckets[f].empty()) continue;
    key_root[f] = build_tree(std::move(buckets[f]), IntVec{f}, scratch);
    key_mask[f >> 6] |= uint64_t{1} << (f & 63);
  }
  if (!unkeyed.empty()) unkeyed_root = build_tree(std::move(unkeyed), IntVec{}, scratch);
}

int32_t Task::build_tree(IntVec groundings, const IntVec& tested, TreeScratch& scratch) {
  // Greedy construction: at each node split on the untested fact that prunes the most
  // groundings in expectation: those requiring it true are skipped when it is false, those
  // requiring it false when it is true. A fact is guessed true with probability 3/4 when
  // fact_hint says so, else 1/4 (ties: lowest fact id, so the tree is deterministic).
  struct Work {
    IntVec groundings;
    IntVec tested;  // facts tested on the path from the root
    int32_t parent;
    int which;  // 0 true, 1 false, 2 any
  };
  const TaskSpec& s = spec;
  const bool hinted = s.fact_hint.size() == static_cast<size_t>(num_facts);
  std::vector<char>& marked = scratch.marked;
  IntVec& count = scratch.count;
  IntVec& count_true = scratch.count_true;
  auto benefit = [&](int32_t f) {
    const int64_t p_true = hinted && s.fact_hint[f] ? 3 : 1;  // in quarters
    return count_true[f] * (4 - p_true) + (count[f] - count_true[f]) * p_true;
  };
  // Visits grounding g's untested precondition facts: f(fact, required value).
  auto for_untested = [&](int32_t g, auto&& f) {
    for (int32_t k = s.pre_pos_begin[g]; k < s.pre_pos_begin[g + 1]; ++k) {
      if (!marked[s.pre_pos[k]]) f(s.pre_pos[k], true);
    }
    for (int32_t k = s.pre_neg_begin[g]; k < s.pre_neg_begin[g + 1]; ++k) {
      if (!marked[s.pre_neg[k]]) f(s.pre_neg[k], false);
    }
  };
  const auto root = static_cast<int32_t>(tree.size());
  std::vector<Work> stack;
  stack.push_back({std::move(groundings), tested, -1, 0});
  while (!stack.empty()) {
    Work work = std::move(stack.back());
    stack.pop_back();
    for (int32_t f : work.tested) marked[f] = 1;
    const auto id = static_cast<int32_t>(tree.size());
    tree.emplace_back();
    if (work.parent >= 0) {
      TreeNode& parent = tree[work.parent];
      (work.which == 0 ? parent.child_true : work.which == 1 ? parent.child_false
                                                             : parent.child_any) = id;
    }
    IntVec rest, touched;
    tree[id].leaf_begin = static_cast<int32_t>(tree_leaves.size());
    for (int32_t g : work.groundings) {
      bool any = false;
      for_untested(g, [&](int32_t f, bool value) {
        any = true;
        if (count[f]++ == 0) touched.push_back(f);
        count_true[f] += value ? 1 : 0;
      });
      if (any) {
        rest.push_back(g);
      } else {
        tree_leaves.push_back(g);
      }
    }
    tree[id].leaf_end = static_cast<int32_t>(tree_leaves.size());
    if (!rest.empty()) {
      int32_t best = -1;
      for (int32_t f : touched) {
        if (best < 0 || benefit(f) > benefit(best) || (benefit(f) == benefit(best) && f < best)) {
          best = f;
        }
      }
      tree[id].fact = best;
      IntVec parts[3];
      for (int32_t g : rest) {
        int which = 2;
        for_untested(g, [&](int32_t f, bool value) {
          if (f == best) which = value ? 0 : 1;
        });
        parts[which].push_back(g);
      }
      IntVec deeper = work.tested;
      deeper.push_back(best);
      for (int which = 2; which >= 0; --which) {
        if (!parts[which].empty()) {
          stack.push_back({std::move(parts[which]), which == 2 ? work.tested : deeper, id, which});
        }
      }
    }
    for (int32_t f : touched) count[f] = count_true[f] = 0;
    for (int32_t f : work.tested) marked[f] = 0;
  }
  return root;
}

IntVec Task::creatable(int32_t node) const {
  if (spec.node_type[node] != static_cast<int32_t>(EffectType::kCreation)) return {};
  const int32_t group = spec.node_create_group[node];
  return IntVec(spec.group_slots.begin() + spec.group_slot_begin[group],
                spec.group_slots.begin() + spec.group_slot_begin[group + 1]);
}

IntVec Task::literal_facts(int32_t node, int32_t l) const {
  if (spec.lit_created_stride[l] == 0) return {spec.lit_fact[l]};
  IntVec facts;
  for (int32_t obj : creatable(node)) {
    facts.push_back(spec.lit_fact[l] + spec.lit_created_stride[l] * spec.typepos[obj]);
  }
  return facts;
}

}  // namespace robotouille

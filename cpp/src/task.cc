#include "robotouille/task.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace robotouille {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("invalid task spec: " + what);
}

// Checks a CSR offset array of `rows` rows over a values array of size `size`.
void check_csr(const IntVec& begin, size_t rows, size_t size, const char* name) {
  require(begin.size() == rows + 1, std::string(name) + " must have one entry per row plus one");
  require(begin.front() == 0 && static_cast<size_t>(begin.back()) == size,
          std::string(name) + " must start at 0 and end at the values' size");
  for (size_t i = 0; i + 1 < begin.size(); ++i) {
    require(begin[i] <= begin[i + 1], std::string(name) + " must be non-decreasing");
  }
}

void check_range(const IntVec& v, int32_t lo, int32_t hi, const char* name) {
  for (int32_t x : v) {
    require(x >= lo && x < hi, std::string(name) + " holds an out-of-range value " +
                                   std::to_string(x));
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
  num_counters = node_offset + num_nodes;
  mask_words = std::max<int32_t>(1, (num_groundings + 63) / 64);
  const size_t G = static_cast<size_t>(num_groundings);
  const size_t O = static_cast<size_t>(num_objects);

  require(spec.object_type.size() == O && spec.typepos.size() == O &&
              spec.exists_fact.size() == O && spec.object_names.size() == O &&
              spec.object_labels.size() == O,
          "object tables must have one entry per object");
  check_range(spec.exists_fact, -1, num_facts, "exists_fact");
  check_csr(spec.pre_pos_begin, G, spec.pre_pos.size(), "pre_pos_begin");
  check_csr(spec.pre_neg_begin, G, spec.pre_neg.size(), "pre_neg_begin");
  check_csr(spec.eff_begin, G, spec.eff_fact.size(), "eff_begin");
  check_csr(spec.sfx_begin, G, spec.sfx_template.size(), "sfx_begin");
  require(spec.eff_value.size() == spec.eff_fact.size(), "eff_value size");
  check_range(spec.pre_pos, 0, num_facts, "pre_pos");
  check_range(spec.pre_neg, 0, num_facts, "pre_neg");
  check_range(spec.eff_fact, 0, num_facts, "eff_fact");
  check_range(spec.sfx_template, 0, num_templates, "sfx_template");
  require(spec.key_fact.size() == G && spec.owner.size() == G, "per-grounding tables");
  check_range(spec.key_fact, -1, num_facts, "key_fact");
  check_range(spec.owner, -1, num_objects, "owner");
  max_params = G ? static_cast<int32_t>(spec.grounding_args.size() / G) : 0;
  require(spec.grounding_args.size() == G * static_cast<size_t>(max_params), "grounding_args");
  check_range(spec.grounding_args, -1, num_objects, "grounding_args");
  check_range(spec.action_of, 0, static_cast<int32_t>(spec.action_templates.size()), "action_of");
  for (const TextTemplate& t : spec.action_templates) {
    require(t.pieces.size() == t.slots.size() + 1, "action template pieces/slots");
    check_range(t.slots, 0, std::max(max_params, 1), "action template slot");
  }

  // Special-effect tables.
  require(spec.template_count.size() == spec.template_first.size(), "template_count size");
  for (int32_t t = 0; t < num_templates; ++t) {
    require(spec.template_count[t] >= 1 && spec.template_first[t] >= 0 &&
                spec.template_first[t] + spec.template_count[t] <= num_nodes,
            "template node range");
  }
  const size_t N = static_cast<size_t>(num_nodes);
  require(spec.node_goal.size() == N && spec.node_delete_object.size() == N &&
              spec.node_create_group.size() == N,
          "per-node tables");
  check_range(spec.node_type, 0, 5, "node_type");
  check_csr(spec.node_child_begin, N, spec.node_children.size(), "node_child_begin");
  check_range(spec.node_children, 0, num_nodes, "node_children");
  const size_t L = spec.lit_fact.size();
  require(spec.node_fx_begin.size() == N + 1 && spec.node_cond_begin.size() == N + 1,
          "node literal offsets");
  require(spec.lit_value.size() == L && spec.lit_created_stride.size() == L, "literal tables");
  check_csr(spec.lit_guard_begin, L, spec.lit_guards.size(), "lit_guard_begin");
  check_range(spec.lit_guards, 0, num_facts, "lit_guards");
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

  // Goal tables.
  const size_t V = spec.goal_var_group.size();
  check_csr(spec.goal_cand_begin, V, spec.goal_candidates.size(), "goal_cand_begin");
  require(spec.goal_order.size() == V, "goal_order size");
  check_range(spec.goal_order, 0, static_cast<int32_t>(V), "goal_order");
  const size_t A = spec.goal_atom_base.size();
  require(spec.goal_atom_level.size() == A, "goal_atom_level size");
  check_range(spec.goal_atom_level, -1, static_cast<int32_t>(V), "goal_atom_level");
  check_csr(spec.goal_atom_arg_begin, A, spec.goal_atom_args.size() / 4, "goal_atom_arg_begin");
  for (size_t k = 0; k * 4 < spec.goal_atom_args.size(); ++k) {
    const int32_t is_var = spec.goal_atom_args[4 * k];
    const int32_t value = spec.goal_atom_args[4 * k + 1];
    require(is_var ? (value >= 0 && static_cast<size_t>(value) < V) : value >= 0,
            "goal atom argument");
  }
  var_level.assign(V, 0);
  for (size_t i = 0; i < V; ++i) var_level[spec.goal_order[i]] = static_cast<int32_t>(i);
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
  for (const TextTemplate& t : spec.text_templates) {
    require(t.pieces.size() == t.slots.size() + 1, "text template pieces/slots");
  }

  // Applicability index.
  key_begin.assign(static_cast<size_t>(num_facts) + 1, 0);
  key_mask.assign(static_cast<size_t>(num_words), 0);
  for (int32_t g = 0; g < num_groundings; ++g) {
    const int32_t f = spec.key_fact[g];
    if (f >= 0) {
      key_begin[f + 1]++;
      key_mask[f >> 6] |= uint64_t{1} << (f & 63);
    } else {
      unkeyed.push_back(g);
    }
  }
  for (size_t i = 1; i < key_begin.size(); ++i) key_begin[i] += key_begin[i - 1];
  key_groundings.assign(static_cast<size_t>(key_begin.back()), 0);
  IntVec fill(key_begin.begin(), key_begin.end() - 1);
  for (int32_t g = 0; g < num_groundings; ++g) {
    const int32_t f = spec.key_fact[g];
    if (f >= 0) key_groundings[fill[f]++] = g;
  }
}

}  // namespace robotouille

/*
 * Hand-built TaskSpec fixtures for the C++ unit tests.
 *
 * FixtureBuilder holds a task in structured form (objects, groundings, special-effect templates
 * as node trees, goal, rendering tables) and flattens it into the CSR arrays of
 * robotouille::TaskSpec with the same conventions as python/robotouille/compile.py:
 *   - node n's effect literals are [node_fx_begin[n], node_cond_begin[n]) and its conditions
 *     [node_cond_begin[n], node_fx_begin[n + 1]);
 *   - a template is a preorder run of nodes; children are given relative to the template here;
 *   - goal_atom_args has 4 ints per argument (is_var, value, type, stride); goal_atom_level is -1
 *     for constant atoms, else the index in goal_order at which the atom's last variable is
 *     assigned (computed by spec()).
 *
 * State is a (words, counters) pair sized for a Task.
 */
#ifndef ROBOTOUILLE_TESTS_CPP_FIXTURES_H_
#define ROBOTOUILLE_TESTS_CPP_FIXTURES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {

struct Lit {
  int32_t fact = 0;
  bool value = true;
  int32_t created_stride = 0;  // > 0: fact + created_stride * typepos[created object]
  IntVec guards = {};          // exists facts that must hold for the literal to be written
};

struct ObjectDef {
  std::string name;
  std::string label = "Item";
  int32_t type = 0;
  int32_t typepos = 0;
  int32_t exists_fact = -1;
  IntVec delete_facts = {};
  std::vector<std::pair<int32_t, int32_t>> lines = {};  // (fact, text template)
};

struct GroundingDef {
  IntVec pos = {};
  IntVec neg = {};
  std::vector<std::pair<int32_t, bool>> eff = {};
  IntVec sfx = {};       // template ids
  int32_t owner = -1;
  int32_t action = 0;
  IntVec args = {};      // padded with -1 to the widest grounding
};

struct NodeDef {
  EffectType type = EffectType::kDelayed;
  int32_t goal = 0;
  std::vector<Lit> fx = {};
  std::vector<Lit> cond = {};
  IntVec children = {};  // indices relative to the template's first node
  int32_t delete_object = -1;
  int32_t create_group = -1;
};

struct GoalArg {
  bool is_var = false;
  int32_t value = 0;
  int32_t type = 0;
  int32_t stride = 1;
};

struct GoalAtomDef {
  int32_t base = 0;
  std::vector<GoalArg> args;
};

struct GoalVarDef {
  int32_t group = 0;
  IntVec candidates;
};

inline GoalArg var(int32_t v, int32_t type, int32_t stride) { return {true, v, type, stride}; }
inline GoalArg obj(int32_t o, int32_t type, int32_t stride) { return {false, o, type, stride}; }

inline TextTemplate text(std::vector<std::string> pieces, IntVec slots) {
  return TextTemplate{std::move(pieces), std::move(slots)};
}

class FixtureBuilder {
 public:
  explicit FixtureBuilder(int32_t num_facts) : num_facts(num_facts) {}

  int32_t num_facts = 0;
  int32_t num_players = 0;
  int32_t fact_args_width = 1;
  std::vector<ObjectDef> objects;
  std::vector<GroundingDef> groundings;
  std::vector<NodeDef> nodes;
  std::vector<std::pair<int32_t, int32_t>> templates;  // (first, count)
  std::vector<IntVec> groups;                          // creation groups: object slots
  std::vector<GoalVarDef> goal_vars;
  IntVec goal_order;  // empty: identity
  std::vector<GoalAtomDef> goal_atoms;
  IntVec fact_args;   // rows of fact_args_width
  std::vector<TextTemplate> text_templates;
  std::vector<TextTemplate> action_templates = {text({"act"}, {})};
  std::string goal_description = "goal";

  // Adds `count` objects named prefix0.. of one type with typepos 0, 1, ...; returns the first.
  int32_t add_objects(int32_t count, const std::string& prefix = "o", int32_t type = 0) {
    const auto first = static_cast<int32_t>(objects.size());
    for (int32_t i = 0; i < count; ++i) {
      objects.push_back(ObjectDef{prefix + std::to_string(i), "Item", type, i});
    }
    return first;
  }

  int32_t add_grounding(GroundingDef g) {
    groundings.push_back(std::move(g));
    return static_cast<int32_t>(groundings.size()) - 1;
  }

  // Adds a template whose nodes are given in preorder (children relative to the first node).
  int32_t add_template(std::vector<NodeDef> tree) {
    const auto first = static_cast<int32_t>(nodes.size());
    for (NodeDef& n : tree) {
      for (int32_t& c : n.children) c += first;
      nodes.push_back(std::move(n));
    }
    templates.emplace_back(first, static_cast<int32_t>(tree.size()));
    return static_cast<int32_t>(templates.size()) - 1;
  }

  // A one-node template.
  int32_t add_template(NodeDef node) { return add_template(std::vector<NodeDef>{std::move(node)}); }

  // A goal that never holds: one constant atom over an object that does not exist.
  void set_unreachable_goal() {
    goal_vars.clear();
    goal_order.clear();
    goal_atoms = {GoalAtomDef{0, {obj(1 << 20, 0, 1)}}};
  }

  // Adds a grounding with no preconditions that starts template t.
  int32_t add_trigger(int32_t t) {
    GroundingDef g;
    g.sfx = {t};
    return add_grounding(std::move(g));
  }

  TaskSpec spec() const {
    TaskSpec s;
    s.num_facts = num_facts;
    s.num_objects = static_cast<int32_t>(objects.size());
    s.num_players = num_players;
    s.fact_args_width = fact_args_width;
    s.line_begin = {0};
    for (const ObjectDef& o : objects) {
      s.object_type.push_back(o.type);
      s.typepos.push_back(o.typepos);
      s.exists_fact.push_back(o.exists_fact);
      s.object_names.push_back(o.name);
      s.object_labels.push_back(o.label);
      for (const auto& [fact, tpl] : o.lines) {
        s.line_fact.push_back(fact);
        s.line_template.push_back(tpl);
      }
      s.line_begin.push_back(static_cast<int32_t>(s.line_fact.size()));
    }
    s.delete_fact_begin = {0};
    for (const ObjectDef& o : objects) {
      s.delete_facts.insert(s.delete_facts.end(), o.delete_facts.begin(), o.delete_facts.end());
      s.delete_fact_begin.push_back(static_cast<int32_t>(s.delete_facts.size()));
    }

    size_t max_params = 0;
    for (const GroundingDef& g : groundings) max_params = std::max(max_params, g.args.size());
    s.pre_pos_begin = s.pre_neg_begin = s.eff_begin = s.sfx_begin = {0};
    for (const GroundingDef& g : groundings) {
      s.pre_pos.insert(s.pre_pos.end(), g.pos.begin(), g.pos.end());
      s.pre_pos_begin.push_back(static_cast<int32_t>(s.pre_pos.size()));
      s.pre_neg.insert(s.pre_neg.end(), g.neg.begin(), g.neg.end());
      s.pre_neg_begin.push_back(static_cast<int32_t>(s.pre_neg.size()));
      for (const auto& [fact, value] : g.eff) {
        s.eff_fact.push_back(fact);
        s.eff_value.push_back(value ? 1 : 0);
      }
      s.eff_begin.push_back(static_cast<int32_t>(s.eff_fact.size()));
      s.sfx_template.insert(s.sfx_template.end(), g.sfx.begin(), g.sfx.end());
      s.sfx_begin.push_back(static_cast<int32_t>(s.sfx_template.size()));
      s.owner.push_back(g.owner);
      s.action_of.push_back(g.action);
      for (size_t i = 0; i < max_params; ++i) {
        s.grounding_args.push_back(i < g.args.size() ? g.args[i] : -1);
      }
    }

    for (const auto& [first, count] : templates) {
      s.template_first.push_back(first);
      s.template_count.push_back(count);
    }
    s.node_fx_begin = {0};
    s.node_child_begin = {0};
    s.lit_guard_begin = {0};
    auto add_lit = [&s](const Lit& l) {
      s.lit_fact.push_back(l.fact);
      s.lit_value.push_back(l.value ? 1 : 0);
      s.lit_created_stride.push_back(l.created_stride);
      s.lit_guards.insert(s.lit_guards.end(), l.guards.begin(), l.guards.end());
      s.lit_guard_begin.push_back(static_cast<int32_t>(s.lit_guards.size()));
    };
    for (const NodeDef& n : nodes) {
      s.node_type.push_back(static_cast<int32_t>(n.type));
      s.node_goal.push_back(n.goal);
      for (const Lit& l : n.fx) add_lit(l);
      s.node_cond_begin.push_back(static_cast<int32_t>(s.lit_fact.size()));
      for (const Lit& l : n.cond) add_lit(l);
      s.node_fx_begin.push_back(static_cast<int32_t>(s.lit_fact.size()));
      s.node_children.insert(s.node_children.end(), n.children.begin(), n.children.end());
      s.node_child_begin.push_back(static_cast<int32_t>(s.node_children.size()));
      s.node_delete_object.push_back(n.delete_object);
      s.node_create_group.push_back(n.create_group);
    }
    s.node_cond_begin.push_back(static_cast<int32_t>(s.lit_fact.size()));
    s.group_slot_begin = {0};
    for (const IntVec& slots : groups) {
      s.group_slots.insert(s.group_slots.end(), slots.begin(), slots.end());
      s.group_slot_begin.push_back(static_cast<int32_t>(s.group_slots.size()));
    }

    const auto V = static_cast<int32_t>(goal_vars.size());
    s.goal_cand_begin = {0};
    for (const GoalVarDef& v : goal_vars) {
      s.goal_var_group.push_back(v.group);
      s.goal_candidates.insert(s.goal_candidates.end(), v.candidates.begin(), v.candidates.end());
      s.goal_cand_begin.push_back(static_cast<int32_t>(s.goal_candidates.size()));
    }
    s.goal_order = goal_order;
    if (s.goal_order.empty()) {
      for (int32_t v = 0; v < V; ++v) s.goal_order.push_back(v);
    }
    IntVec level_of(static_cast<size_t>(V), 0);
    for (int32_t i = 0; i < static_cast<int32_t>(s.goal_order.size()); ++i) {
      const int32_t v = s.goal_order[static_cast<size_t>(i)];
      if (v >= 0 && v < V) level_of[static_cast<size_t>(v)] = i;
    }
    s.goal_atom_arg_begin = {0};
    for (const GoalAtomDef& a : goal_atoms) {
      s.goal_atom_base.push_back(a.base);
      int32_t level = -1;
      for (const GoalArg& g : a.args) {
        s.goal_atom_args.insert(s.goal_atom_args.end(),
                                {g.is_var ? 1 : 0, g.value, g.type, g.stride});
        if (g.is_var && g.value >= 0 && g.value < V) {
          level = std::max(level, level_of[static_cast<size_t>(g.value)]);
        }
      }
      s.goal_atom_level.push_back(level);
      s.goal_atom_arg_begin.push_back(static_cast<int32_t>(s.goal_atom_args.size() / 4));
    }

    s.fact_args = fact_args;
    s.text_templates = text_templates;
    s.action_templates = action_templates;
    s.goal_description = goal_description;
    return s;
  }

  Task task() const { return Task(spec()); }
};

// One state of a task: fact words and counters, zero-initialised.
struct State {
  explicit State(const Task& task)
      : words(static_cast<size_t>(task.num_words)), counters(static_cast<size_t>(task.num_counters)) {}

  bool bit(int32_t fact) const { return test_bit(words.data(), fact); }
  void set(int32_t fact, bool value = true) { set_bit(words.data(), fact, value); }
  int32_t list_length() const { return counters[1]; }

  std::vector<uint64_t> words;
  std::vector<int32_t> counters;
};

// The node state word of node n.
inline int32_t node_word(const Task& task, const State& s, int32_t n) {
  return s.counters[static_cast<size_t>(task.node_offset + n)];
}

// Steps one grounding (or -1 for a step with no action).
inline int step_one(const Task& task, State& s, int32_t g) {
  return step(task, s.words.data(), s.counters.data(), &g, 1, nullptr);
}

}  // namespace robotouille::testing

#endif  // ROBOTOUILLE_TESTS_CPP_FIXTURES_H_

// Goal matching (decision D5) and text rendering (reference §6).
#include <string>
#include <vector>

#include "robotouille/kernels.h"

namespace robotouille {
namespace {

// Whether goal atom a holds under the (partial) assignment; its variables are all assigned.
bool atom_holds(const Task& task, const uint64_t* words, int32_t a, const int32_t* assign) {
  const TaskSpec& s = task.spec;
  int64_t fact = s.goal_atom_base[a];
  for (int32_t k = s.goal_atom_arg_begin[a]; k < s.goal_atom_arg_begin[a + 1]; ++k) {
    const int32_t* arg = &s.goal_atom_args[4 * static_cast<size_t>(k)];
    const int32_t obj = arg[0] ? assign[arg[1]] : arg[1];
    // Names of objects that do not exist (and never can) make the atom false.
    if (obj >= task.num_objects || s.object_type[obj] != arg[2]) return false;
    fact += static_cast<int64_t>(arg[3]) * s.typepos[obj];
  }
  return test_bit(words, static_cast<int32_t>(fact));
}

bool atoms_hold(const Task& task, const uint64_t* words, int32_t level, const int32_t* assign) {
  for (int32_t k = task.level_atom_begin[level]; k < task.level_atom_begin[level + 1]; ++k) {
    if (!atom_holds(task, words, task.level_atoms[k], assign)) return false;
  }
  return true;
}

// Depth-first search over the variable order; variables of one group take distinct values.
bool extend(const Task& task, const uint64_t* words, int32_t depth, int32_t* assign) {
  const TaskSpec& s = task.spec;
  const auto num_vars = static_cast<int32_t>(s.goal_order.size());
  if (depth == num_vars) return true;
  const int32_t var = s.goal_order[depth];
  const int32_t group = s.goal_var_group[var];
  for (int32_t c = s.goal_cand_begin[var]; c < s.goal_cand_begin[var + 1]; ++c) {
    const int32_t value = s.goal_candidates[c];
    bool taken = false;
    for (int32_t d = 0; d < depth && !taken; ++d) {
      const int32_t other = s.goal_order[d];
      taken = s.goal_var_group[other] == group && assign[other] == value;
    }
    if (taken) continue;
    assign[var] = value;
    if (atoms_hold(task, words, depth + 1, assign) && extend(task, words, depth + 1, assign)) {
      return true;
    }
  }
  return false;
}

void render_template(const Task& task, const TextTemplate& t, const int32_t* args,
                     std::string& out) {
  for (size_t i = 0; i < t.slots.size(); ++i) {
    out += t.pieces[i];
    out += task.spec.object_names[args[t.slots[i]]];
  }
  out += t.pieces.back();
}

}  // namespace

bool goal_reached(const Task& task, const uint64_t* words) {
  for (size_t a = 0; a + 1 < task.filter_begin.size(); ++a) {
    bool some = false;
    for (int32_t k = task.filter_begin[a]; k < task.filter_begin[a + 1] && !some; ++k) {
      some = test_bit(words, task.filter_facts[k]);
    }
    if (!some) return false;
  }
  if (!atoms_hold(task, words, 0, nullptr)) return false;
  // A stack buffer for the usual small goals (thread_local costs a TLS lookup per call).
  constexpr size_t kSmall = 64;
  const size_t num_vars = task.spec.goal_order.size();
  if (num_vars <= kSmall) {
    int32_t assign[kSmall];
    return extend(task, words, 0, assign);
  }
  std::vector<int32_t> assign(num_vars, -1);
  return extend(task, words, 0, assign.data());
}

std::string describe(const Task& task, const uint64_t* words) {
  const TaskSpec& s = task.spec;
  std::string out;
  out.reserve(4096);
  bool first = true;
  for (int32_t o = 0; o < task.num_objects; ++o) {
    if (s.exists_fact[o] >= 0 && !test_bit(words, s.exists_fact[o])) continue;
    if (!first) out += "\n\n";
    first = false;
    // Block: "<Type> <name>:\n" + "\n".join(lines), exactly as the original joins it.
    out += s.object_labels[o];
    out += ' ';
    out += s.object_names[o];
    out += ":\n";
    bool first_line = true;
    for (int32_t k = s.line_begin[o]; k < s.line_begin[o + 1]; ++k) {
      const int32_t f = s.line_fact[k];
      if (!test_bit(words, f)) continue;
      if (!first_line) out += '\n';
      first_line = false;
      render_template(task, s.text_templates[s.line_template[k]],
                      &s.fact_args[static_cast<size_t>(f) * task.max_arity], out);
    }
  }
  return out;
}

std::string action_text(const Task& task, int32_t g) {
  std::string out;
  const TaskSpec& s = task.spec;
  render_template(task, s.action_templates[s.action_of[g]],
                  &s.grounding_args[static_cast<size_t>(g) * task.max_params], out);
  return out;
}

std::string observation(const Task& task, const uint64_t* words,
                        const std::vector<int32_t>& valid) {
  std::string out = describe(task, words);
  out += "\n\nValid Actions:\n";
  for (size_t i = 0; i < valid.size(); ++i) {
    if (i) out += '\n';
    out += action_text(task, valid[i]);
  }
  out += "\n\nGoal: ";
  out += task.spec.goal_description;
  return out;
}

}  // namespace robotouille

// Goal matching (decision D5) and text rendering (reference §6).
#include <algorithm>
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
// fixed (may be null): per variable, the only value it may take, or -1.
bool extend(const Task& task, const uint64_t* words, int32_t depth, int32_t* assign,
            const int32_t* fixed) {
  const TaskSpec& s = task.spec;
  const auto num_vars = static_cast<int32_t>(s.goal_order.size());
  if (depth == num_vars) return true;
  const int32_t var = s.goal_order[depth];
  const int32_t group = s.goal_var_group[var];
  for (int32_t c = s.goal_cand_begin[var]; c < s.goal_cand_begin[var + 1]; ++c) {
    const int32_t value = s.goal_candidates[c];
    if (fixed != nullptr && fixed[var] >= 0 && fixed[var] != value) continue;
    bool taken = false;
    for (int32_t d = 0; d < depth && !taken; ++d) {
      const int32_t other = s.goal_order[d];
      taken = s.goal_var_group[other] == group && assign[other] == value;
    }
    if (taken) continue;
    assign[var] = value;
    if (atoms_hold(task, words, depth + 1, assign) &&
        extend(task, words, depth + 1, assign, fixed)) {
      return true;
    }
  }
  return false;
}

// Whether some goal atom fails under every assignment that extend() can complete from
// `fixed`: one whose variables are all fixed and that is false, or one with a single free
// variable that no candidate makes true. A necessary condition only (it ignores that a group's
// variables take distinct values), checked before the search, which can enumerate many
// assignments of the other variables before it reaches such an atom.
bool fixed_atoms_fail(const Task& task, const uint64_t* words, const int32_t* fixed,
                      int32_t* assign) {
  const TaskSpec& s = task.spec;
  std::copy(fixed, fixed + s.goal_var_group.size(), assign);
  for (size_t a = 0; a < s.goal_atom_base.size(); ++a) {
    int32_t free_var = -1;
    bool several_free = false;
    for (int32_t k = s.goal_atom_arg_begin[a]; k < s.goal_atom_arg_begin[a + 1]; ++k) {
      const int32_t* arg = &s.goal_atom_args[4 * static_cast<size_t>(k)];
      if (arg[0] == 0 || fixed[arg[1]] >= 0 || arg[1] == free_var) continue;
      several_free = several_free || free_var >= 0;
      free_var = arg[1];
    }
    if (several_free) continue;
    const auto atom = static_cast<int32_t>(a);
    if (free_var < 0) {
      if (!atom_holds(task, words, atom, assign)) return true;
      continue;
    }
    bool some = false;
    for (int32_t c = s.goal_cand_begin[free_var]; c < s.goal_cand_begin[free_var + 1] && !some;
         ++c) {
      assign[free_var] = s.goal_candidates[c];
      some = atom_holds(task, words, atom, assign);
    }
    assign[free_var] = -1;
    if (!some) return true;
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
  return goal_reached_with(task, words, nullptr);
}

bool goal_reached_with(const Task& task, const uint64_t* words, const int32_t* fixed) {
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
    if (fixed != nullptr && fixed_atoms_fail(task, words, fixed, assign)) return false;
    return extend(task, words, 0, assign, fixed);
  }
  std::vector<int32_t> assign(num_vars, -1);
  if (fixed != nullptr && fixed_atoms_fail(task, words, fixed, assign.data())) return false;
  return extend(task, words, 0, assign.data(), fixed);
}

std::string describe(const Task& task, const uint64_t* words, const int32_t* counters) {
  const TaskSpec& s = task.spec;
  std::vector<int32_t> order, key, lines;
  const bool reordered = object_order(task, words, counters, order);
  if (reordered) dynamic_keys(task, order, key);
  const auto width = static_cast<size_t>(task.max_arity);
  auto pred_of = [&](int32_t line) {
    const int32_t t = s.line_template[line];
    return s.template_pred.empty() ? t : s.template_pred[t];
  };
  std::string out;
  out.reserve(4096);
  for (size_t i = 0; i < order.size(); ++i) {
    const int32_t o = order[i];
    if (i) out += "\n\n";
    // Block: "<Type> <name>:\n" + "\n".join(lines), exactly as the original joins it.
    out += s.object_labels[o];
    out += ' ';
    out += s.object_names[o];
    out += ":\n";
    lines.clear();
    for (int32_t k = s.line_begin[o]; k < s.line_begin[o + 1]; ++k) {
      if (test_bit(words, s.line_fact[k])) lines.push_back(k);
    }
    if (reordered) {
      // Predicate-table order over the state's object order (created objects appended).
      std::stable_sort(lines.begin(), lines.end(), [&](int32_t a, int32_t b) {
        if (pred_of(a) != pred_of(b)) return pred_of(a) < pred_of(b);
        const int32_t* fa = &s.fact_args[static_cast<size_t>(s.line_fact[a]) * width];
        const int32_t* fb = &s.fact_args[static_cast<size_t>(s.line_fact[b]) * width];
        for (size_t j = 0; j < width; ++j) {
          const int32_t ka = fa[j] < 0 ? -1 : key[fa[j]];
          const int32_t kb = fb[j] < 0 ? -1 : key[fb[j]];
          if (ka != kb) return ka < kb;
        }
        return false;
      });
    }
    for (size_t j = 0; j < lines.size(); ++j) {
      if (j) out += '\n';
      const int32_t f = s.line_fact[lines[j]];
      render_template(task, s.text_templates[s.line_template[lines[j]]],
                      &s.fact_args[static_cast<size_t>(f) * width], out);
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
                        const std::vector<int32_t>& valid, const int32_t* counters) {
  std::string out = describe(task, words, counters);
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

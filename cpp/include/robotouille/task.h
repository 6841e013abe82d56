/*
 * Task: an immutable, compiled Robotouille problem (domain x environment), built once from the
 * flat integer arrays that python/robotouille/compile.py produces. It never sees a JSON file or
 * a Python object; names appear only as the strings the renderer concatenates.
 *
 * State layout (owned by the caller, one row per state in a batch):
 *   words    uint64[num_words]     fact bits; fact f is bit f % 64 of word f / 64. Bits at or
 *                                  beyond num_facts are always zero.
 *   counters int32[num_counters]   [0] current player, [1] length L of the active special-effect
 *                                  list, [2, 2+T) the list (template ids in creation order, zero
 *                                  past L), [2+T, 2+T+N) one state word per effect node:
 *                                  progress in the low 24 bits, kCompleted, kActive (roots only).
 *                                  Inactive templates have all-zero node words, so equal
 *                                  situations have equal counters (states can be hashed).
 *                                  Then one rank per object that can be created or deleted:
 *                                  0 while it sits in its initial place (or does not exist),
 *                                  r > 0 when it is the r-th object appended to the object
 *                                  list by a creation (ranks stay dense: 1..R).
 *
 * Special effects: every grounded top-level special effect is interned (by the original's
 * identity rule) as a template, a preorder run of nodes starting at template_first[t]. A node
 * has a type, a goal (delayed: ticks until it fires; repetitive: applications), effect and
 * condition literals, children, and for creation/deletion the object group / object involved.
 *
 * Objects that can be created or deleted have a hidden "exists" fact (exists_fact[o] >= 0);
 * others always exist. Facts of objects that do not exist are always false. The original appends
 * created objects to its object list, so object, line and valid-action order follow creation
 * order; fact and grounding ids follow the compile-time order, and the ranks say where the two
 * differ (see object_order in kernels.h).
 *
 * Ownership: Task owns copies of all its tables; it is immutable after construction and safe to
 * share between threads.
 *
 * Example:
 *   robotouille::Task task(spec);                  // spec filled from compile.py's arrays
 *   std::vector<uint64_t> words(task.num_words);   // + initial bits
 *   std::vector<int32_t> counters(task.num_counters);
 *   int32_t action = 3; uint8_t applied;
 *   int status = robotouille::step(task, words.data(), counters.data(), &action, 1, &applied);
 */
#ifndef ROBOTOUILLE_TASK_H_
#define ROBOTOUILLE_TASK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace robotouille {

using IntVec = std::vector<int32_t>;

// A text template: pieces[0] arg[slots[0]] pieces[1] ... arg[slots[n-1]] pieces[n].
struct TextTemplate {
  std::vector<std::string> pieces;
  IntVec slots;
};

// The flat description of a task, as compile.py produces it. "*_begin" arrays are CSR offsets
// (length rows + 1) into the array that follows them.
struct TaskSpec {
  int32_t num_facts = 0;
  int32_t num_objects = 0;
  int32_t num_players = 0;
  int32_t fact_args_width = 1;
  IntVec object_type, typepos, exists_fact;
  // Groundings.
  IntVec pre_pos_begin, pre_pos, pre_neg_begin, pre_neg;
  IntVec eff_begin, eff_fact, eff_value;
  IntVec sfx_begin, sfx_template;
  IntVec owner, action_of, grounding_args;  // grounding_args: G x max_params
  // Optional, one per fact: 1 where the fact is likely true (e.g. true initially). Only used to
  // shape the applicability tree; results never depend on it.
  IntVec fact_hint;
  // Special-effect templates, nodes and literals.
  IntVec template_first, template_count;
  IntVec node_type, node_goal, node_fx_begin, node_cond_begin, node_child_begin, node_children;
  IntVec node_delete_object, node_create_group;
  IntVec lit_fact, lit_value, lit_created_stride, lit_guard_begin, lit_guards;
  IntVec group_slot_begin, group_slots;
  IntVec delete_fact_begin, delete_facts;
  // Goal (decision D5): variables with candidates, atoms with (is_var, value, type, stride).
  IntVec goal_var_group, goal_cand_begin, goal_candidates, goal_order;
  IntVec goal_atom_base, goal_atom_level, goal_atom_arg_begin, goal_atom_args;  // args: 4 per
  // Rendering.
  std::vector<std::string> object_names, object_labels;
  IntVec line_begin, line_fact, line_template, fact_args;  // fact_args: facts x max_arity
  IntVec template_pred;  // predicate index of each text template (empty: the template index)
  IntVec hole_facts;     // facts whose tuple repeats an object: never true, never written
  std::vector<TextTemplate> text_templates, action_templates;
  std::string goal_description;
};

enum class EffectType : int32_t {
  kDelayed = 0,
  kRepetitive = 1,
  kConditional = 2,
  kCreation = 3,
  kDeletion = 4
};

inline constexpr int32_t kProgressMask = (1 << 24) - 1;
inline constexpr int32_t kCompleted = 1 << 24;
inline constexpr int32_t kActive = 1 << 25;

// Status bits returned by the kernels.
inline constexpr int kStatusGoal = 1;           // the goal holds after the step
inline constexpr int kStatusPoolExhausted = 2;  // a creation found no free pool object

class Task {
 public:
  explicit Task(TaskSpec spec);  // validates the spec; throws std::invalid_argument

  int32_t num_facts = 0;
  int32_t num_words = 0;
  int32_t num_objects = 0;
  int32_t num_players = 0;
  int32_t num_groundings = 0;
  int32_t num_templates = 0;
  int32_t num_nodes = 0;
  int32_t num_counters = 0;
  int32_t mask_words = 0;  // words of a valid-action mask: ceil(G / 64)
  int32_t max_params = 0;
  int32_t max_arity = 0;
  int32_t node_offset = 0;  // index of node 0's word in counters
  int32_t rank_offset = 0;  // index of the first object rank in counters
  int32_t num_ranked = 0;   // objects with a rank (those with an exists fact)
  IntVec rank_slot;         // per object: its rank's index after rank_offset, or -1
  std::vector<uint64_t> hole_mask;  // bit set for each of spec.hole_facts

  TaskSpec spec;
  // Applicability index, in two levels. Each grounding with a positive precondition is keyed by
  // one of them (one that is rarely true and shared by few groundings); a state visits only the
  // buckets of its true key facts (a bit scan over words & key_mask). Inside a bucket, and for
  // the groundings without a key, a decision tree (a successor generator, as in Fast Downward)
  // tests one fact per node: `leaves` are the groundings whose preconditions were all tested on
  // the path to the node; groundings below child_true / child_false require the fact true /
  // false, those below child_any do not mention it. (Measured: ~6k instructions per random
  // step on the largest original files, half of a flat key index with full checks.)
  struct TreeNode {
    int32_t fact = -1;
    int32_t child_true = -1, child_false = -1, child_any = -1;
    int32_t leaf_begin = 0, leaf_end = 0;  // groundings known valid here (in tree_leaves)
  };
  std::vector<TreeNode> tree;
  IntVec tree_leaves;
  IntVec key_root;                 // per fact: root node of its bucket's tree, or -1
  std::vector<uint64_t> key_mask;  // facts with a bucket
  int32_t unkeyed_root = -1;       // tree of the groundings without a positive precondition
  // Goal atoms grouped by the level of the variable order at which they become fully bound
  // (level 0 = constants, level i + 1 = after assigning goal_order[i]).
  IntVec level_atom_begin, level_atoms;
  IntVec var_level;
  // Quick rejection before matching: for goal atoms with few possible facts, the facts they can
  // map to under any assignment; the goal fails at once when one atom has none of its facts
  // true. Atoms are ordered by how few facts they have (the most selective first).
  IntVec filter_begin, filter_facts;

  // The facts goal atom `atom` can map to, sorted, with the variables that `assign` (indexed by
  // variable; -1 = free; may be null) fixes and the others ranging over their candidates.
  // Returns false, leaving facts empty, when that is more than max_facts combinations.
  bool atom_facts_under(int32_t atom, const int32_t* assign, int64_t max_facts,
                        IntVec& facts) const;

  // The facts literal `l` of effect node `node` can name: its own fact, or for a literal about
  // the created object, its fact for every object the creation node can make.
  IntVec literal_facts(int32_t node, int32_t l) const;
  // The objects creation node `node` can make (none for other nodes).
  IntVec creatable(int32_t node) const;

 private:
  void build_index();
  void build_goal_filter();
  // Per-fact scratch of build_tree, all zero between calls (task.cc).
  struct TreeScratch;
  // Builds a decision tree over `groundings`, whose preconditions on `tested` are already known
  // to hold; returns its root node.
  int32_t build_tree(IntVec groundings, const IntVec& tested, TreeScratch& scratch);
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_TASK_H_

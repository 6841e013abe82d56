/*
 * Symmetry reduction for the planner: maps an engine state to a representative of its orbit
 * under permutations of interchangeable objects (e.g. the empty tables of a kitchen, or two
 * breads), so that the search stores one state per orbit.
 *
 * The classes come from python/robotouille/symmetry.py, which proves that every transposition
 * of two members of a class maps the task onto itself (groundings, special-effect templates,
 * static facts, goal). So every product of such transpositions is an automorphism: a state and
 * its image have the same successors up to the permutation and the same distance to the goal.
 * That is all soundness needs; the representative does not have to be unique (an imperfect one
 * only merges fewer states).
 *
 * Representative: each class member gets a signature, an order-independent hash of the true
 * mutable facts and active special effects it takes part in, where the other arguments are
 * named by their class (for class members) or their identity (others). Within each class the
 * roles are sorted by (signature, current position) with at most k - 1 rotations of slots, each
 * applied to the fact bits at once (precomputed masked word moves) and, as its transpositions,
 * to the counters (the active-effect list is renamed and the node words of exchanged templates
 * move with them).
 * Invariant kept by the engine and relied on here: templates not in the active list have
 * all-zero node words.
 *
 * Ownership: a Canonicalizer copies its tables and refers to the Task, which must outlive it.
 * It keeps per-call scratch space, so one instance serves one thread.
 */
#ifndef ROBOTOUILLE_SYMMETRY_H_
#define ROBOTOUILLE_SYMMETRY_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "robotouille/task.h"

namespace robotouille {

// The tables python/robotouille/symmetry.py builds (see its SymmetryTables for each field).
struct SymmetrySpec {
  IntVec class_begin, class_objects;
  IntVec pair_fact_begin, pair_facts;          // per (class, i, j): fact pairs, flattened
  IntVec pair_template_begin, pair_templates;  // per (class, i, j): (t, t') both ways, by t
  IntVec fact_pred;                            // per fact: predicate, or -1 (not hashed)
  IntVec template_orbit;
  IntVec template_object_begin, template_objects;
};

class Canonicalizer {
 public:
  // Validates the tables against the task; throws std::invalid_argument on a mismatch.
  Canonicalizer(const Task& task, SymmetrySpec spec);

  bool empty() const { return num_classes_ == 0; }

  // Rewrites the state into its representative. When `swaps` is given, appends the object
  // transpositions applied, in order.
  void canonicalize(uint64_t* words, int32_t* counters,
                    std::vector<std::pair<int32_t, int32_t>>* swaps);

  // Per object, `representative` gets the first member of its class that it can trade places
  // with in this state (the transposition maps the state onto itself), or the object itself.
  // Two steps that differ only by such a transposition lead to states of one orbit.
  void stabilizer(const uint64_t* words, const int32_t* counters, IntVec& representative);

 private:
  // Computes every class member's signature of the state into signature_.
  void sign(const uint64_t* words, const int32_t* counters);
  // Whether applying the pair leaves the state as it is (a renamed active template counts as
  // a change).
  bool fixes(int32_t pair, const uint64_t* words, const int32_t* counters) const;
  // Renames the listed templates that the pair maps, moving their node words with them.
  void rename_templates(int32_t pair, int32_t* counters);
  int32_t partner(int32_t pair, int32_t t) const;
  // Brings role r of class c to slot q (q < r) and shifts slots q..r-1 up by one
  // (`right`), or brings q to r and shifts q+1..r down by one: the transpositions (q, r),
  // (q+1, r), ..., (r-1, r), or (q, q+1), (q+1, q+2), ..., (r-1, r), applied at once to the
  // fact words (see "Rotations" below) and one after another to the listed templates.
  // Appends those transpositions to `swaps` when given.
  void rotate(int32_t c, int32_t q, int32_t r, bool right, uint64_t* words, int32_t* counters,
              std::vector<std::pair<int32_t, int32_t>>* swaps);

  const Task& task_;
  SymmetrySpec spec_;
  int32_t num_classes_ = 0;
  IntVec class_of_;    // per object: its class, or -1
  IntVec pair_base_;   // per class: index of its (0, 0) pair row
  // Per pair (CSR): its fact exchanges as masked word swaps, which fixes() checks. The facts
  // at mask's bits of word_a trade places with those `shift` bits higher (lower, if negative)
  // in word_b.
  struct FactSwap {
    int32_t word_a, word_b, shift;
    uint64_t mask;
  };
  IntVec swap_begin_;
  std::vector<FactSwap> swaps_;
  // Rotations: sorting a class whose member moved d slots takes d transpositions, each a full
  // list of masked exchanges (for 17 tables, about 24 each). A rotation of slots q..r moves
  // every fact at once: per rotation, its touched words in order, each with the mask of the
  // bits it receives (exactly those it gives) and where its moves end; a word's moves (bits of
  // src_word at mask, rotated left by `shift` into it) come right before that end. Grouped by
  // the word they fill, a word's bits gather in a register and are stored once.
  struct FactMove {
    uint64_t mask;
    int32_t src_word, shift;
  };
  struct TouchedWord {
    int32_t word, moves_end;
    uint64_t mask;
  };
  // Per class, per (q, r, direction): rotation_base_[c] + 2 * (q * k + r) + right.
  IntVec rotation_base_;
  IntVec move_begin_, touched_begin_;  // per rotation (CSR)
  std::vector<FactMove> moves_;
  std::vector<TouchedWord> touched_;
  std::vector<uint64_t> gathered_;  // scratch: per touched word, the bits it receives
  std::vector<uint64_t> relevant_;  // facts that mention a class member
  IntVec contrib_begin_, contrib_object_;  // per fact: (member, hash) added to its signature
  std::vector<uint64_t> contrib_value_;
  // Scratch.
  std::vector<uint64_t> signature_;  // per object
  // The facts' part of signature_ for last_input_, the fact words of the previous call's input
  // (all false before the first call).
  std::vector<uint64_t> fact_signature_, last_input_;
  IntVec role_, order_, saved_words_, renamed_;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_SYMMETRY_H_

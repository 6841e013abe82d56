/*
 * Kernels over one state or a batch of states of a Task: applicability, applying actions, the
 * end-of-step special-effect pass, goal tests and text rendering.
 *
 * Semantics (reference spec §1.5-1.9, §4, §5, with decisions D1, D3, D5):
 *   - apply_grounding: immediate effects in order, then for each top-level special effect its
 *     template is appended to the active list unless already there, and the template's root
 *     gets an active update.
 *   - end_step: every active template gets exactly one passive update, in list order (D1: the
 *     original skipped the entry after a completed one); completed templates are then removed.
 *   - step: applies up to n groundings in order (an entry that is -1, or no longer valid when
 *     its turn comes, is not applied and reported in `applied`), then end_step, then the goal
 *     test; the current player rotates when the goal does not hold.
 *
 * All functions are pure functions of (task, state) and are safe to call from many threads on
 * different states. They write only the state and output buffers they are given. A kernel that
 * returns kStatusPoolExhausted has left the state partially updated: callers work on a copy.
 */
#ifndef ROBOTOUILLE_KERNELS_H_
#define ROBOTOUILLE_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "robotouille/task.h"

namespace robotouille {

inline bool test_bit(const uint64_t* words, int32_t fact) {
  return (words[fact >> 6] >> (fact & 63)) & 1u;
}
inline void set_bit(uint64_t* words, int32_t fact, bool value) {
  const uint64_t m = uint64_t{1} << (fact & 63);
  words[fact >> 6] = value ? (words[fact >> 6] | m) : (words[fact >> 6] & ~m);
}
// The len (1..64) bits at bit position pos, as the low bits of the result.
inline uint64_t get_bits(const uint64_t* words, int32_t pos, int32_t len) {
  const int32_t idx = pos >> 6, sh = pos & 63;
  uint64_t v = words[idx] >> sh;
  if (sh && sh + len > 64) v |= words[idx + 1] << (64 - sh);
  return len == 64 ? v : v & ((uint64_t{1} << len) - 1);
}
// ORs the low len bits of v in at bit position pos (the destination bits must be clear).
inline void or_bits(uint64_t* words, int32_t pos, int32_t len, uint64_t v) {
  const int32_t idx = pos >> 6, sh = pos & 63;
  words[idx] |= v << sh;
  if (sh && sh + len > 64) words[idx + 1] |= v >> (64 - sh);
}

// Whether grounding g's preconditions hold. O(#preconditions).
bool is_valid(const Task& task, const uint64_t* words, int32_t g);

// Writes the valid-action bitmask (task.mask_words words, bit g = grounding g) into mask.
// When player >= 0, keeps only groundings owned by that object or by nobody (turn-based mode).
void valid_mask(const Task& task, const uint64_t* words, uint64_t* mask, int32_t player = -1);

// Writes the valid grounding ids, in canonical order, to out (cleared first). With counters,
// the order follows the state's object order (created objects in creation order); without,
// the compile-time order (the same unless objects of two creation groups were created out of
// slot order, or an initial object was deleted and created again).
void valid_groundings(const Task& task, const uint64_t* words, std::vector<int32_t>& out,
                      int32_t player = -1, const int32_t* counters = nullptr);

// Writes the existing objects in the state's object order to out: objects in their initial
// place in compile-time order, then appended (created) objects in creation order. Returns
// whether that differs from the compile-time order. counters may be null (compile-time order).
bool object_order(const Task& task, const uint64_t* words, const int32_t* counters,
                  std::vector<int32_t>& out);

// key[o] = position of object o in `order` (from object_order), -1 for objects not in it.
void dynamic_keys(const Task& task, const std::vector<int32_t>& order, std::vector<int32_t>& key);

// Applies grounding g (assumed valid). Returns status bits.
int apply_grounding(const Task& task, uint64_t* words, int32_t* counters, int32_t g);

// The end-of-step special-effect pass. Returns status bits.
int end_step(const Task& task, uint64_t* words, int32_t* counters);

// One environment step; see the header comment. applied may be null. Returns status bits.
int step(const Task& task, uint64_t* words, int32_t* counters, const int32_t* groundings,
         int32_t n, uint8_t* applied);

// Whether some injective assignment of the goal variables makes every goal atom true.
bool goal_reached(const Task& task, const uint64_t* words);
// The same, with the variables v where fixed[v] >= 0 bound to that object (fixed has one entry
// per goal variable).
bool goal_reached_with(const Task& task, const uint64_t* words, const int32_t* fixed);

// The object part of the observation text (reference §6.1), without valid actions or goal,
// in the state's object order when counters are given (see object_order).
std::string describe(const Task& task, const uint64_t* words, const int32_t* counters = nullptr);

// The language text of grounding g, e.g. "Move robot1 from table1 to table2".
std::string action_text(const Task& task, int32_t g);

// The full observation: describe + valid actions (the given groundings) + goal line.
std::string observation(const Task& task, const uint64_t* words,
                        const std::vector<int32_t>& valid, const int32_t* counters = nullptr);

// splitmix64: advances `state` and returns the next well-mixed 64-bit value (one small stream per
// environment or rollout).
uint64_t splitmix64(uint64_t& state);

// A uniformly random set bit of mask[0, words) (always draws one value from rng), or -1 when no
// bit is set. The modulo bias (popcount << 2^64) is irrelevant for a random policy.
int32_t random_set_bit(const uint64_t* mask, int32_t words, uint64_t& rng);

// Runs `steps` steps of a uniformly random policy from one state, in place: each step computes
// the valid mask, picks a valid grounding with a splitmix64 stream seeded by `seed`, and steps.
// When the goal is reached (or a creation pool runs out) the state is reset to (reset_words,
// reset_counters). Returns the number of episodes that reached the goal. Allocates one mask.
int64_t random_rollout(const Task& task, uint64_t* words, int32_t* counters, int64_t steps,
                       uint64_t seed, const uint64_t* reset_words, const int32_t* reset_counters);

}  // namespace robotouille

#endif  // ROBOTOUILLE_KERNELS_H_

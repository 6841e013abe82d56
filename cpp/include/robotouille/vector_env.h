/*
 * VectorEnv: B environments stepped together in worker threads, for reinforcement learning.
 *
 * Each environment runs one *instance* (a compiled Task plus its initial state) chosen from a
 * list that may mix instances of different sizes. What crosses to the learner is a fixed-shape,
 * instance-independent encoding given by a *layout*:
 *   - observation columns: fact f of instance i is written to column fact_column[i][f] (or not
 *     written, -1); after the instance's facts, column task_column[i] (if >= 0) is set, and
 *     column player_column[i] + current player (if >= 0);
 *   - action columns: column a of instance i is grounding column_grounding[i][a] (-1: never
 *     valid there); the action mask has a 1 in every column whose grounding is valid.
 * (python/robotouille/vector.py builds the layout from fact and action names.)
 *
 * Episodes: step() applies one action per environment (centralized: any valid grounding;
 * turn_based: only the current robot's and robot-less ones), runs the end-of-step effect pass and
 * the goal test; reward = goal_reward on the goal, terminated on the goal, truncated when the
 * instance's max_steps (> 0) is reached first, or when a creation found its pool exhausted.
 * Autoreset is Gymnasium's next-step mode: the step() after an environment terminated or was
 * truncated resets it instead (its action is ignored; reward 0, both flags false). Resetting
 * draws the next instance from the environment's own splitmix64 stream when its home instance is
 * -1, else uses the home instance; streams are per environment, so results never depend on the
 * thread count.
 *
 * Ownership: the caller owns every buffer in VecBuffers (numpy arrays on the Python side) and
 * keeps the Tasks and buffers alive while the VectorEnv exists; VectorEnv owns its layout tables,
 * a cache of each environment's valid-grounding bits and its thread pool. Rows of different
 * environments never share memory, and each call writes every output row it steps. Callers must
 * not write words/counters (the valid-grounding cache would go stale). Calls must not overlap.
 */
#ifndef ROBOTOUILLE_VECTOR_ENV_H_
#define ROBOTOUILLE_VECTOR_ENV_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "robotouille/task.h"
#include "robotouille/thread_pool.h"

namespace robotouille {

// One instance an environment can run, with its place in the layout.
struct VecInstance {
  const Task* task = nullptr;
  std::vector<uint64_t> initial_words;  // num_words
  IntVec initial_counters;              // num_counters
  IntVec fact_column;                   // per fact: observation column or -1
  IntVec column_grounding;              // per action column: grounding or -1
  IntVec robots;                        // robot object ids in robot (turn) order
  int32_t task_column = -1;             // observation column set for this instance, or -1
  int32_t player_column = -1;           // column of robot 0's turn flag, or -1
  int32_t max_steps = 0;                // truncation limit; 0: none
};

enum class InvalidAction { kRaise, kIgnore };

struct VecConfig {
  int32_t num_obs_columns = 0;
  int32_t num_action_columns = 0;
  bool turn_based = false;
  double goal_reward = 1.0;
  InvalidAction invalid_action = InvalidAction::kRaise;
  int32_t threads = 1;
};

// Row-major buffers with one row per environment (B rows), owned by the caller.
struct VecBuffers {
  int64_t num_envs = 0;
  uint64_t* words = nullptr;    // B x words_stride (>= every instance's num_words)
  int64_t words_stride = 0;
  int32_t* counters = nullptr;  // B x counters_stride (>= every instance's num_counters)
  int64_t counters_stride = 0;
  uint8_t* observation = nullptr;  // B x num_obs_columns, 0/1
  uint8_t* action_mask = nullptr;  // B x num_action_columns, 0/1
  double* reward = nullptr;        // B
  uint8_t* terminated = nullptr;   // B
  uint8_t* truncated = nullptr;    // B
  uint8_t* invalid = nullptr;      // B: the last step's action was invalid (kIgnore only)
  int32_t* instance = nullptr;     // B: instance each environment runs
  int32_t* home = nullptr;         // B: instance to reset to, -1 to draw one
  int32_t* steps = nullptr;        // B: steps since the environment's last reset
};

class VectorEnv {
 public:
  // Validates the instances against the config and buffers; throws std::invalid_argument.
  VectorEnv(std::vector<VecInstance> instances, VecConfig config, VecBuffers buffers);

  int64_t num_envs() const { return buffers_.num_envs; }
  int32_t threads() const { return pool_.threads(); }

  // Seeds each environment's stream (seeds may be null: keep the streams) and resets all.
  void reset(const uint64_t* seeds);

  // One step per environment; actions[b] is an action column. With kRaise, an action that is
  // not valid throws std::invalid_argument naming the environment and nothing changes.
  void step(const int32_t* actions);

  // One step per environment with a uniformly random valid action drawn from its own stream.
  void step_random();

 private:
  void reset_env(int64_t b);
  // Steps environment b with grounding (-1: no action) and writes its outputs; an ignored
  // (invalid) action only counts the step.
  void step_env(int64_t b, int32_t grounding, bool ignored);
  void write_outputs(int64_t b);
  int32_t player_of(int64_t b) const;
  uint64_t* valid_row(int64_t b) { return valid_.data() + b * valid_stride_; }

  std::vector<VecInstance> instances_;
  VecConfig config_;
  VecBuffers buffers_;
  int64_t valid_stride_ = 0;        // words per row of valid_
  std::vector<uint64_t> valid_;     // B x valid_stride_ valid-grounding bits of each state
  std::vector<uint8_t> pending_;    // B: reset on the next step
  std::vector<uint64_t> rng_;       // B splitmix64 states
  std::vector<IntVec> grounding_column_;  // per instance: grounding -> action column or -1
  ThreadPool pool_;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_VECTOR_ENV_H_

#include "robotouille/vector_env.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "robotouille/kernels.h"

namespace robotouille {

namespace {

std::string instance_name(size_t i) { return "instance " + std::to_string(i); }

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

VectorEnv::VectorEnv(std::vector<VecInstance> instances, VecConfig config, VecBuffers buffers)
    : instances_(std::move(instances)),
      config_(config),
      buffers_(buffers),
      pool_(config.threads < 1 ? 1 : config.threads) {
  require(!instances_.empty(), "a vector environment needs at least one instance");
  require(buffers_.num_envs >= 1, "a vector environment needs at least one environment");
  require(config_.num_obs_columns >= 0 && config_.num_action_columns >= 0,
          "column counts must be non-negative");
  for (size_t i = 0; i < instances_.size(); ++i) {
    const VecInstance& in = instances_[i];
    const std::string who = instance_name(i);
    require(in.task != nullptr, who + ": no task");
    const Task& t = *in.task;
    require(in.initial_words.size() == static_cast<size_t>(t.num_words),
            who + ": initial_words should have num_words entries");
    require(in.initial_counters.size() == static_cast<size_t>(t.num_counters),
            who + ": initial_counters should have num_counters entries");
    require(t.num_words <= buffers_.words_stride, who + ": words rows are too narrow");
    require(t.num_counters <= buffers_.counters_stride, who + ": counters rows are too narrow");
    require(in.fact_column.size() == static_cast<size_t>(t.num_facts),
            who + ": fact_column should have num_facts entries");
    for (int32_t c : in.fact_column) {
      require(c >= -1 && c < config_.num_obs_columns, who + ": fact column out of range");
    }
    require(in.column_grounding.size() == static_cast<size_t>(config_.num_action_columns),
            who + ": column_grounding should have one entry per action column");
    IntVec column(static_cast<size_t>(t.num_groundings), -1);
    for (int32_t a = 0; a < config_.num_action_columns; ++a) {
      const int32_t g = in.column_grounding[static_cast<size_t>(a)];
      if (g < 0) continue;
      require(g < t.num_groundings, who + ": grounding id out of range");
      require(column[static_cast<size_t>(g)] < 0, who + ": a grounding has two action columns");
      column[static_cast<size_t>(g)] = a;
    }
    for (int32_t c : column) require(c >= 0, who + ": a grounding has no action column");
    grounding_column_.push_back(std::move(column));
    require(in.task_column >= -1 && in.task_column < config_.num_obs_columns,
            who + ": task column out of range");
    require(in.player_column == -1 ||
                (in.player_column >= 0 &&
                 in.player_column + static_cast<int64_t>(in.robots.size()) <=
                     config_.num_obs_columns),
            who + ": player columns out of range");
    require(in.robots.size() == static_cast<size_t>(t.num_players),
            who + ": robots should list every player");
    for (int32_t r : in.robots) require(r >= 0 && r < t.num_objects, who + ": robot id");
    require(in.max_steps >= 0, who + ": max_steps must be >= 0");
    valid_stride_ = std::max<int64_t>(valid_stride_, t.mask_words);
  }
  const auto B = static_cast<size_t>(buffers_.num_envs);
  valid_.assign(B * static_cast<size_t>(valid_stride_), 0);
  pending_.assign(B, 0);
  rng_.assign(B, 0);
}

int32_t VectorEnv::player_of(int64_t b) const {
  const VecInstance& in = instances_[static_cast<size_t>(buffers_.instance[b])];
  if (!config_.turn_based || in.robots.empty()) return -1;
  return in.robots[static_cast<size_t>(buffers_.counters[b * buffers_.counters_stride])];
}

void VectorEnv::write_outputs(int64_t b) {
  const auto i = static_cast<size_t>(buffers_.instance[b]);
  const VecInstance& in = instances_[i];
  const Task& t = *in.task;
  const uint64_t* words = buffers_.words + b * buffers_.words_stride;
  uint64_t* valid = valid_row(b);
  valid_mask(t, words, valid, player_of(b));

  uint8_t* obs = buffers_.observation + b * config_.num_obs_columns;
  std::memset(obs, 0, static_cast<size_t>(config_.num_obs_columns));
  for (int32_t w = 0; w < t.num_words; ++w) {
    for (uint64_t bits = words[w]; bits; bits &= bits - 1) {
      const int32_t column = in.fact_column[static_cast<size_t>(w * 64 + std::countr_zero(bits))];
      if (column >= 0) obs[column] = 1;
    }
  }
  if (in.task_column >= 0) obs[in.task_column] = 1;
  if (in.player_column >= 0 && !in.robots.empty()) {
    obs[in.player_column + buffers_.counters[b * buffers_.counters_stride]] = 1;
  }

  uint8_t* mask = buffers_.action_mask + b * config_.num_action_columns;
  std::memset(mask, 0, static_cast<size_t>(config_.num_action_columns));
  const IntVec& column = grounding_column_[i];
  for (int32_t w = 0; w < t.mask_words; ++w) {
    for (uint64_t bits = valid[w]; bits; bits &= bits - 1) {
      mask[column[static_cast<size_t>(w * 64 + std::countr_zero(bits))]] = 1;
    }
  }
}

void VectorEnv::reset_env(int64_t b) {
  const int32_t home = buffers_.home[b];
  const auto n = static_cast<uint64_t>(instances_.size());
  const auto i = home >= 0 ? static_cast<size_t>(home)
                           : static_cast<size_t>(splitmix64(rng_[static_cast<size_t>(b)]) % n);
  const VecInstance& in = instances_[i];
  uint64_t* words = buffers_.words + b * buffers_.words_stride;
  int32_t* counters = buffers_.counters + b * buffers_.counters_stride;
  std::memset(words, 0, sizeof(uint64_t) * static_cast<size_t>(buffers_.words_stride));
  std::memset(counters, 0, sizeof(int32_t) * static_cast<size_t>(buffers_.counters_stride));
  std::memcpy(words, in.initial_words.data(), sizeof(uint64_t) * in.initial_words.size());
  std::memcpy(counters, in.initial_counters.data(), sizeof(int32_t) * in.initial_counters.size());
  buffers_.instance[b] = static_cast<int32_t>(i);
  buffers_.steps[b] = 0;
  buffers_.reward[b] = 0.0;
  buffers_.terminated[b] = 0;
  buffers_.truncated[b] = 0;
  buffers_.invalid[b] = 0;
  pending_[static_cast<size_t>(b)] = 0;
  write_outputs(b);
}

void VectorEnv::step_env(int64_t b, int32_t grounding, bool ignored) {
  const VecInstance& in = instances_[static_cast<size_t>(buffers_.instance[b])];
  buffers_.steps[b] += 1;
  // An ignored (invalid) action leaves state and time as they are; without a grounding (no valid
  // action at all) time still passes.
  const int status =
      ignored ? 0
              : robotouille::step(*in.task, buffers_.words + b * buffers_.words_stride,
                                  buffers_.counters + b * buffers_.counters_stride,
                                  grounding >= 0 ? &grounding : nullptr, grounding >= 0 ? 1 : 0,
                                  nullptr);
  const bool goal = (status & kStatusGoal) != 0;
  const bool limit = in.max_steps > 0 && buffers_.steps[b] >= in.max_steps;
  buffers_.invalid[b] = ignored ? 1 : 0;
  buffers_.terminated[b] = goal ? 1 : 0;
  buffers_.truncated[b] = !goal && (limit || (status & kStatusPoolExhausted)) ? 1 : 0;
  buffers_.reward[b] = goal ? config_.goal_reward : 0.0;
  pending_[static_cast<size_t>(b)] = buffers_.terminated[b] | buffers_.truncated[b];
  if (!ignored) write_outputs(b);
}

void VectorEnv::reset(const uint64_t* seeds) {
  const int64_t B = buffers_.num_envs;
  const auto n = static_cast<int64_t>(instances_.size());
  for (int64_t b = 0; b < B; ++b) {
    require(buffers_.home[b] >= -1 && buffers_.home[b] < n,
            "home[" + std::to_string(b) + "] is not an instance index or -1");
  }
  if (seeds != nullptr) {
    for (int64_t b = 0; b < B; ++b) rng_[static_cast<size_t>(b)] = seeds[b];
  }
  pool_.run(B, [this](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) reset_env(b);
  });
}

void VectorEnv::step(const int32_t* actions) {
  const int64_t B = buffers_.num_envs;
  const int32_t A = config_.num_action_columns;
  // Validity is a bit test in the cache of the current states, so checking every row before
  // changing any is cheap; an error then leaves the whole batch untouched.
  auto grounding_of = [&](int64_t b) -> int32_t {
    const int32_t a = actions[b];
    if (a < 0 || a >= A) return -1;
    const VecInstance& in = instances_[static_cast<size_t>(buffers_.instance[b])];
    const int32_t g = in.column_grounding[static_cast<size_t>(a)];
    return g >= 0 && test_bit(valid_row(b), g) ? g : -1;
  };
  if (config_.invalid_action == InvalidAction::kRaise) {
    for (int64_t b = 0; b < B; ++b) {
      if (pending_[static_cast<size_t>(b)] || grounding_of(b) >= 0) continue;
      const int32_t a = actions[b];
      std::string why;
      if (a < 0 || a >= A) {
        why = "is out of range [0, " + std::to_string(A) + ")";
      } else {
        const VecInstance& in = instances_[static_cast<size_t>(buffers_.instance[b])];
        const int32_t g = in.column_grounding[static_cast<size_t>(a)];
        why = g < 0 ? "names no action of the instance this environment runs"
                    : "('" + action_text(*in.task, g) + "') is not valid in its current state";
      }
      throw std::invalid_argument("environment " + std::to_string(b) + ": action " +
                                  std::to_string(a) + " " + why +
                                  " (see the action mask); no environment was stepped");
    }
  }
  pool_.run(B, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      if (pending_[static_cast<size_t>(b)]) {
        reset_env(b);
        continue;
      }
      const int32_t g = grounding_of(b);
      step_env(b, g, /*ignored=*/g < 0);  // g < 0 only with kIgnore (kRaise checked above)
    }
  });
}

void VectorEnv::step_random() {
  pool_.run(buffers_.num_envs, [this](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      if (pending_[static_cast<size_t>(b)]) {
        reset_env(b);
        continue;
      }
      const Task& t = *instances_[static_cast<size_t>(buffers_.instance[b])].task;
      const int32_t g = random_set_bit(valid_row(b), t.mask_words, rng_[static_cast<size_t>(b)]);
      step_env(b, g, /*ignored=*/false);
    }
  });
}

}  // namespace robotouille

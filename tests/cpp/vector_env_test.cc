// ThreadPool (every row exactly once, errors rethrown) and VectorEnv (goal, autoreset,
// truncation, invalid actions, thread-count independence) on a hand-built line-walk task.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fixtures.h"
#include "robotouille/thread_pool.h"
#include "robotouille/vector_env.h"

namespace robotouille::testing {
namespace {

TEST(ThreadPoolTest, VisitsEveryRowExactlyOnce) {
  for (int32_t threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads, /*min_rows_per_thread=*/4);
    for (int64_t n : {0, 1, 3, 4, 7, 8, 9, 100, 1001}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
      pool.run(n, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) seen[static_cast<size_t>(i)]++;
      });
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(seen[static_cast<size_t>(i)].load(), 1) << threads << " threads, n=" << n;
      }
    }
  }
}

TEST(ThreadPoolTest, RethrowsAWorkersExceptionAndStaysUsable) {
  ThreadPool pool(3, 1);
  EXPECT_THROW(pool.run(30,
                        [](int64_t begin, int64_t) {
                          if (begin > 0) throw std::runtime_error("worker failed");
                        }),
               std::runtime_error);
  std::atomic<int64_t> total{0};
  pool.run(30, [&](int64_t begin, int64_t end) { total += end - begin; });
  EXPECT_EQ(total.load(), 30);
}

// A token on cells 0..3 (facts 0..3; goal: cell 3). Groundings 0, 2, 4 move right from cell
// 0, 1, 2; 1, 3, 5 move left; 6 waits (always valid).
Task line_task() {
  FixtureBuilder b(4);
  b.add_objects(4, "cell");
  for (int32_t i = 0; i < 3; ++i) {
    b.add_grounding({{i}, {}, {{i, false}, {i + 1, true}}});
    b.add_grounding({{i + 1}, {}, {{i + 1, false}, {i, true}}});
  }
  b.add_grounding({});
  b.goal_atoms = {GoalAtomDef{0, {obj(3, 0, 1)}}};
  return b.task();
}

struct Batch {
  Batch(const Task& task, int64_t envs, int32_t threads, int32_t max_steps,
        InvalidAction invalid = InvalidAction::kRaise)
      : words(static_cast<size_t>(envs)),
        counters(static_cast<size_t>(envs * task.num_counters)),
        obs(static_cast<size_t>(envs * 5)),
        mask(static_cast<size_t>(envs * 7)),
        reward(static_cast<size_t>(envs)),
        terminated(static_cast<size_t>(envs)),
        truncated(static_cast<size_t>(envs)),
        invalid_flags(static_cast<size_t>(envs)),
        instance(static_cast<size_t>(envs)),
        home(static_cast<size_t>(envs), -1),
        steps(static_cast<size_t>(envs)) {
    VecInstance in;
    in.task = &task;
    in.initial_words = {1};  // token on cell 0
    in.initial_counters.assign(static_cast<size_t>(task.num_counters), 0);
    in.fact_column = {0, 1, 2, 3};
    in.column_grounding = {0, 1, 2, 3, 4, 5, 6};
    in.task_column = 4;
    in.max_steps = max_steps;
    VecConfig config;
    config.num_obs_columns = 5;
    config.num_action_columns = 7;
    config.invalid_action = invalid;
    config.threads = threads;
    VecBuffers b;
    b.num_envs = envs;
    b.words = words.data();
    b.words_stride = 1;
    b.counters = counters.data();
    b.counters_stride = task.num_counters;
    b.observation = obs.data();
    b.action_mask = mask.data();
    b.reward = reward.data();
    b.terminated = terminated.data();
    b.truncated = truncated.data();
    b.invalid = invalid_flags.data();
    b.instance = instance.data();
    b.home = home.data();
    b.steps = steps.data();
    env = std::make_unique<VectorEnv>(std::vector<VecInstance>{in}, config, b);
  }

  std::vector<uint64_t> words;
  std::vector<int32_t> counters;
  std::vector<uint8_t> obs, mask;
  std::vector<double> reward;
  std::vector<uint8_t> terminated, truncated, invalid_flags;
  std::vector<int32_t> instance, home, steps;
  std::unique_ptr<VectorEnv> env;
};

TEST(VectorEnvTest, ReachesTheGoalThenResetsOnTheNextStep) {
  const Task task = line_task();
  Batch batch(task, 2, 1, 0);
  batch.env->reset(nullptr);
  EXPECT_EQ(batch.obs, (std::vector<uint8_t>{1, 0, 0, 0, 1, 1, 0, 0, 0, 1}));
  EXPECT_EQ(batch.mask[0], 1);  // move right from cell 0
  EXPECT_EQ(batch.mask[6], 1);  // wait
  EXPECT_EQ(batch.mask[1], 0);
  for (int32_t right : {0, 2, 4}) {
    const std::vector<int32_t> actions = {right, 6};
    batch.env->step(actions.data());
  }
  EXPECT_EQ(batch.terminated[0], 1);
  EXPECT_EQ(batch.reward[0], 1.0);
  EXPECT_EQ(batch.terminated[1], 0);
  EXPECT_EQ(batch.obs[3], 1);
  // Env 0's next action is ignored (even an invalid one): it is reset.
  const std::vector<int32_t> actions = {5, 6};
  batch.env->step(actions.data());
  EXPECT_EQ(batch.terminated[0], 0);
  EXPECT_EQ(batch.reward[0], 0.0);
  EXPECT_EQ(batch.steps[0], 0);
  EXPECT_EQ(batch.obs[0], 1);
  EXPECT_EQ(batch.steps[1], 4);
}

TEST(VectorEnvTest, InvalidActionRaisesAndChangesNothing) {
  const Task task = line_task();
  Batch batch(task, 3, 2, 0);
  batch.env->reset(nullptr);
  const std::vector<uint8_t> before = batch.obs;
  const std::vector<int32_t> actions = {0, 1, 6};  // 1: move left from cell 1, not valid
  EXPECT_THROW(batch.env->step(actions.data()), std::invalid_argument);
  EXPECT_EQ(batch.obs, before);
  EXPECT_EQ(batch.steps, (std::vector<int32_t>{0, 0, 0}));
}

TEST(VectorEnvTest, IgnoredInvalidActionsCountTowardTruncation) {
  const Task task = line_task();
  Batch batch(task, 1, 1, 2, InvalidAction::kIgnore);
  batch.env->reset(nullptr);
  const std::vector<int32_t> invalid = {1};
  batch.env->step(invalid.data());
  EXPECT_EQ(batch.invalid_flags[0], 1);
  EXPECT_EQ(batch.truncated[0], 0);
  batch.env->step(invalid.data());
  EXPECT_EQ(batch.truncated[0], 1);
  EXPECT_EQ(batch.obs[0], 1);  // still on cell 0
}

TEST(VectorEnvTest, RandomStepsDoNotDependOnTheThreadCount) {
  const Task task = line_task();
  Batch one(task, 1000, 1, 7);
  Batch three(task, 1000, 3, 7);
  std::vector<uint64_t> seeds(1000);
  for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = i * 7919;
  one.env->reset(seeds.data());
  three.env->reset(seeds.data());
  int64_t goals = 0;
  for (int k = 0; k < 50; ++k) {
    one.env->step_random();
    three.env->step_random();
    ASSERT_EQ(one.obs, three.obs);
    ASSERT_EQ(one.terminated, three.terminated);
    ASSERT_EQ(one.truncated, three.truncated);
    for (uint8_t t : one.terminated) goals += t;
  }
  EXPECT_GT(goals, 0);
}

TEST(VectorEnvTest, RejectsAnIncompleteLayout) {
  const Task task = line_task();
  VecInstance in;
  in.task = &task;
  in.initial_words = {1};
  in.initial_counters.assign(static_cast<size_t>(task.num_counters), 0);
  in.fact_column = {0, 1, 2, 3};
  in.column_grounding = {0, 1, 2, 3, 4, 5, -1};  // grounding 6 has no column
  VecConfig config;
  config.num_obs_columns = 4;
  config.num_action_columns = 7;
  VecBuffers b;
  b.num_envs = 1;
  b.words_stride = 1;
  b.counters_stride = task.num_counters;
  EXPECT_THROW(VectorEnv({in}, config, b), std::invalid_argument);
}

}  // namespace
}  // namespace robotouille::testing

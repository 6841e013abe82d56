// Kernels over plain facts: bit operations, applicability (is_valid / valid_mask /
// valid_groundings against brute force), immediate effects, step() and random_rollout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "fixtures.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Bit operations.

TEST(BitOpsTest, SetAndTestAcrossWordBoundaries) {
  std::vector<uint64_t> words(3, 0);
  for (int32_t f : {0, 63, 64, 127}) set_bit(words.data(), f, true);
  EXPECT_EQ(words[0], (uint64_t{1} << 63) | 1u);
  EXPECT_EQ(words[1], (uint64_t{1} << 63) | 1u);
  EXPECT_EQ(words[2], 0u);
  for (int32_t f = 0; f < 192; ++f) {
    const bool expected = f == 0 || f == 63 || f == 64 || f == 127;
    EXPECT_EQ(test_bit(words.data(), f), expected) << "fact " << f;
  }
  // Setting a set bit again changes nothing; clearing touches only that bit.
  set_bit(words.data(), 63, true);
  EXPECT_EQ(words[0], (uint64_t{1} << 63) | 1u);
  set_bit(words.data(), 63, false);
  set_bit(words.data(), 64, false);
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], uint64_t{1} << 63);
  EXPECT_TRUE(test_bit(words.data(), 0));
  EXPECT_FALSE(test_bit(words.data(), 63));
  EXPECT_FALSE(test_bit(words.data(), 64));
  EXPECT_TRUE(test_bit(words.data(), 127));
  // Clearing a clear bit changes nothing.
  set_bit(words.data(), 128, false);
  EXPECT_EQ(words[2], 0u);
  set_bit(words.data(), 191, true);
  EXPECT_EQ(words[2], uint64_t{1} << 63);
}

TEST(BitOpsTest, BitFieldsMatchBitByBitCopiesAtEveryOffsetAndLength) {
  std::vector<uint64_t> source(3);
  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  for (uint64_t& w : source) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    w = rng;
  }
  for (int32_t len = 1; len <= 64; ++len) {
    for (int32_t from = 0; from + len <= 192; from += 7) {
      const uint64_t field = get_bits(source.data(), from, len);
      for (int32_t i = 0; i < len; ++i) {
        ASSERT_EQ((field >> i) & 1u, test_bit(source.data(), from + i) ? 1u : 0u)
            << "from " << from << " len " << len;
      }
      if (len < 64) {
        ASSERT_EQ(field >> len, 0u);
      }
      const int32_t to = (from * 5 + len) % (192 - len + 1);
      std::vector<uint64_t> target(3, 0);
      or_bits(target.data(), to, len, field);
      for (int32_t f = 0; f < 192; ++f) {
        const bool inside = f >= to && f < to + len;
        ASSERT_EQ(test_bit(target.data(), f), inside && test_bit(source.data(), from + f - to))
            << "to " << to << " len " << len << " bit " << f;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Applicability.

TEST(ApplicabilityTest, PositiveAndNegativePreconditions) {
  FixtureBuilder b(130);
  b.add_grounding({{0, 64}, {127}});  // g0: 0 and 64 true, 127 false
  b.add_grounding({{}, {63}});        // g1: 63 false
  b.add_grounding({{128}});           // g2: 128 true
  b.add_grounding({});                // g3: always valid
  const Task task = b.task();
  State st(task);
  EXPECT_FALSE(is_valid(task, st.words.data(), 0));
  EXPECT_TRUE(is_valid(task, st.words.data(), 1));
  EXPECT_FALSE(is_valid(task, st.words.data(), 2));
  EXPECT_TRUE(is_valid(task, st.words.data(), 3));
  std::vector<int32_t> valid;
  valid_groundings(task, st.words.data(), valid);
  EXPECT_EQ(valid, IntVec({1, 3}));

  st.set(0);
  EXPECT_FALSE(is_valid(task, st.words.data(), 0));  // 64 still false
  st.set(64);
  EXPECT_TRUE(is_valid(task, st.words.data(), 0));
  st.set(127);
  EXPECT_FALSE(is_valid(task, st.words.data(), 0));  // negative precondition violated
  st.set(127, false);
  st.set(63);
  st.set(128);
  EXPECT_FALSE(is_valid(task, st.words.data(), 1));
  EXPECT_TRUE(is_valid(task, st.words.data(), 2));
  valid_groundings(task, st.words.data(), valid);
  EXPECT_EQ(valid, IntVec({0, 2, 3}));
  uint64_t mask = ~uint64_t{0};
  valid_mask(task, st.words.data(), &mask);
  EXPECT_EQ(mask, 0b1101u);
}

TEST(ApplicabilityTest, NoGroundings) {
  const Task task = FixtureBuilder(3).task();
  State st(task);
  st.set(1);
  uint64_t mask = 123;
  valid_mask(task, st.words.data(), &mask);
  EXPECT_EQ(mask, 0u);
  std::vector<int32_t> valid = {7};
  valid_groundings(task, st.words.data(), valid);
  EXPECT_TRUE(valid.empty());
}

TEST(ApplicabilityTest, TurnBasedOwnerFilter) {
  FixtureBuilder b(2);
  b.add_objects(3, "robot");
  b.add_grounding({{}, {}, {}, {}, 0});   // g0: robot0's
  b.add_grounding({{}, {}, {}, {}, 1});   // g1: robot1's
  b.add_grounding({{}, {}, {}, {}, -1});  // g2: nobody's
  b.add_grounding({{1}, {}, {}, {}, 0});  // g3: robot0's, needs fact 1
  const Task task = b.task();
  State st(task);
  std::vector<int32_t> valid;
  valid_groundings(task, st.words.data(), valid);
  EXPECT_EQ(valid, IntVec({0, 1, 2}));
  valid_groundings(task, st.words.data(), valid, 0);
  EXPECT_EQ(valid, IntVec({0, 2}));
  valid_groundings(task, st.words.data(), valid, 1);
  EXPECT_EQ(valid, IntVec({1, 2}));
  valid_groundings(task, st.words.data(), valid, 2);  // owns nothing: only shared actions
  EXPECT_EQ(valid, IntVec({2}));
  st.set(1);
  valid_groundings(task, st.words.data(), valid, 0);
  EXPECT_EQ(valid, IntVec({0, 2, 3}));
  valid_groundings(task, st.words.data(), valid, 1);
  EXPECT_EQ(valid, IntVec({1, 2}));
  uint64_t mask = 0;
  valid_mask(task, st.words.data(), &mask, 1);
  EXPECT_EQ(mask, 0b0110u);
}

// A random task whose preconditions draw from a few facts (so groundings share them heavily)
// placed around word boundaries, plus some from the whole range.
FixtureBuilder random_task(std::mt19937& rng, int32_t num_groundings) {
  constexpr int32_t kFacts = 150;
  FixtureBuilder b(kFacts);
  b.add_objects(3, "robot");
  const IntVec hot = {0, 1, 2, 5, 62, 63, 64, 65, 127, 128, 149};
  std::uniform_int_distribution<int32_t> any_fact(0, kFacts - 1);
  std::uniform_int_distribution<int32_t> hot_fact(0, static_cast<int32_t>(hot.size()) - 1);
  std::uniform_int_distribution<int32_t> count(0, 3);
  std::uniform_int_distribution<int32_t> owner(-1, 2);
  std::bernoulli_distribution use_hot(0.7);
  auto draw = [&](IntVec& out, int32_t n, const IntVec& avoid) {
    while (static_cast<int32_t>(out.size()) < n) {
      const int32_t f = use_hot(rng) ? hot[static_cast<size_t>(hot_fact(rng))] : any_fact(rng);
      if (std::find(out.begin(), out.end(), f) == out.end() &&
          std::find(avoid.begin(), avoid.end(), f) == avoid.end()) {
        out.push_back(f);
      }
    }
  };
  for (int32_t g = 0; g < num_groundings; ++g) {
    GroundingDef def;
    draw(def.pos, count(rng), {});
    draw(def.neg, count(rng) % 3, def.pos);
    def.owner = owner(rng);
    b.add_grounding(std::move(def));
  }
  return b;
}

TEST(ApplicabilityTest, IndexMatchesBruteForceOnRandomStates) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    const int32_t G = 1 + trial * 13;  // up to 248 groundings: several mask words
    TaskSpec spec = random_task(rng, G).spec();
    if (trial % 2) {
      // An applicability-index hint (likely-true facts) must not change any result.
      std::bernoulli_distribution likely(0.3);
      spec.fact_hint.resize(static_cast<size_t>(spec.num_facts));
      for (int32_t& h : spec.fact_hint) h = likely(rng) ? 1 : 0;
    }
    const Task task(std::move(spec));
    ASSERT_EQ(task.mask_words, (G + 63) / 64);
    for (int s = 0; s < 60; ++s) {
      State st(task);
      std::bernoulli_distribution density(0.1 + 0.8 * (s % 5) / 4.0);
      for (int32_t f = 0; f < task.num_facts; ++f) st.set(f, density(rng));
      for (int32_t player = -1; player < 3; ++player) {
        std::vector<uint64_t> expected(static_cast<size_t>(task.mask_words), 0);
        IntVec expected_list;
        for (int32_t g = 0; g < G; ++g) {
          // Brute force: every precondition of every grounding.
          bool ok = true;
          for (int32_t k = task.spec.pre_pos_begin[g]; k < task.spec.pre_pos_begin[g + 1]; ++k) {
            ok = ok && st.bit(task.spec.pre_pos[k]);
          }
          for (int32_t k = task.spec.pre_neg_begin[g]; k < task.spec.pre_neg_begin[g + 1]; ++k) {
            ok = ok && !st.bit(task.spec.pre_neg[k]);
          }
          ASSERT_EQ(is_valid(task, st.words.data(), g), ok);
          const int32_t owner = task.spec.owner[g];
          if (ok && (player < 0 || owner < 0 || owner == player)) {
            expected[static_cast<size_t>(g >> 6)] |= uint64_t{1} << (g & 63);
            expected_list.push_back(g);
          }
        }
        std::vector<uint64_t> mask(static_cast<size_t>(task.mask_words), ~uint64_t{0});
        valid_mask(task, st.words.data(), mask.data(), player);
        ASSERT_EQ(mask, expected) << "trial " << trial << " state " << s << " player " << player;
        std::vector<int32_t> list;
        valid_groundings(task, st.words.data(), list, player);
        ASSERT_EQ(list, expected_list);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Immediate effects.

TEST(ApplyGroundingTest, ImmediateEffectsInOrder) {
  FixtureBuilder b(130);
  b.add_grounding({{}, {}, {{5, true}, {5, false}, {6, true}, {7, false}, {8, false}, {8, true},
                            {64, true}, {127, true}, {0, false}}});
  const Task task = b.task();
  State st(task);
  st.set(0);
  st.set(7);
  st.set(9);
  const std::vector<int32_t> counters_before = st.counters;
  EXPECT_EQ(apply_grounding(task, st.words.data(), st.counters.data(), 0), 0);
  for (int32_t f = 0; f < 130; ++f) {
    const bool expected = f == 6 || f == 8 || f == 9 || f == 64 || f == 127;
    EXPECT_EQ(st.bit(f), expected) << "fact " << f;
  }
  EXPECT_EQ(st.counters, counters_before);  // no special effects: counters untouched
}

// ---------------------------------------------------------------------------------------------
// step().

TEST(StepTest, RotatesCurrentPlayerWhileGoalDoesNotHold) {
  FixtureBuilder b(2);
  b.num_players = 3;
  b.set_unreachable_goal();
  const Task task = b.task();
  State st(task);
  for (int32_t expected : {1, 2, 0, 1}) {
    EXPECT_EQ(step_one(task, st, -1), 0);
    EXPECT_EQ(st.counters[0], expected);
  }
}

TEST(StepTest, NoPlayersNoRotation) {
  FixtureBuilder b(1);
  b.set_unreachable_goal();
  const Task task = b.task();
  State st(task);
  EXPECT_EQ(step(task, st.words.data(), st.counters.data(), nullptr, 0, nullptr), 0);
  EXPECT_EQ(st.counters[0], 0);
}

TEST(StepTest, GoalReachedStopsRotation) {
  FixtureBuilder b(2);
  b.num_players = 2;
  b.add_objects(1);
  b.goal_atoms = {GoalAtomDef{1, {obj(0, 0, 1)}}};  // fact 1
  b.add_grounding({{}, {}, {{1, true}}});
  b.add_grounding({{}, {}, {{1, false}}});
  const Task task = b.task();
  State st(task);
  EXPECT_EQ(step_one(task, st, -1), 0);
  EXPECT_EQ(st.counters[0], 1);
  EXPECT_EQ(step_one(task, st, 0), kStatusGoal);
  EXPECT_EQ(st.counters[0], 1);
  EXPECT_EQ(step_one(task, st, -1), kStatusGoal);  // still holds
  EXPECT_EQ(st.counters[0], 1);
  EXPECT_EQ(step_one(task, st, 1), 0);
  EXPECT_EQ(st.counters[0], 0);
}

TEST(StepTest, AppliedFlagsForSkippedEntries) {
  FixtureBuilder b(8);
  b.set_unreachable_goal();
  b.add_grounding({{}, {}, {{1, false}}});           // g0: clears 1
  b.add_grounding({{1}, {}, {{2, true}}});           // g1: needs 1, sets 2
  b.add_grounding({{5}, {}, {{3, true}}});           // g2: needs 5 (false)
  b.add_grounding({{}, {4}, {{4, true}, {6, true}}});  // g3: needs 4 false, sets it
  const Task task = b.task();
  State st(task);
  st.set(1);
  const IntVec actions = {-1, 2, 99, -5, 3, 3, 0, 1};
  std::vector<uint8_t> applied(actions.size(), 7);
  EXPECT_EQ(step(task, st.words.data(), st.counters.data(), actions.data(),
                 static_cast<int32_t>(actions.size()), applied.data()),
            0);
  // The second g3 is no longer valid (g3 set 4), nor is g1 after g0 cleared 1.
  EXPECT_EQ(applied, std::vector<uint8_t>({0, 0, 0, 0, 1, 0, 1, 0}));
  EXPECT_FALSE(st.bit(1));
  EXPECT_FALSE(st.bit(2));
  EXPECT_FALSE(st.bit(3));
  EXPECT_TRUE(st.bit(4));
  EXPECT_TRUE(st.bit(6));

  // The other order applies both; applied may be null.
  State st2(task);
  st2.set(1);
  const IntVec order = {1, 0};
  step(task, st2.words.data(), st2.counters.data(), order.data(), 2, nullptr);
  EXPECT_TRUE(st2.bit(2));
  EXPECT_FALSE(st2.bit(1));
}

// ---------------------------------------------------------------------------------------------
// random_rollout.

uint64_t splitmix_next(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A token on a line of 4 cells (facts 0..3, goal: cell 3) moved by groundings 0..5, plus 70
// groundings that do nothing (two mask words), one of which starts a delayed effect.
FixtureBuilder walk_task() {
  FixtureBuilder b(6);
  b.num_players = 2;
  b.add_objects(4, "cell");
  for (int32_t i = 0; i < 3; ++i) {
    b.add_grounding({{i}, {}, {{i, false}, {i + 1, true}}});
    b.add_grounding({{i + 1}, {}, {{i + 1, false}, {i, true}}});
  }
  const int32_t t = b.add_template(NodeDef{EffectType::kDelayed, 2, {{4, true}}});
  for (int32_t k = 0; k < 70; ++k) {
    GroundingDef g;
    if (k == 40) g.sfx = {t};
    if (k % 2) g.neg = {4};
    b.add_grounding(std::move(g));
  }
  b.goal_atoms = {GoalAtomDef{0, {obj(3, 0, 1)}}};  // cell3 -> fact 3
  return b;
}

TEST(RandomRolloutTest, ResetsOnEveryGoal) {
  FixtureBuilder b(2);
  b.num_players = 2;
  b.add_objects(1);
  b.goal_atoms = {GoalAtomDef{0, {obj(0, 0, 1)}}};
  b.add_grounding({{}, {}, {{0, true}, {1, true}}});
  const Task task = b.task();
  State reset(task);
  State st(task);
  EXPECT_EQ(random_rollout(task, st.words.data(), st.counters.data(), 10, 7, reset.words.data(),
                           reset.counters.data()),
            10);
  EXPECT_EQ(st.words, reset.words);
  EXPECT_EQ(st.counters, reset.counters);
}

TEST(RandomRolloutTest, DeterministicForASeedAndMatchesTheDocumentedPolicy) {
  const Task task = walk_task().task();
  ASSERT_EQ(task.mask_words, 2);
  State reset(task);
  reset.set(0);
  const int64_t kSteps = 3000;
  for (uint64_t seed : {0ull, 1ull, 42ull, 0xdeadbeefull}) {
    State a = reset;
    State b = reset;
    const int64_t goals_a = random_rollout(task, a.words.data(), a.counters.data(), kSteps, seed,
                                           reset.words.data(), reset.counters.data());
    const int64_t goals_b = random_rollout(task, b.words.data(), b.counters.data(), kSteps, seed,
                                           reset.words.data(), reset.counters.data());
    EXPECT_EQ(goals_a, goals_b);
    EXPECT_EQ(a.words, b.words);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_GT(goals_a, 0);

    // The same policy by hand: the (z % count)-th valid grounding in canonical order.
    State c = reset;
    uint64_t rng = seed;
    int64_t goals_c = 0;
    std::vector<int32_t> valid;
    for (int64_t i = 0; i < kSteps; ++i) {
      valid_groundings(task, c.words.data(), valid);
      const uint64_t z = splitmix_next(rng);
      const int32_t g = valid.empty() ? -1 : valid[z % valid.size()];
      const int status = step_one(task, c, g);
      if (status & kStatusGoal) {
        ++goals_c;
        c = reset;
      }
    }
    EXPECT_EQ(goals_a, goals_c) << "seed " << seed;
    EXPECT_EQ(a.words, c.words);
    EXPECT_EQ(a.counters, c.counters);
  }
}

TEST(RandomRolloutTest, ResetsWhenACreationPoolRunsOut) {
  // One action, which creates an object from a pool of two; the goal never holds.
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  b.objects = {ObjectDef{"water1", "Meal", 0, 0, 0}, ObjectDef{"water2", "Meal", 0, 1, 1}};
  b.groups = {{0, 1}};
  const int32_t t = b.add_template(NodeDef{EffectType::kCreation, 0, {Lit{2, true, 1}}, {}, {},
                                           -1, 0});
  b.add_trigger(t);
  const Task task = b.task();
  State reset(task);
  // Steps: create water1, create water2, exhausted -> reset, water1, water2, reset, water1.
  // The counters end with the objects' creation ranks (water1 appended first, then water2).
  struct Case {
    int64_t steps;
    IntVec facts, ranks;
  };
  for (const Case& c : std::vector<Case>{{1, {0, 2}, {1, 0}},
                                          {2, {0, 1, 2, 3}, {1, 2}},
                                          {3, {}, {0, 0}},
                                          {7, {0, 2}, {1, 0}}}) {
    const int64_t steps = c.steps;
    const IntVec& facts = c.facts;
    State st(task);
    EXPECT_EQ(random_rollout(task, st.words.data(), st.counters.data(), steps, 3,
                             reset.words.data(), reset.counters.data()),
              0);
    for (int32_t f = 0; f < 4; ++f) {
      EXPECT_EQ(st.bit(f), std::find(facts.begin(), facts.end(), f) != facts.end())
          << steps << " steps, fact " << f;
    }
    const IntVec ranks(st.counters.begin() + task.rank_offset, st.counters.end());
    EXPECT_EQ(ranks, c.ranks) << steps << " steps";
    EXPECT_TRUE(std::equal(st.counters.begin(), st.counters.begin() + task.rank_offset,
                           reset.counters.begin()));
  }
}

TEST(RandomRolloutTest, StepsWithoutValidActions) {
  // No grounding is ever valid; the steps still tick a delayed effect already running.
  FixtureBuilder b(3);
  b.set_unreachable_goal();
  const int32_t t = b.add_template(NodeDef{EffectType::kDelayed, 3, {{1, true}}});
  b.add_grounding({{2}, {}, {}, {t}});
  const Task task = b.task();
  State st(task);
  st.set(2);
  apply_grounding(task, st.words.data(), st.counters.data(), 0);
  st.set(2, false);
  State reset(task);
  EXPECT_EQ(random_rollout(task, st.words.data(), st.counters.data(), 2, 9, reset.words.data(),
                           reset.counters.data()),
            0);
  EXPECT_FALSE(st.bit(1));
  EXPECT_EQ(random_rollout(task, st.words.data(), st.counters.data(), 1, 9, reset.words.data(),
                           reset.counters.data()),
            0);
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(st.list_length(), 0);
}

}  // namespace
}  // namespace robotouille::testing

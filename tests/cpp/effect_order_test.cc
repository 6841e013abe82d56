// EffectOrder (effect_order.h): which special-effect templates commute, the normal form of the
// active list, and that a state and its normal form step alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "fixtures.h"
#include "robotouille/effect_order.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {
namespace {

NodeDef timer(int32_t ticks, int32_t fact) { return {EffectType::kDelayed, ticks, {{fact, true}}}; }

// A conditional over `condition` with a timer writing `fact` below it.
std::vector<NodeDef> paused_timer(int32_t condition, int32_t fact) {
  NodeDef when{EffectType::kConditional, 0, {}, {{condition, true}}, {1}};
  return {when, timer(3, fact)};
}

IntVec listed(const State& st) {
  return IntVec(st.counters.begin() + 2, st.counters.begin() + 2 + st.list_length());
}

TEST(EffectOrderTest, TemplatesOnDisjointFactsCommuteAndAreSorted) {
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  const int32_t t0 = b.add_template(timer(3, 0));
  const int32_t t1 = b.add_template(timer(5, 1));
  const int32_t g0 = b.add_trigger(t0), g1 = b.add_trigger(t1);
  const Task task = b.task();
  const EffectOrder order(task);
  EXPECT_FALSE(order.empty());
  EXPECT_TRUE(order.commute(t0, t1));
  State st(task);
  apply_grounding(task, st.words.data(), st.counters.data(), g1);
  apply_grounding(task, st.words.data(), st.counters.data(), g0);
  EXPECT_EQ(listed(st), (IntVec{t1, t0}));
  EXPECT_TRUE(order.normalize(st.counters.data()));
  EXPECT_EQ(listed(st), (IntVec{t0, t1}));
  EXPECT_FALSE(order.normalize(st.counters.data()));  // a normal form is its own
}

TEST(EffectOrderTest, ATemplateReadingWhatAnotherWritesKeepsItsPlace) {
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  // t1's timer pauses unless fact 0 holds, and t0 writes fact 0.
  const int32_t t0 = b.add_template(timer(2, 0));
  const int32_t t1 = b.add_template(paused_timer(0, 2));
  const int32_t t2 = b.add_template(timer(4, 3));
  const Task task = b.task();
  const EffectOrder order(task);
  EXPECT_FALSE(order.commute(t0, t1));
  EXPECT_FALSE(order.commute(t1, t0));
  EXPECT_TRUE(order.commute(t0, t2));
  EXPECT_TRUE(order.commute(t1, t2));
  State st(task);
  st.counters[1] = 3;
  // (t1, t0, t2): t0 may not pass t1; t2 passes both. Smallest order: t1, t0, t2.
  st.counters[2] = t2, st.counters[3] = t1, st.counters[4] = t0;
  EXPECT_TRUE(order.normalize(st.counters.data()));
  EXPECT_EQ(listed(st), (IntVec{t1, t0, t2}));
}

TEST(EffectOrderTest, ObjectCreationsCommuteWithNothing) {
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  const int32_t t0 = b.add_template(timer(2, 0));
  NodeDef create{EffectType::kCreation};
  create.create_group = 0;
  const int32_t t1 = b.add_template(create);
  const int32_t first = b.add_objects(1, "made");
  b.objects[first].exists_fact = 3;
  b.groups.push_back({first});
  const Task task = b.task();
  const EffectOrder order(task);
  EXPECT_FALSE(order.commute(t0, t1));
  EXPECT_TRUE(order.empty());  // fewer than two templates that could commute
}

TEST(EffectOrderTest, AStateAndItsNormalFormStepAlike) {
  FixtureBuilder b(6);
  b.set_unreachable_goal();
  const int32_t t0 = b.add_template(timer(2, 0));
  const int32_t t1 = b.add_template(paused_timer(4, 1));
  const int32_t t2 = b.add_template(timer(3, 2));
  const int32_t t3 = b.add_template(paused_timer(0, 3));  // reads what t0 writes
  const int32_t toggle = b.add_grounding(GroundingDef{{}, {}, {{4, true}}});
  const IntVec triggers = {b.add_trigger(t3), b.add_trigger(t2), b.add_trigger(t1),
                           b.add_trigger(t0), toggle};
  const Task task = b.task();
  const EffectOrder order(task);
  State real(task), normal(task);
  for (size_t i = 0; i < triggers.size(); ++i) {
    step(task, real.words.data(), real.counters.data(), &triggers[i], 1, nullptr);
    normal = real;
    order.normalize(normal.counters.data());
    // Stepping both with no action: the same facts and node words, lists equal as sets.
    for (int32_t k = 0; k < 6; ++k) {
      State next_real = real, next_normal = normal;
      const int32_t none = -1;
      step(task, next_real.words.data(), next_real.counters.data(), &none, 1, nullptr);
      step(task, next_normal.words.data(), next_normal.counters.data(), &none, 1, nullptr);
      EXPECT_EQ(next_real.words, next_normal.words);
      const auto nodes = static_cast<size_t>(task.node_offset);
      EXPECT_TRUE(std::equal(next_real.counters.begin() + nodes, next_real.counters.end(),
                             next_normal.counters.begin() + nodes));
      IntVec a = listed(next_real), c = listed(next_normal);
      order.normalize(next_real.counters.data());
      order.normalize(next_normal.counters.data());
      EXPECT_EQ(listed(next_real), listed(next_normal));
      EXPECT_EQ(a.size(), c.size());
      real = next_real;
      normal = next_normal;
    }
  }
}

// Random tasks over five facts, so that templates often write and read the same facts (where
// the order matters): random delayed, repetitive and conditional trees, a trigger per template
// and a grounding per fact that flips it. Along random walks, a copy normalized after every
// step must keep the same facts, node words and active templates as the real state.
TEST(EffectOrderTest, RandomTasksStepAlikeFromANormalForm) {
  std::mt19937 rng(20261127);
  auto pick = [&](int32_t n) { return static_cast<int32_t>(rng() % static_cast<uint32_t>(n)); };
  auto literal = [&]() { return Lit{pick(5), pick(2) == 1}; };
  int64_t reordered = 0;
  for (int32_t trial = 0; trial < 400; ++trial) {
    FixtureBuilder b(5);
    b.set_unreachable_goal();
    IntVec groundings;
    for (int32_t k = 0; k < 6; ++k) {
      const int32_t kind = pick(3);
      NodeDef leaf = kind == 1 ? NodeDef{EffectType::kRepetitive, 2, {literal()}}
                               : timer(1 + pick(3), 0);
      if (kind != 1) leaf.fx = {literal(), literal()};
      const int32_t t = kind == 2 ? b.add_template(std::vector<NodeDef>{
                                        NodeDef{EffectType::kConditional, 0, {literal()},
                                                {literal()}, {1}},
                                        leaf})
                                  : b.add_template(leaf);
      groundings.push_back(b.add_trigger(t));
    }
    for (int32_t f = 0; f < 5; ++f) {
      groundings.push_back(b.add_grounding(GroundingDef{{f}, {}, {{f, false}}}));
      groundings.push_back(b.add_grounding(GroundingDef{{}, {f}, {{f, true}}}));
    }
    const Task task = b.task();
    const EffectOrder order(task);
    State real(task), normal(task);
    for (int32_t i = 0; i < 40; ++i) {
      const int32_t g = groundings[pick(static_cast<int32_t>(groundings.size()))];
      uint8_t applied_real = 0, applied_normal = 0;
      step(task, real.words.data(), real.counters.data(), &g, 1, &applied_real);
      step(task, normal.words.data(), normal.counters.data(), &g, 1, &applied_normal);
      ASSERT_EQ(applied_real, applied_normal);
      ASSERT_EQ(real.words, normal.words) << "trial " << trial << " step " << i;
      const auto nodes = static_cast<size_t>(task.node_offset);
      ASSERT_TRUE(std::equal(real.counters.begin() + nodes, real.counters.end(),
                             normal.counters.begin() + nodes));
      IntVec a = listed(real), c = listed(normal);
      std::sort(a.begin(), a.end());
      std::sort(c.begin(), c.end());
      ASSERT_EQ(a, c);
      reordered += order.normalize(normal.counters.data()) ? 1 : 0;
    }
  }
  EXPECT_GT(reordered, 100);  // the walks do reach lists out of their normal form
}

}  // namespace
}  // namespace robotouille::testing

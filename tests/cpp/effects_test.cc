// Special effects: delayed, repetitive, conditional, creation and deletion nodes, template
// identity (dedupe), the active list (order, compaction, counters) and decision D1.
#include <gtest/gtest.h>

#include <vector>

#include "fixtures.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {
namespace {

int apply(const Task& task, State& st, int32_t g) {
  return apply_grounding(task, st.words.data(), st.counters.data(), g);
}

int end(const Task& task, State& st) { return end_step(task, st.words.data(), st.counters.data()); }

int step_many(const Task& task, State& st, const IntVec& groundings) {
  return step(task, st.words.data(), st.counters.data(), groundings.data(),
              static_cast<int32_t>(groundings.size()), nullptr);
}

bool all_zero_after(const State& st, size_t from) {
  for (size_t i = from; i < st.counters.size(); ++i) {
    if (st.counters[i] != 0) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Delayed and repetitive.

TEST(DelayedTest, FiresOnTheFourthEndStepAfterTheAction) {
  FixtureBuilder b(3);
  b.set_unreachable_goal();
  const int32_t t = b.add_template(NodeDef{EffectType::kDelayed, 4, {{1, true}, {2, false}}});
  const int32_t g = b.add_trigger(t);
  const Task task = b.task();
  State st(task);
  st.set(2);
  EXPECT_EQ(apply(task, st, g), 0);
  // The action itself does not count: progress 0, the template is listed and its root active.
  EXPECT_EQ(st.counters[1], 1);
  EXPECT_EQ(st.counters[2], t);
  EXPECT_EQ(node_word(task, st, 0), kActive);
  for (int32_t tick = 1; tick <= 3; ++tick) {
    EXPECT_EQ(end(task, st), 0);
    EXPECT_EQ(node_word(task, st, 0), kActive | tick);
    EXPECT_FALSE(st.bit(1));
    EXPECT_TRUE(st.bit(2));
  }
  EXPECT_EQ(end(task, st), 0);
  EXPECT_TRUE(st.bit(1));
  EXPECT_FALSE(st.bit(2));
  // Completed and removed: the counters are back to all zero.
  EXPECT_EQ(st.counters[1], 0);
  EXPECT_TRUE(all_zero_after(st, 1));
}

TEST(DelayedTest, ThroughStepTheActionStepCountsAsTheFirstTick) {
  FixtureBuilder b(2);
  b.set_unreachable_goal();
  const int32_t g = b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, 4, {{1, true}}}));
  const Task task = b.task();
  State st(task);
  step_one(task, st, g);  // tick 1
  step_one(task, st, -1);
  step_one(task, st, -1);
  EXPECT_FALSE(st.bit(1));
  step_one(task, st, -1);  // tick 4
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(st.list_length(), 0);
}

TEST(RepetitiveTest, FiresOnTheThirdApplicationAndReusesItsTemplate) {
  FixtureBuilder b(2);
  b.set_unreachable_goal();
  const int32_t t = b.add_template(NodeDef{EffectType::kRepetitive, 3, {{1, true}}});
  const int32_t g = b.add_trigger(t);
  const Task task = b.task();
  State st(task);
  apply(task, st, g);
  EXPECT_EQ(node_word(task, st, 0), kActive | 1);
  end(task, st);  // passive updates do not count
  end(task, st);
  EXPECT_EQ(node_word(task, st, 0), kActive | 1);
  EXPECT_EQ(st.list_length(), 1);
  apply(task, st, g);  // same identity: the same template, progress continues
  EXPECT_EQ(node_word(task, st, 0), kActive | 2);
  EXPECT_EQ(st.list_length(), 1);
  EXPECT_FALSE(st.bit(1));
  apply(task, st, g);
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(node_word(task, st, 0), kActive | kCompleted | 3);
  EXPECT_EQ(st.list_length(), 1);  // removed only by the end-of-step pass
  apply(task, st, g);              // a completed instance still in the list absorbs the action
  EXPECT_EQ(node_word(task, st, 0), kActive | kCompleted | 3);
  end(task, st);
  EXPECT_EQ(st.list_length(), 0);
  EXPECT_TRUE(all_zero_after(st, 1));
  apply(task, st, g);  // a fresh instance
  EXPECT_EQ(node_word(task, st, 0), kActive | 1);
}

TEST(RepetitiveTest, NestedEffectsGetAnActiveUpdateWhenItFires) {
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  const int32_t t = b.add_template(std::vector<NodeDef>{
      NodeDef{EffectType::kRepetitive, 2, {{1, true}}, {}, {1, 2}},
      NodeDef{EffectType::kRepetitive, 1, {{2, true}}},  // fires on its first (active) update
      NodeDef{EffectType::kDelayed, 1, {{3, true}}},     // ignores active updates
  });
  const int32_t g = b.add_trigger(t);
  const Task task = b.task();
  State st(task);
  apply(task, st, g);
  EXPECT_EQ(node_word(task, st, 1), 0);
  apply(task, st, g);
  EXPECT_TRUE(st.bit(1));
  EXPECT_TRUE(st.bit(2));
  EXPECT_FALSE(st.bit(3));
  EXPECT_EQ(node_word(task, st, 1), kCompleted | 1);
  EXPECT_EQ(node_word(task, st, 2), 0);
}

TEST(DelayedTest, ReapplyingContinuesTheSameTimer) {
  FixtureBuilder b(2);
  b.set_unreachable_goal();
  const int32_t g = b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, 4, {{1, true}}}));
  const Task task = b.task();
  State st(task);
  step_one(task, st, g);  // tick 1
  step_one(task, st, g);  // tick 2: same template, not restarted
  step_many(task, st, {g, g});
  EXPECT_EQ(st.list_length(), 1);
  EXPECT_EQ(node_word(task, st, 0), kActive | 3);
  step_one(task, st, g);
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(st.list_length(), 0);
}

// ---------------------------------------------------------------------------------------------
// Conditional.

// Facts: 0 "on the stove", 3 the conditional's effect, 4 the nested delayed effect.
struct CookFixture {
  CookFixture() : b(5) {
    b.set_unreachable_goal();
    t = b.add_template(std::vector<NodeDef>{
        NodeDef{EffectType::kConditional, 0, {{3, true}}, {{0, true}}, {1}},
        NodeDef{EffectType::kDelayed, 2, {{4, true}}},
    });
    cook = b.add_grounding({{}, {}, {{0, true}}, {t}});
    off = b.add_grounding({{}, {}, {{0, false}}});
    on = b.add_grounding({{}, {}, {{0, true}}});
    trigger = b.add_trigger(t);
  }
  FixtureBuilder b;
  int32_t t = 0, cook = 0, off = 0, on = 0, trigger = 0;
};

TEST(ConditionalTest, FailingConditionNegatesEffectsAndPausesNestedTimer) {
  CookFixture f;
  const Task task = f.b.task();
  State st(task);
  step_one(task, st, f.cook);
  EXPECT_TRUE(st.bit(3));
  EXPECT_EQ(node_word(task, st, 0), kActive);  // not completed: the child is pending
  EXPECT_EQ(node_word(task, st, 1), 1);        // the child ignored the action, ticked once
  step_one(task, st, f.off);
  EXPECT_FALSE(st.bit(3));  // negated effect
  EXPECT_EQ(node_word(task, st, 1), 1);
  step_one(task, st, -1);
  EXPECT_FALSE(st.bit(3));
  EXPECT_EQ(node_word(task, st, 1), 1);  // paused
  EXPECT_FALSE(st.bit(4));
  EXPECT_EQ(st.list_length(), 1);
  step_one(task, st, f.on);
  EXPECT_TRUE(st.bit(3));
  EXPECT_TRUE(st.bit(4));  // tick 2 of 2
  EXPECT_EQ(st.list_length(), 0);
  EXPECT_TRUE(all_zero_after(st, 1));
}

TEST(ConditionalTest, FailingAtActionTime) {
  CookFixture f;
  const Task task = f.b.task();
  State st(task);
  st.set(3);
  EXPECT_EQ(apply(task, st, f.trigger), 0);
  EXPECT_FALSE(st.bit(3));
  EXPECT_EQ(st.list_length(), 1);
  EXPECT_EQ(node_word(task, st, 0), kActive);
  EXPECT_EQ(node_word(task, st, 1), 0);
}

TEST(ConditionalTest, NegativeConditionAndNoChildrenCompletesAtOnce) {
  FixtureBuilder b(7);
  b.set_unreachable_goal();
  const int32_t t = b.add_template(
      NodeDef{EffectType::kConditional, 0, {{6, true}, {2, false}}, {{5, false}, {1, true}}});
  const int32_t g = b.add_trigger(t);
  const Task task = b.task();
  State st(task);
  st.set(1);
  st.set(2);
  st.set(5);
  apply(task, st, g);  // 5 is true: fails, writes the negation (6 false, 2 true)
  EXPECT_FALSE(st.bit(6));
  EXPECT_TRUE(st.bit(2));
  EXPECT_EQ(node_word(task, st, 0), kActive);
  st.set(5, false);
  end(task, st);  // holds: effects, completed (no children), removed
  EXPECT_TRUE(st.bit(6));
  EXPECT_FALSE(st.bit(2));
  EXPECT_EQ(st.list_length(), 0);
  st.set(1, false);
  st.set(2);
  apply(task, st, g);  // the second condition (1 true) fails
  EXPECT_FALSE(st.bit(6));
  EXPECT_TRUE(st.bit(2));
}

// ---------------------------------------------------------------------------------------------
// Creation and deletion.

// Objects: 0 stove0, 1 stove1 (stations), 2..4 water1..water3 (meals, a creation pool).
// Facts: at(water, station) = 0 + 2 * typepos(water) + typepos(station) (0..5), 6 spare,
// 20..22 exists(water1..water3).
FixtureBuilder water_fixture() {
  FixtureBuilder b(23);
  b.set_unreachable_goal();
  b.objects = {
      ObjectDef{"stove0", "Station", 0, 0},       ObjectDef{"stove1", "Station", 0, 1},
      ObjectDef{"water1", "Meal", 1, 0, 20},      ObjectDef{"water2", "Meal", 1, 1, 21},
      ObjectDef{"water3", "Meal", 1, 2, 22},
  };
  b.groups = {{2, 3, 4}};
  // Creates water at stove1: lit_fact = 0 + 1 * typepos(stove1), created stride 2.
  b.add_trigger(b.add_template(
      NodeDef{EffectType::kCreation, 0, {Lit{1, true, 2}, {6, true}}, {}, {}, -1, 0}));
  return b;
}

TEST(CreationTest, CreatesPoolObjectsInOrderUntilExhausted) {
  const Task task = water_fixture().task();
  State st(task);
  const IntVec exists = {20, 21, 22};
  const IntVec at_stove1 = {1, 3, 5};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(step_one(task, st, 0), 0);
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(st.bit(exists[j]), j <= k) << "after creation " << k;
      EXPECT_EQ(st.bit(at_stove1[j]), j <= k) << "after creation " << k;
    }
    EXPECT_TRUE(st.bit(6));
    EXPECT_FALSE(st.bit(0) || st.bit(2) || st.bit(4));
    EXPECT_EQ(st.list_length(), 0);
  }
  EXPECT_EQ(apply(task, st, 0), kStatusPoolExhausted);
  State st2(task);
  for (int k = 0; k < 3; ++k) step_one(task, st2, 0);
  EXPECT_EQ(step_one(task, st2, 0) & kStatusPoolExhausted, kStatusPoolExhausted);
}

TEST(CreationTest, NextObjectFollowsTheHighestExistingSuffix) {
  const Task task = water_fixture().task();
  State st(task);
  st.set(21);  // only water2 exists: the next is water3, not water1
  EXPECT_EQ(step_one(task, st, 0), 0);
  EXPECT_TRUE(st.bit(22));
  EXPECT_TRUE(st.bit(5));
  EXPECT_FALSE(st.bit(20));
  EXPECT_FALSE(st.bit(1));
  EXPECT_EQ(step_one(task, st, 0), kStatusPoolExhausted);
}

TEST(CreationTest, AlwaysExistingSlotsCountAsExisting) {
  FixtureBuilder b = water_fixture();
  b.objects[2].exists_fact = -1;  // water1 is an initial object that cannot vanish
  const Task task = b.task();
  State st(task);
  step_one(task, st, 0);
  EXPECT_TRUE(st.bit(21));
  EXPECT_TRUE(st.bit(3));
  EXPECT_FALSE(st.bit(1));
}

TEST(EffectLiteralTest, LiteralsOfMissingObjectsAreNotWritten) {
  FixtureBuilder b = water_fixture();
  // at(water2, stove0) (fact 2), guarded by exists(water2).
  const int32_t g = b.add_trigger(
      b.add_template(NodeDef{EffectType::kDelayed, 1, {Lit{2, true, 0, {21}}, {6, true}}}));
  const Task task = b.task();
  State st(task);
  step_one(task, st, g);
  EXPECT_FALSE(st.bit(2));
  EXPECT_TRUE(st.bit(6));
  st.set(21);
  step_one(task, st, g);
  EXPECT_TRUE(st.bit(2));
}

TEST(DeletionTest, ClearsTheObjectsFactsThenAppliesEffects) {
  // Objects: 0 table (always exists), 1 bread1 (exists fact 5).
  // Facts: 0 istable(table), 1 at(bread1,table), 2 cooked(bread1), 3 unrelated, 4 effect.
  FixtureBuilder b(6);
  b.set_unreachable_goal();
  b.objects = {ObjectDef{"table", "Station", 0, 0},
               ObjectDef{"bread1", "Item", 1, 0, 5, {1, 2, 5}}};
  const int32_t t = b.add_template(
      NodeDef{EffectType::kDeletion, 0, {{4, true}, Lit{2, true, 0, {5}}}, {}, {}, 1});
  const int32_t del = b.add_trigger(t);
  const int32_t use = b.add_grounding({{5, 1}});  // needs bread1 to exist
  const Task task = b.task();
  State st(task);
  for (int32_t f : {0, 1, 2, 3, 5}) st.set(f);
  EXPECT_TRUE(is_valid(task, st.words.data(), use));
  EXPECT_EQ(apply(task, st, del), 0);
  EXPECT_TRUE(st.bit(0));
  EXPECT_FALSE(st.bit(1));
  EXPECT_FALSE(st.bit(2));  // the guarded effect on the deleted object is not written
  EXPECT_TRUE(st.bit(3));
  EXPECT_TRUE(st.bit(4));
  EXPECT_FALSE(st.bit(5));
  EXPECT_EQ(node_word(task, st, 0), kActive | kCompleted);
  EXPECT_FALSE(is_valid(task, st.words.data(), use));
  end(task, st);
  EXPECT_EQ(st.list_length(), 0);
  EXPECT_TRUE(all_zero_after(st, 1));
}

// ---------------------------------------------------------------------------------------------
// The active list.

TEST(ActiveListTest, CreationOrderCompactionAndZeroedCounters) {
  FixtureBuilder b(4);
  b.set_unreachable_goal();
  for (int32_t goal : {3, 1, 2}) {  // t0..t2 set facts 1..3
    const auto fact = static_cast<int32_t>(b.templates.size()) + 1;
    b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, goal, {{fact, true}}}));
  }
  const Task task = b.task();
  ASSERT_EQ(task.num_counters, 8);
  State st(task);
  apply(task, st, 0);
  apply(task, st, 1);
  apply(task, st, 2);
  EXPECT_EQ(st.counters, IntVec({0, 3, 0, 1, 2, kActive, kActive, kActive}));
  end(task, st);  // t1 fires; t2 shifts down, the freed entry is zeroed
  EXPECT_TRUE(st.bit(2));
  EXPECT_EQ(st.counters, IntVec({0, 2, 0, 2, 0, kActive | 1, 0, kActive | 1}));
  apply(task, st, 1);  // t1 again: appended at the end with fresh counters
  EXPECT_EQ(st.counters, IntVec({0, 3, 0, 2, 1, kActive | 1, kActive, kActive | 1}));
  st.set(2, false);
  end(task, st);  // t2 and t1 fire
  EXPECT_TRUE(st.bit(2));
  EXPECT_TRUE(st.bit(3));
  EXPECT_FALSE(st.bit(1));
  EXPECT_EQ(st.counters, IntVec({0, 1, 0, 0, 0, kActive | 2, 0, 0}));
  end(task, st);
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(st.counters, IntVec(8, 0));
}

TEST(ActiveListTest, D1EveryEffectTicksEveryStepAfterARemoval) {
  // Reference §1.9 example: the second timer must not be skipped when the first is removed.
  FixtureBuilder b(3);
  b.set_unreachable_goal();
  const int32_t g0 = b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, 4, {{1, true}}}));
  const int32_t g1 = b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, 4, {{2, true}}}));
  const Task task = b.task();
  State st(task);
  step_one(task, st, g0);  // step 1: t0 tick 1
  step_one(task, st, -1);  // step 2
  step_one(task, st, g1);  // step 3: t1 tick 1
  EXPECT_EQ(st.counters[2], 0);
  EXPECT_EQ(st.counters[3], 1);
  step_one(task, st, -1);  // step 4: t0 fires and is removed; t1 still ticks
  EXPECT_TRUE(st.bit(1));
  EXPECT_EQ(st.list_length(), 1);
  EXPECT_EQ(st.counters[2], 1);
  EXPECT_EQ(node_word(task, st, 1), kActive | 2);
  step_one(task, st, -1);  // step 5
  EXPECT_FALSE(st.bit(2));
  step_one(task, st, -1);  // step 6 (the skip quirk would fire it at step 7)
  EXPECT_TRUE(st.bit(2));
  EXPECT_EQ(st.list_length(), 0);
}

TEST(ActiveListTest, D1NoSkipAfterAnEffectCompletedByItsAction) {
  FixtureBuilder b(3);
  b.set_unreachable_goal();
  const int32_t g0 =
      b.add_trigger(b.add_template(NodeDef{EffectType::kRepetitive, 2, {{1, true}}}));
  const int32_t g1 = b.add_trigger(b.add_template(NodeDef{EffectType::kDelayed, 2, {{2, true}}}));
  const Task task = b.task();
  State st(task);
  step_many(task, st, {g0, g1});  // list [t0, t1]; t1 tick 1
  EXPECT_EQ(st.counters[1], 2);
  step_one(task, st, g0);  // t0 completes in the action, is removed; t1 tick 2 fires
  EXPECT_TRUE(st.bit(1));
  EXPECT_TRUE(st.bit(2));
  EXPECT_EQ(st.list_length(), 0);
}

}  // namespace
}  // namespace robotouille::testing

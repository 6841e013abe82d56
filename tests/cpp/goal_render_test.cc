// goal_reached (decision D5) and the text renderers: describe, action_text, observation.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fixtures.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Goal.

// Objects: items i0..i2 (type 0, objects 0..2), stations s0, s1 (type 1, objects 3, 4).
// Facts: at(item, station) = 2 * typepos(item) + typepos(station) (0..5); clear(station) = 6 + s.
constexpr int32_t kItem = 0;
constexpr int32_t kStation = 1;
constexpr int32_t kS0 = 3;
constexpr int32_t kS1 = 4;
constexpr int32_t kAtBase = 0;
constexpr int32_t kClearBase = 6;

FixtureBuilder kitchen() {
  FixtureBuilder b(8);
  b.add_objects(3, "i", kItem);
  b.add_objects(2, "s", kStation);
  return b;
}

int32_t at(int32_t item, int32_t station) { return 2 * item + station; }

GoalAtomDef at_atom(GoalArg item, GoalArg station) { return {kAtBase, {item, station}}; }
GoalAtomDef clear_atom(GoalArg station) { return {kClearBase, {station}}; }
GoalArg item_var(int32_t v) { return var(v, kItem, 2); }
GoalArg station_var(int32_t v) { return var(v, kStation, 1); }
GoalArg item_obj(int32_t o) { return obj(o, kItem, 2); }
GoalArg station_obj(int32_t o) { return obj(o, kStation, 1); }

bool reached(const Task& task, const State& st) { return goal_reached(task, st.words.data()); }

TEST(GoalTest, ConstantsOnly) {
  FixtureBuilder b = kitchen();
  b.goal_atoms = {at_atom(item_obj(1), station_obj(kS0)), clear_atom(station_obj(kS1))};
  const Task task = b.task();
  State st(task);
  EXPECT_FALSE(reached(task, st));
  st.set(at(1, 0));
  EXPECT_FALSE(reached(task, st));
  st.set(kClearBase + 1);
  EXPECT_TRUE(reached(task, st));
  st.set(at(1, 0), false);
  st.set(at(0, 0));
  st.set(at(1, 1));
  EXPECT_FALSE(reached(task, st));
}

TEST(GoalTest, VariablesOfOneGroupTakeDistinctObjects) {
  FixtureBuilder b = kitchen();
  b.goal_vars = {{0, {0, 1, 2}}, {0, {0, 1, 2}}};
  b.goal_atoms = {at_atom(item_var(0), station_obj(kS0)), at_atom(item_var(1), station_obj(kS0))};
  const Task same_group = b.task();
  b.goal_vars[1].group = 1;
  const Task other_group = b.task();
  State st(same_group);
  st.set(at(0, 0));
  EXPECT_FALSE(reached(same_group, st));  // both variables would need i0
  EXPECT_TRUE(reached(other_group, st));  // different groups may share an object
  st.set(at(2, 0));
  EXPECT_TRUE(reached(same_group, st));
  st.set(at(0, 0), false);
  EXPECT_FALSE(reached(same_group, st));
}

TEST(GoalTest, UnusedVariablesStillTakeDistinctObjects) {
  FixtureBuilder b = kitchen();
  b.goal_vars = {{0, {0}}, {0, {0}}};  // v1 is in no atom
  b.goal_atoms = {at_atom(item_var(0), station_obj(kS0))};
  const Task blocked = b.task();
  b.goal_vars[1].candidates = {0, 1};
  const Task free = b.task();
  State st(blocked);
  st.set(at(0, 0));
  EXPECT_FALSE(reached(blocked, st));
  EXPECT_TRUE(reached(free, st));
}

TEST(GoalTest, VirtualCandidatesMakeAtomsFalse) {
  FixtureBuilder b = kitchen();
  b.goal_vars = {{0, {5, 6}}};  // names of objects that do not exist (>= num_objects)
  b.goal_atoms = {at_atom(item_var(0), station_obj(kS0))};
  const Task only_virtual = b.task();
  b.goal_vars[0].candidates = {5, 1, 6};
  const Task mixed = b.task();
  b.goal_vars.clear();
  b.goal_atoms = {at_atom(item_obj(7), station_obj(kS0))};
  const Task virtual_constant = b.task();
  State st(mixed);
  for (int32_t f = 0; f < 8; ++f) st.set(f);
  EXPECT_FALSE(reached(only_virtual, st));
  EXPECT_FALSE(reached(virtual_constant, st));
  EXPECT_TRUE(reached(mixed, st));
  st.set(at(1, 0), false);
  EXPECT_FALSE(reached(mixed, st));
}

TEST(GoalTest, TypeMismatchMakesAtomsFalse) {
  FixtureBuilder b = kitchen();
  // s0 has typepos 0, so as an "item" it would map to at(i0, s0) (fact 0) if types were ignored.
  b.goal_vars = {{0, {kS0}}};
  b.goal_atoms = {at_atom(item_var(0), station_obj(kS0))};
  const Task station_as_item = b.task();
  b.goal_vars[0].candidates = {kS0, 0};
  const Task with_item = b.task();
  b.goal_vars.clear();
  b.goal_atoms = {at_atom(item_obj(kS0), station_obj(kS0))};
  const Task constant_mismatch = b.task();
  b.goal_atoms = {at_atom(item_obj(0), obj(1, kStation, 1))};  // i1 as a station
  const Task constant_mismatch2 = b.task();
  State st(with_item);
  st.set(at(0, 0));
  st.set(at(0, 1));
  EXPECT_FALSE(reached(station_as_item, st));
  EXPECT_TRUE(reached(with_item, st));
  EXPECT_FALSE(reached(constant_mismatch, st));
  EXPECT_FALSE(reached(constant_mismatch2, st));
}

TEST(GoalTest, EmptyGoalHolds) {
  const Task task = kitchen().task();
  State st(task);
  EXPECT_TRUE(reached(task, st));
}

// Brute force over every assignment, straight from the definition (reference §5.4).
bool brute_force_goal(const FixtureBuilder& b, const State& st) {
  const auto V = b.goal_vars.size();
  const auto O = static_cast<int32_t>(b.objects.size());
  std::vector<size_t> pick(V, 0);
  for (const GoalVarDef& v : b.goal_vars) {
    if (v.candidates.empty()) return false;
  }
  while (true) {
    IntVec value(V);
    for (size_t i = 0; i < V; ++i) value[i] = b.goal_vars[i].candidates[pick[i]];
    bool ok = true;
    for (size_t i = 0; i < V && ok; ++i) {
      for (size_t j = i + 1; j < V && ok; ++j) {
        ok = !(b.goal_vars[i].group == b.goal_vars[j].group && value[i] == value[j]);
      }
    }
    for (const GoalAtomDef& a : b.goal_atoms) {
      if (!ok) break;
      int32_t fact = a.base;
      for (const GoalArg& arg : a.args) {
        const int32_t o = arg.is_var ? value[static_cast<size_t>(arg.value)] : arg.value;
        if (o >= O || b.objects[static_cast<size_t>(o)].type != arg.type) {
          ok = false;
          break;
        }
        fact += arg.stride * b.objects[static_cast<size_t>(o)].typepos;
      }
      ok = ok && st.bit(fact);
    }
    if (ok) return true;
    size_t i = 0;
    while (i < V && ++pick[i] == b.goal_vars[i].candidates.size()) pick[i++] = 0;
    if (i == V) return false;
  }
}

TEST(GoalTest, MatcherAgreesWithBruteForceForAnyVariableOrder) {
  FixtureBuilder b = kitchen();
  // Two items (group 0) on one station (group 1) that is clear... and a third, unrelated item.
  b.goal_vars = {{0, {0, 1, 2, 5}}, {0, {0, 1, 2}}, {1, {kS0, kS1, 6}}, {2, {0, 1, kS0}}};
  b.goal_atoms = {at_atom(item_var(0), station_var(2)), at_atom(item_var(1), station_var(2)),
                  clear_atom(station_var(2)), at_atom(item_var(3), station_obj(kS1)),
                  clear_atom(station_obj(kS0))};
  std::mt19937 rng(7);
  std::bernoulli_distribution coin(0.45);
  const std::vector<IntVec> orders = {{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}};
  std::vector<Task> tasks;
  for (const IntVec& order : orders) {
    b.goal_order = order;
    tasks.push_back(b.task());
  }
  int holds = 0;
  for (int s = 0; s < 2000; ++s) {
    State st(tasks[0]);
    for (int32_t f = 0; f < 8; ++f) st.set(f, coin(rng));
    const bool expected = brute_force_goal(b, st);
    holds += expected ? 1 : 0;
    for (size_t k = 0; k < tasks.size(); ++k) {
      ASSERT_EQ(reached(tasks[k], st), expected) << "state " << s << " order " << k;
    }
  }
  EXPECT_GT(holds, 10);  // both outcomes are exercised
  EXPECT_LT(holds, 1990);
}

// ---------------------------------------------------------------------------------------------
// Rendering.

// Objects: 0 robot1 (Player), 1 table1 (Station), 2 lettuce1 (Item, may not exist: fact 3).
// Facts: 0 loc(robot1,table1), 1 istable(table1), 2 item_at(lettuce1,table1), 3 exists(lettuce1).
FixtureBuilder render_fixture() {
  FixtureBuilder b(4);
  b.fact_args_width = 2;
  b.fact_args = {0, 1, 1, -1, 2, 1};
  b.text_templates = {
      text({"", " is at ", ""}, {0, 1}),
      text({"", " is occupied by ", ""}, {1, 0}),
      text({"", " is a table"}, {0}),
      text({"", " has ", ""}, {1, 0}),
  };
  b.objects = {
      ObjectDef{"robot1", "Player", 0, 0, -1, {}, {{0, 0}}},
      ObjectDef{"table1", "Station", 1, 0, -1, {}, {{0, 1}, {1, 2}, {2, 3}}},
      ObjectDef{"lettuce1", "Item", 2, 0, 3, {}, {{2, 0}}},
  };
  b.action_templates = {text({"Move ", " to ", ""}, {0, 1}), text({"Do nothing"}, {})};
  b.add_grounding({{}, {}, {}, {}, 0, 0, {0, 1}});
  b.add_grounding({{}, {}, {}, {}, -1, 1, {}});
  b.goal_description = "make a lettuce sandwich";
  return b;
}

TEST(RenderTest, DescribeBlocksLinesAndEmptyBlocks) {
  const Task task = render_fixture().task();
  State st(task);
  for (int32_t f : {1, 2, 3}) st.set(f);
  // robot1 has no true line: its block is the header and a newline.
  EXPECT_EQ(describe(task, st.words.data()),
            "Player robot1:\n"
            "\n\n"
            "Station table1:\ntable1 is a table\ntable1 has lettuce1"
            "\n\n"
            "Item lettuce1:\nlettuce1 is at table1");
  st.set(2, false);
  st.set(0);
  EXPECT_EQ(describe(task, st.words.data()),
            "Player robot1:\nrobot1 is at table1"
            "\n\n"
            "Station table1:\ntable1 is occupied by robot1\ntable1 is a table"
            "\n\n"
            "Item lettuce1:\n");
}

TEST(RenderTest, ObjectsThatDoNotExistAreSkipped) {
  const Task task = render_fixture().task();
  State st(task);
  st.set(0);
  EXPECT_EQ(describe(task, st.words.data()),
            "Player robot1:\nrobot1 is at table1\n\nStation table1:\ntable1 is occupied by robot1");
}

TEST(RenderTest, FirstObjectMissingAndAllBlocksEmpty) {
  // Two objects: water1 may not exist (fact 0), pot1 always does (line: fact 1).
  FixtureBuilder b(2);
  b.fact_args = {-1, 1};
  b.text_templates = {text({"", " is empty"}, {0})};
  b.objects = {ObjectDef{"water1", "Meal", 0, 0, 0}, ObjectDef{"pot1", "Container", 1, 0, -1, {},
                                                                 {{1, 0}}}};
  const Task task = b.task();
  State st(task);
  EXPECT_EQ(describe(task, st.words.data()), "Container pot1:\n");
  st.set(1);
  EXPECT_EQ(describe(task, st.words.data()), "Container pot1:\npot1 is empty");
  st.set(0);
  EXPECT_EQ(describe(task, st.words.data()), "Meal water1:\n\n\nContainer pot1:\npot1 is empty");
  EXPECT_EQ(describe(FixtureBuilder(0).task(), st.words.data()), "");
}

TEST(RenderTest, ActionTextAndObservation) {
  const Task task = render_fixture().task();
  EXPECT_EQ(action_text(task, 0), "Move robot1 to table1");
  EXPECT_EQ(action_text(task, 1), "Do nothing");
  State st(task);
  st.set(0);
  const std::string objects =
      "Player robot1:\nrobot1 is at table1\n\nStation table1:\ntable1 is occupied by robot1";
  EXPECT_EQ(observation(task, st.words.data(), {0, 1}),
            objects +
                "\n\nValid Actions:\nMove robot1 to table1\nDo nothing\n\nGoal: make a lettuce "
                "sandwich");
  EXPECT_EQ(observation(task, st.words.data(), {1}),
            objects + "\n\nValid Actions:\nDo nothing\n\nGoal: make a lettuce sandwich");
  EXPECT_EQ(observation(task, st.words.data(), {}),
            objects + "\n\nValid Actions:\n\n\nGoal: make a lettuce sandwich");
  std::vector<int32_t> valid;
  valid_groundings(task, st.words.data(), valid);
  EXPECT_EQ(observation(task, st.words.data(), valid),
            observation(task, st.words.data(), {0, 1}));
}

}  // namespace
}  // namespace robotouille::testing

// Task construction: derived sizes, the applicability index, and validation of malformed specs
// (every malformed spec must throw std::invalid_argument, never crash).
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.h"
#include "robotouille/kernels.h"
#include "robotouille/task.h"

namespace robotouille::testing {
namespace {

// A small task that fills every table of the spec.
//   objects: 0 table1 (station), 1 bread1 (item, deletable), 2 bread2 (item, creation pool)
//   facts:   0 istable(table1)   1 at(bread1,table1)   2 at(bread2,table1)   3 cooked(bread1)
//            4..9 effect targets  10 exists(bread1)     11 exists(bread2)
FixtureBuilder rich_fixture() {
  FixtureBuilder b(12);
  b.num_players = 1;
  b.fact_args_width = 2;
  b.objects = {
      ObjectDef{"table1", "Station", 0, 0, -1, {}, {{0, 0}}},
      ObjectDef{"bread1", "Item", 1, 0, 10, {1, 3, 10}, {{1, 1}, {3, 2}}},
      ObjectDef{"bread2", "Item", 1, 1, 11, {}, {{2, 1}}},
  };
  b.fact_args = {0, -1, 1, 0, 2, 0, 1, -1};
  b.text_templates = {text({"", " is a table"}, {0}), text({"", " is on ", ""}, {0, 1}),
                      text({"", " is cooked"}, {0})};
  b.action_templates = {text({"Cook ", " on ", ""}, {0, 1}), text({"Do nothing"}, {})};
  const int32_t t0 = b.add_template(std::vector<NodeDef>{
      NodeDef{EffectType::kConditional, 0, {{4, true}}, {{1, true}}, {1}},
      NodeDef{EffectType::kDelayed, 4, {Lit{3, true, 0, {10}}}},
  });
  b.groups = {{1, 2}};
  const int32_t t1 =
      b.add_template(NodeDef{EffectType::kCreation, 0, {Lit{6, true, 1}}, {}, {}, -1, 0});
  const int32_t t2 = b.add_template(NodeDef{EffectType::kDeletion, 0, {{8, false}}, {}, {}, 1});
  const int32_t t3 = b.add_template(NodeDef{EffectType::kRepetitive, 3, {{9, true}}});
  b.add_grounding({{0, 1}, {3}, {{5, true}}, {t0, t3}, 0, 0, {1, 0}});
  b.add_grounding({{}, {}, {}, {t1, t2}, -1, 1, {}});
  b.goal_vars = {{0, {1, 2, 99}}};
  b.goal_atoms = {GoalAtomDef{0, {obj(0, 0, 1)}}, GoalAtomDef{1, {var(0, 1, 1), obj(0, 0, 1)}}};
  b.goal_description = "cook bread";
  return b;
}

TEST(TaskTest, RichFixtureBuildsWithDerivedSizes) {
  const Task task = rich_fixture().task();
  EXPECT_EQ(task.num_facts, 12);
  EXPECT_EQ(task.num_words, 1);
  EXPECT_EQ(task.num_objects, 3);
  EXPECT_EQ(task.num_players, 1);
  EXPECT_EQ(task.num_groundings, 2);
  EXPECT_EQ(task.num_templates, 4);
  EXPECT_EQ(task.num_nodes, 5);
  EXPECT_EQ(task.node_offset, 2 + 4);
  EXPECT_EQ(task.rank_offset, 2 + 4 + 5);
  EXPECT_EQ(task.num_ranked, 2);  // the objects with an exists fact
  EXPECT_EQ(task.num_counters, 2 + 4 + 5 + 2);
  EXPECT_EQ(task.mask_words, 1);
  EXPECT_EQ(task.max_params, 2);
  EXPECT_EQ(task.max_arity, 2);
  // Goal atoms grouped by level: the constant atom at level 0, the variable atom after v0.
  EXPECT_EQ(task.level_atom_begin, IntVec({0, 1, 2}));
  EXPECT_EQ(task.level_atoms, IntVec({0, 1}));
}

TEST(TaskTest, WordAndMaskCountsAcrossBoundaries) {
  for (const auto& [facts, words] : std::vector<std::pair<int32_t, int32_t>>{
           {0, 1}, {1, 1}, {63, 1}, {64, 1}, {65, 2}, {128, 2}, {129, 3}}) {
    FixtureBuilder b(facts);
    EXPECT_EQ(b.task().num_words, words) << facts << " facts";
  }
  FixtureBuilder b(1);
  EXPECT_EQ(b.task().mask_words, 1);  // no groundings still has one mask word
  for (int i = 0; i < 65; ++i) b.add_grounding({});
  EXPECT_EQ(b.task().mask_words, 2);
}

TEST(TaskTest, EmptyTaskIsValid) {
  const Task task = FixtureBuilder(0).task();
  EXPECT_EQ(task.num_groundings, 0);
  EXPECT_EQ(task.num_counters, 2);
  std::vector<uint64_t> words(1);
  EXPECT_TRUE(goal_reached(task, words.data()));  // an empty conjunction holds
}

struct Mutation {
  const char* name;
  void (*apply)(TaskSpec&);
};

void PrintTo(const Mutation& m, std::ostream* os) { *os << m.name; }

class MalformedSpecTest : public ::testing::TestWithParam<Mutation> {};

TEST_P(MalformedSpecTest, ThrowsInvalidArgument) {
  TaskSpec spec = rich_fixture().spec();
  ASSERT_NO_THROW(Task{spec});
  GetParam().apply(spec);
  EXPECT_THROW(Task{spec}, std::invalid_argument);
}

const Mutation kMutations[] = {
    // Sizes and object tables.
    {"NegativeNumFacts", [](TaskSpec& s) { s.num_facts = -1; }},
    {"NegativeNumPlayers", [](TaskSpec& s) { s.num_players = -2; }},
    {"ObjectTypeShort", [](TaskSpec& s) { s.object_type.pop_back(); }},
    {"ObjectNamesLong", [](TaskSpec& s) { s.object_names.push_back("x"); }},
    {"ObjectLabelsShort", [](TaskSpec& s) { s.object_labels.pop_back(); }},
    {"ExistsFactOutOfRange", [](TaskSpec& s) { s.exists_fact[1] = s.num_facts; }},
    {"ExistsFactBelowMinusOne", [](TaskSpec& s) { s.exists_fact[0] = -2; }},
    // Grounding CSR tables.
    {"PrePosBeginShort", [](TaskSpec& s) { s.pre_pos_begin.pop_back(); }},
    {"PrePosBeginLong", [](TaskSpec& s) { s.pre_pos_begin.push_back(2); }},
    {"PrePosBeginNotFromZero", [](TaskSpec& s) { s.pre_pos_begin[0] = 1; }},
    {"PrePosBeginWrongEnd", [](TaskSpec& s) { s.pre_pos_begin.back() = 1; }},
    {"PrePosBeginDecreasing",
     [](TaskSpec& s) {
       s.pre_pos_begin = {0, 2, 1, 2};
       s.pre_neg_begin = {0, 1, 1, 1};
       s.eff_begin = {0, 1, 1, 1};
       s.sfx_begin = {0, 2, 4, 4};
       s.owner = {0, -1, -1};
       s.action_of = {0, 1, 1};
       s.grounding_args = {1, 0, -1, -1, -1, -1};
     }},
    {"PrePosFactOutOfRange", [](TaskSpec& s) { s.pre_pos[1] = s.num_facts; }},
    {"PrePosFactNegative", [](TaskSpec& s) { s.pre_pos[1] = -1; }},
    {"PreNegBeginEmpty", [](TaskSpec& s) { s.pre_neg_begin.clear(); }},
    {"PreNegFactOutOfRange", [](TaskSpec& s) { s.pre_neg[0] = 1000; }},
    {"EffBeginWrongEnd", [](TaskSpec& s) { s.eff_begin.back() = 0; }},
    {"EffFactOutOfRange", [](TaskSpec& s) { s.eff_fact[0] = 12; }},
    {"EffValueSize", [](TaskSpec& s) { s.eff_value.push_back(1); }},
    {"SfxBeginShort", [](TaskSpec& s) { s.sfx_begin.pop_back(); }},
    {"SfxTemplateOutOfRange", [](TaskSpec& s) { s.sfx_template[0] = 4; }},
    {"OwnerOutOfRange", [](TaskSpec& s) { s.owner[0] = 3; }},
    {"OwnerTableLong", [](TaskSpec& s) { s.owner.push_back(-1); }},
    {"FactHintWrongSize", [](TaskSpec& s) { s.fact_hint = {1, 0}; }},
    {"GroundingArgsRagged", [](TaskSpec& s) { s.grounding_args.push_back(0); }},
    {"GroundingArgOutOfRange", [](TaskSpec& s) { s.grounding_args[0] = 3; }},
    {"ActionOfOutOfRange", [](TaskSpec& s) { s.action_of[1] = 2; }},
    {"ActionTemplatePiecesSlots", [](TaskSpec& s) { s.action_templates[0].pieces.pop_back(); }},
    {"ActionTemplateSlotBeyondParams", [](TaskSpec& s) { s.action_templates[0].slots[1] = 2; }},
    {"ActionTemplateSlotOnPadding",
     [](TaskSpec& s) { s.action_templates[1] = text({"Wait for ", ""}, {0}); }},
    // Special-effect tables.
    {"TemplateCountMismatch", [](TaskSpec& s) { s.template_count.pop_back(); }},
    {"TemplateCountZero", [](TaskSpec& s) { s.template_count[1] = 0; }},
    {"TemplateBeyondNodes", [](TaskSpec& s) { s.template_count[3] = 2; }},
    {"TemplateFirstNegative", [](TaskSpec& s) { s.template_first[0] = -1; }},
    {"TemplateRangeOverflows",
     [](TaskSpec& s) {
       s.template_first[3] = 4;
       s.template_count[3] = std::numeric_limits<int32_t>::max();
     }},
    {"NodeTypeOutOfRange", [](TaskSpec& s) { s.node_type[4] = 5; }},
    {"NodeTypeNegative", [](TaskSpec& s) { s.node_type[4] = -1; }},
    {"NodeGoalTableShort", [](TaskSpec& s) { s.node_goal.pop_back(); }},
    {"DelayedGoalZero", [](TaskSpec& s) { s.node_goal[1] = 0; }},
    {"RepetitiveGoalNegative", [](TaskSpec& s) { s.node_goal[4] = -3; }},
    {"RepetitiveGoalTooLarge", [](TaskSpec& s) { s.node_goal[4] = kProgressMask; }},
    {"NodeFxBeginShort", [](TaskSpec& s) { s.node_fx_begin.pop_back(); }},
    {"NodeCondBeginLong", [](TaskSpec& s) { s.node_cond_begin.push_back(7); }},
    {"NodeFxBeginNotFromZero", [](TaskSpec& s) { s.node_fx_begin[0] = 1; }},
    {"NodeLiteralRangeInverted", [](TaskSpec& s) { s.node_cond_begin[1] = 1; }},
    {"NodeLiteralsBeyondTable", [](TaskSpec& s) { s.node_fx_begin.back() = 99; }},
    {"NodeChildBeginWrongEnd", [](TaskSpec& s) { s.node_child_begin.back() = 0; }},
    {"NodeChildOutOfRange", [](TaskSpec& s) { s.node_children[0] = 5; }},
    {"NodeChildIsItself", [](TaskSpec& s) { s.node_children[0] = 0; }},
    {"NodeChildInAnotherTemplate", [](TaskSpec& s) { s.node_children[0] = 2; }},
    {"NodeDeleteObjectOutOfRange", [](TaskSpec& s) { s.node_delete_object[3] = 3; }},
    {"DeletionWithoutObject", [](TaskSpec& s) { s.node_delete_object[3] = -1; }},
    {"NodeCreateGroupOutOfRange", [](TaskSpec& s) { s.node_create_group[2] = 1; }},
    {"CreationWithoutGroup", [](TaskSpec& s) { s.node_create_group[2] = -1; }},
    {"LiteralFactOutOfRange", [](TaskSpec& s) { s.lit_fact[0] = 12; }},
    {"LiteralFactNegative", [](TaskSpec& s) { s.lit_fact[1] = -1; }},
    {"ConditionFactOutOfRange", [](TaskSpec& s) { s.lit_fact[1] = 64; }},
    {"CreatedLiteralBeyondFacts", [](TaskSpec& s) { s.lit_created_stride[3] = 6; }},
    {"LiteralValueTableShort", [](TaskSpec& s) { s.lit_value.pop_back(); }},
    {"LiteralStrideTableLong", [](TaskSpec& s) { s.lit_created_stride.push_back(0); }},
    {"LiteralGuardBeginShort", [](TaskSpec& s) { s.lit_guard_begin.pop_back(); }},
    {"LiteralGuardOutOfRange", [](TaskSpec& s) { s.lit_guards[0] = 12; }},
    {"GroupSlotBeginWrongEnd", [](TaskSpec& s) { s.group_slot_begin.back() = 1; }},
    {"GroupSlotOutOfRange", [](TaskSpec& s) { s.group_slots[1] = 3; }},
    {"DeleteFactBeginShort", [](TaskSpec& s) { s.delete_fact_begin.pop_back(); }},
    {"DeleteFactOutOfRange", [](TaskSpec& s) { s.delete_facts[0] = 12; }},
    // Goal tables.
    {"GoalCandBeginShort", [](TaskSpec& s) { s.goal_cand_begin.pop_back(); }},
    {"GoalCandidateNegative", [](TaskSpec& s) { s.goal_candidates[0] = -1; }},
    {"GoalOrderShort", [](TaskSpec& s) { s.goal_order.clear(); }},
    {"GoalOrderOutOfRange", [](TaskSpec& s) { s.goal_order[0] = 1; }},
    {"GoalOrderNotAPermutation",
     [](TaskSpec& s) {
       s.goal_var_group = {0, 0};
       s.goal_cand_begin = {0, 3, 4};
       s.goal_candidates.push_back(1);
       s.goal_order = {0, 0};
     }},
    {"GoalAtomLevelTableShort", [](TaskSpec& s) { s.goal_atom_level.pop_back(); }},
    {"GoalAtomLevelOutOfRange", [](TaskSpec& s) { s.goal_atom_level[1] = 1; }},
    {"GoalAtomLevelBeforeItsVariable", [](TaskSpec& s) { s.goal_atom_level[1] = -1; }},
    {"GoalAtomArgBeginWrongEnd", [](TaskSpec& s) { s.goal_atom_arg_begin.back() = 2; }},
    {"GoalAtomArgsRagged", [](TaskSpec& s) { s.goal_atom_args.push_back(0); }},
    {"GoalAtomVariableOutOfRange", [](TaskSpec& s) { s.goal_atom_args[4 + 1] = 1; }},
    {"GoalAtomConstantNegative", [](TaskSpec& s) { s.goal_atom_args[1] = -1; }},
    {"GoalAtomFactBeyondFacts", [](TaskSpec& s) { s.goal_atom_base[1] = 11; }},
    {"GoalAtomFactNegative", [](TaskSpec& s) { s.goal_atom_base[0] = -1; }},
    // Rendering tables.
    {"LineBeginShort", [](TaskSpec& s) { s.line_begin.pop_back(); }},
    {"LineFactOutOfRange", [](TaskSpec& s) { s.line_fact[0] = 12; }},
    {"LineFactWithoutArgs", [](TaskSpec& s) { s.line_fact[0] = 5; }},
    {"LineTemplateOutOfRange", [](TaskSpec& s) { s.line_template[0] = 3; }},
    {"LineTemplateTableShort", [](TaskSpec& s) { s.line_template.pop_back(); }},
    {"FactArgsWidthZero", [](TaskSpec& s) { s.fact_args_width = 0; }},
    {"FactArgsRagged", [](TaskSpec& s) { s.fact_args.push_back(0); }},
    {"FactArgOutOfRange", [](TaskSpec& s) { s.fact_args[0] = 3; }},
    {"TextTemplatePiecesSlots", [](TaskSpec& s) { s.text_templates[1].slots.push_back(0); }},
    {"TextTemplateSlotBeyondWidth", [](TaskSpec& s) { s.text_templates[0].slots[0] = 2; }},
    {"TextTemplateSlotOnPadding", [](TaskSpec& s) { s.text_templates[0].slots[0] = 1; }},
};

// The message of a failed check names the table and, for a range check, the value (messages
// are built only when a check fails).
TEST(TaskTest, AFailedCheckNamesItsTableAndValue) {
  auto message = [](const TaskSpec& spec) {
    try {
      Task task{spec};
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TaskSpec spec = rich_fixture().spec();
  spec.pre_pos[1] = spec.num_facts;
  EXPECT_EQ(message(spec), "invalid task spec: pre_pos holds an out-of-range value " +
                               std::to_string(spec.num_facts));
  spec = rich_fixture().spec();
  spec.eff_begin.back() = 0;
  EXPECT_EQ(message(spec),
            "invalid task spec: eff_begin must start at 0 and end at the values' size");
}

INSTANTIATE_TEST_SUITE_P(Validation, MalformedSpecTest, ::testing::ValuesIn(kMutations),
                         [](const ::testing::TestParamInfo<Mutation>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace robotouille::testing

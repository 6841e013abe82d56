// Unit tests of the planner's parts that python/robotouille drives: the Canonicalizer
// (symmetry.h) and the ProjectionHeuristic (projection.h), on hand-built tasks whose answers
// are known.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fixtures.h"
#include "robotouille/projection.h"
#include "robotouille/search.h"
#include "robotouille/symmetry.h"

namespace robotouille::testing {
namespace {

// Three cells (objects 0..2) and one token: fact c = token_on(cell c). Groundings 0..5 move
// the token between any two cells. Goal: the token on goal_cell, or (-1) on some cell, a
// variable over all three, so that swapping any two cells is an automorphism.
Task cells_task(int32_t goal_cell = -1) {
  FixtureBuilder b(3);
  b.add_objects(3, "cell");
  b.fact_args = {0, 1, 2};
  for (int32_t from = 0; from < 3; ++from) {
    for (int32_t to = 0; to < 3; ++to) {
      if (from == to) continue;
      GroundingDef g{{from}, {}, {{from, false}, {to, true}}};
      g.args = {from, to};
      b.add_grounding(g);
    }
  }
  if (goal_cell < 0) {
    b.goal_vars = {GoalVarDef{0, {0, 1, 2}}};
    b.goal_atoms = {GoalAtomDef{0, {var(0, 0, 1)}}};
  } else {
    b.goal_atoms = {GoalAtomDef{0, {obj(goal_cell, 0, 1)}}};
  }
  return b.task();
}

// Tables for one class {0, 1, 2}: pair (i, j) exchanges facts i and j.
SymmetrySpec cells_symmetry() {
  SymmetrySpec s;
  s.class_begin = {0, 3};
  s.class_objects = {0, 1, 2};
  s.pair_fact_begin = {0};
  for (int32_t i = 0; i < 3; ++i) {
    for (int32_t j = 0; j < 3; ++j) {
      if (i < j) {
        s.pair_facts.push_back(i);
        s.pair_facts.push_back(j);
      }
      s.pair_fact_begin.push_back(static_cast<int32_t>(s.pair_facts.size() / 2));
    }
  }
  s.pair_template_begin.assign(10, 0);
  s.fact_pred = {0, 0, 0};
  s.template_object_begin = {0};
  return s;
}

TEST(CanonicalizerTest, SymmetricStatesGetOneRepresentative) {
  const Task task = cells_task();
  Canonicalizer canon(task, cells_symmetry());
  std::vector<uint64_t> reps;
  for (int32_t cell = 0; cell < 3; ++cell) {
    State s(task);
    s.set(cell);
    std::vector<std::pair<int32_t, int32_t>> swaps;
    canon.canonicalize(s.words.data(), s.counters.data(), &swaps);
    reps.push_back(s.words[0]);
    // Undoing the recorded transpositions in reverse order gives the state back.
    for (auto it = swaps.rbegin(); it != swaps.rend(); ++it) {
      const bool a = s.bit(it->first), b = s.bit(it->second);
      s.set(it->first, b);
      s.set(it->second, a);
    }
    EXPECT_EQ(s.words[0], uint64_t{1} << cell);
  }
  EXPECT_EQ(reps[0], reps[1]);
  EXPECT_EQ(reps[1], reps[2]);
}

TEST(CanonicalizerTest, EachCallDependsOnlyOnItsOwnState) {
  // The fact signatures are updated from the previous call's input: any sequence of states must
  // come out as a fresh Canonicalizer would make it.
  const Task task = cells_task();
  Canonicalizer shared(task, cells_symmetry());
  const uint64_t sequence[] = {1, 6, 6, 7, 0, 4, 3, 5, 2, 2, 7, 1, 0, 6};
  for (uint64_t facts : sequence) {
    State a(task), b(task);
    a.words[0] = b.words[0] = facts;
    shared.canonicalize(a.words.data(), a.counters.data(), nullptr);
    Canonicalizer fresh(task, cells_symmetry());
    fresh.canonicalize(b.words.data(), b.counters.data(), nullptr);
    EXPECT_EQ(a.words, b.words) << "facts " << facts;
    EXPECT_EQ(std::popcount(a.words[0]), std::popcount(facts));
  }
}

TEST(CanonicalizerTest, ARepresentativeIsItsOwnRepresentative) {
  // A representative's classes are in order, which canonicalize() checks before sorting: it
  // must come back unchanged, with no transposition.
  const Task task = cells_task();
  Canonicalizer canon(task, cells_symmetry());
  for (uint64_t facts = 0; facts < 8; ++facts) {
    State s(task);
    s.words[0] = facts;
    canon.canonicalize(s.words.data(), s.counters.data(), nullptr);
    const std::vector<uint64_t> representative = s.words;
    std::vector<std::pair<int32_t, int32_t>> swaps;
    canon.canonicalize(s.words.data(), s.counters.data(), &swaps);
    EXPECT_EQ(s.words, representative) << "facts " << facts;
    EXPECT_TRUE(swaps.empty()) << "facts " << facts;
  }
}

TEST(CanonicalizerTest, TheStabilizerPairsTheMembersThatTradePlaces) {
  // Two cells trade places without changing the state where both hold a token or neither
  // does. Each object stands for the first member it can trade with.
  const Task task = cells_task();
  Canonicalizer shared(task, cells_symmetry());
  const std::pair<uint64_t, IntVec> cases[] = {
      {1, {0, 1, 1}}, {2, {0, 1, 0}}, {4, {0, 0, 2}}, {0, {0, 0, 0}},
      {3, {0, 0, 2}}, {5, {0, 1, 0}}, {7, {0, 0, 0}}, {1, {0, 1, 1}},
  };
  for (const auto& [facts, expected] : cases) {
    State s(task);
    s.words[0] = facts;
    IntVec representative;
    shared.stabilizer(s.words.data(), s.counters.data(), representative);
    EXPECT_EQ(representative, expected) << "facts " << facts;
    EXPECT_EQ(s.words[0], facts);  // the state itself is left as it was
  }
}

TEST(CanonicalizerTest, RejectsTablesThatDoNotFitTheTask) {
  const Task task = cells_task();
  SymmetrySpec bad = cells_symmetry();
  bad.class_objects = {0, 1, 7};
  EXPECT_THROW(Canonicalizer(task, bad), std::invalid_argument);
  bad = cells_symmetry();
  bad.pair_facts[0] = 99;
  EXPECT_THROW(Canonicalizer(task, bad), std::invalid_argument);
  bad = cells_symmetry();
  bad.fact_pred.pop_back();
  EXPECT_THROW(Canonicalizer(task, bad), std::invalid_argument);
}

TEST(CanonicalizerTest, ExchangesFactsAcrossWordsInBothDirections) {
  // Objects 0 and 1, interchangeable; three predicates, one fact per object each, laid out so
  // that the exchanges go up a word (3 <-> 70), down a word (69 <-> 2) and within one (10 <-> 12).
  FixtureBuilder b(130);
  b.add_objects(2, "thing");
  b.fact_args.assign(130, -1);
  SymmetrySpec s;
  s.fact_pred.assign(130, -1);
  const int32_t facts[3][2] = {{3, 70}, {69, 2}, {10, 12}};
  for (int32_t pred = 0; pred < 3; ++pred) {
    for (int32_t object = 0; object < 2; ++object) {
      b.fact_args[facts[pred][object]] = object;
      s.fact_pred[facts[pred][object]] = pred;
    }
  }
  b.goal_atoms = {GoalAtomDef{0, {obj(0, 0, 1)}}};
  const Task task = b.task();
  s.class_begin = {0, 2};
  s.class_objects = {0, 1};
  s.pair_fact_begin = {0, 0, 3, 3, 3};  // pair (0, 1) exchanges the three pairs
  s.pair_facts = {3, 70, 69, 2, 10, 12};
  s.pair_template_begin = {0, 0, 0, 0, 0};
  s.template_object_begin = {0};
  Canonicalizer canon(task, s);
  State first(task), second(task);
  for (int32_t pred = 0; pred < 3; ++pred) {
    first.set(facts[pred][0]);
    second.set(facts[pred][1]);
  }
  canon.canonicalize(first.words.data(), first.counters.data(), nullptr);
  canon.canonicalize(second.words.data(), second.counters.data(), nullptr);
  EXPECT_EQ(first.words, second.words);
  // The representative has all three facts of one object and none of the other.
  const bool zero = first.bit(3);
  for (int32_t pred = 0; pred < 3; ++pred) {
    EXPECT_EQ(first.bit(facts[pred][0]), zero);
    EXPECT_EQ(first.bit(facts[pred][1]), !zero);
  }
  s.pair_facts = {3, 70, 70, 2, 10, 12};  // 70 exchanged twice: not a transposition
  EXPECT_THROW(Canonicalizer(task, s), std::invalid_argument);
}

TEST(CanonicalizerTest, RotationsMoveFactsAsTheirTranspositionsDo) {
  // Six interchangeable cells with two facts each: token(c) in word 0, mark(c) in words 1-2
  // in reverse order at uneven distances, so that sorting moves members several slots at once
  // (one rotation) and its facts across words. The state must come out as the recorded
  // transpositions, applied one after another, make it; and a relabelled state (the cells
  // reversed) must get the same representative.
  constexpr int32_t kCells = 6;
  auto token = [](int32_t c) { return 5 * c; };
  auto mark = [](int32_t c) { return 130 - 7 * c - c * c; };
  FixtureBuilder b(140);
  b.add_objects(kCells, "cell");
  b.fact_args.assign(140, -1);
  SymmetrySpec s;
  s.fact_pred.assign(140, -1);
  for (int32_t c = 0; c < kCells; ++c) {
    b.fact_args[token(c)] = c;
    b.fact_args[mark(c)] = c;
    s.fact_pred[token(c)] = 0;
    s.fact_pred[mark(c)] = 1;
    s.class_objects.push_back(c);
  }
  b.goal_atoms = {GoalAtomDef{0, {obj(0, 0, 1)}}};
  const Task task = b.task();
  s.class_begin = {0, kCells};
  s.pair_fact_begin = {0};
  for (int32_t i = 0; i < kCells; ++i) {
    for (int32_t j = 0; j < kCells; ++j) {
      if (i < j) s.pair_facts.insert(s.pair_facts.end(), {token(i), token(j), mark(i), mark(j)});
      s.pair_fact_begin.push_back(static_cast<int32_t>(s.pair_facts.size() / 2));
    }
  }
  s.pair_template_begin.assign(kCells * kCells + 1, 0);
  s.template_object_begin = {0};
  Canonicalizer canon(task, s);
  auto state = [&](uint32_t pattern, bool reversed) {
    State st(task);
    for (int32_t c = 0; c < kCells; ++c) {
      const int32_t at = reversed ? kCells - 1 - c : c;
      st.set(token(at), ((pattern >> c) & 1) != 0);
      st.set(mark(at), ((pattern >> (kCells + c)) & 1) != 0);
    }
    return st;
  };
  int32_t moved_far = 0;
  for (uint32_t pattern = 0; pattern < (1u << (2 * kCells)); ++pattern) {
    State st = state(pattern, false);
    State replay = st;
    std::vector<std::pair<int32_t, int32_t>> swaps;
    canon.canonicalize(st.words.data(), st.counters.data(), &swaps);
    for (const auto& [x, y] : swaps) {
      for (const auto& [fx, fy] : {std::pair{token(x), token(y)}, std::pair{mark(x), mark(y)}}) {
        const bool a = replay.bit(fx), c = replay.bit(fy);
        replay.set(fx, c);
        replay.set(fy, a);
      }
    }
    ASSERT_EQ(st.words, replay.words) << "pattern " << pattern;
    State other = state(pattern, true);
    canon.canonicalize(other.words.data(), other.counters.data(), nullptr);
    ASSERT_EQ(other.words, st.words) << "pattern " << pattern;
    moved_far += swaps.size() >= 3 ? 1 : 0;
  }
  EXPECT_GT(moved_far, 100);  // the patterns do exercise long rotations
}

// Tables for one class {1, 2} of a task with `cells` cells (fact c = token on cell c): pair
// (1, 2) exchanges facts 1 and 2.
SymmetrySpec cells_one_and_two(int32_t cells) {
  SymmetrySpec two;
  two.class_begin = {0, 2};
  two.class_objects = {1, 2};
  two.pair_fact_begin = {0, 0, 1, 1, 1};
  two.pair_facts = {1, 2};
  two.pair_template_begin = {0, 0, 0, 0, 0};
  two.fact_pred.assign(static_cast<size_t>(cells), 0);
  two.template_object_begin = {0};
  return two;
}

TEST(SearchTest, APlanFoundBetweenRepresentativesActsOnTheRealObjects) {
  // The token must reach cell 0, a goal constant, so only cells 1 and 2 are interchangeable.
  const Task pinned = cells_task(0);
  State start(pinned);
  start.set(2);
  SearchOptions plain;
  plain.algorithm = Algorithm::kBfs;
  SearchOptions reduced = plain;
  reduced.symmetry = std::make_shared<SymmetrySpec>(cells_one_and_two(3));
  const SearchResult a = search(pinned, start.words.data(), start.counters.data(), plain);
  const SearchResult r = search(pinned, start.words.data(), start.counters.data(), reduced);
  ASSERT_EQ(a.status, SearchStatus::kSolved);
  ASSERT_EQ(r.status, SearchStatus::kSolved);
  ASSERT_EQ(r.plan.size(), 1u);
  EXPECT_EQ(a.plan, r.plan);  // the real move from cell 2 to cell 0, whatever the image
  for (int32_t cell = 1; cell < 3; ++cell) {  // both starts: one of them is not canonical
    State other(pinned);
    other.set(cell);
    const SearchResult o = search(pinned, other.words.data(), other.counters.data(), reduced);
    ASSERT_EQ(o.plan.size(), 1u);
    EXPECT_EQ(pinned.spec.pre_pos[pinned.spec.pre_pos_begin[o.plan[0][0]]], cell);
  }
}

// Four cells; the token goes from cell 3 to cell 1 or 2, and from there to cell 0 (the goal).
// `robots` more objects follow the cells (for simultaneous mode; the moves belong to none).
Task token_cells_task(int32_t robots) {
  FixtureBuilder b(4);
  b.add_objects(4, "cell");
  if (robots > 0) b.add_objects(robots, "robot");
  b.fact_args = {0, 1, 2, 3};
  for (const auto& [from, to] : {std::pair{3, 1}, std::pair{3, 2}, std::pair{1, 0},
                                 std::pair{2, 0}}) {
    GroundingDef g{{from}, {}, {{from, false}, {to, true}}};
    g.args = {from, to};
    b.add_grounding(g);
  }
  b.goal_atoms = {GoalAtomDef{0, {obj(0, 0, 1)}}};
  return b.task();
}

TEST(SearchTest, StepsThatTheStateCannotTellApartAreGeneratedOnce) {
  // Cells 1 and 2 are interchangeable, and while neither holds the token, moving it to one or
  // the other leads to one orbit: only one of the two moves is generated. In simultaneous mode
  // two robots (objects 4 and 5) may both take the moves, which belong to no robot; a joint
  // step that moves the token to cell 2 and names no cell 1 is the twin of one that moves it
  // to cell 1.
  for (const int32_t robots : {0, 2}) {
    const Task task = token_cells_task(robots);
    State start(task);
    start.set(3);
    for (const Algorithm algorithm : {Algorithm::kBfs, Algorithm::kAstar}) {
      SearchOptions plain;
      plain.algorithm = algorithm;
      if (robots > 0) {
        plain.mode = PlanMode::kSimultaneous;
        plain.robots = {4, 5};
      }
      SearchOptions reduced = plain;
      reduced.symmetry = std::make_shared<SymmetrySpec>(cells_one_and_two(4));
      const SearchResult a = search(task, start.words.data(), start.counters.data(), plain);
      const SearchResult r = search(task, start.words.data(), start.counters.data(), reduced);
      ASSERT_EQ(a.status, SearchStatus::kSolved);
      ASSERT_EQ(r.status, SearchStatus::kSolved);
      // Two steps either way: a joint step's entries must be valid at its start, so none
      // moves the token on within the step that brought it.
      EXPECT_EQ(a.plan.size(), 2u);
      EXPECT_EQ(r.plan.size(), 2u);
      if (robots == 0) {
        // Without symmetry, both moves from cell 3 and then one from the first cell reached.
        EXPECT_EQ(a.stats.generated, 3);
        EXPECT_EQ(r.stats.generated, 2);
      } else {
        // From the start: no step, either robot moving the token to cell 1, or to cell 2 (the
        // second robot's entry is not applied where the first moved the token already); the
        // two to cell 2 go. Then the steps from the state with the token at cell 1.
        EXPECT_EQ(a.stats.generated, algorithm == Algorithm::kBfs ? 7 : 8);
        EXPECT_EQ(a.stats.generated - r.stats.generated, 2);
      }
      const auto width = static_cast<int32_t>(std::max<int32_t>(1, robots));
      State s = start;
      for (const auto& step : r.plan) {
        ASSERT_EQ(static_cast<int32_t>(step.size()), width);
        ASSERT_TRUE(robotouille::step(task, s.words.data(), s.counters.data(), step.data(),
                                      width, nullptr) >= 0);
      }
      EXPECT_TRUE(s.bit(0));
    }
  }
}

// A token on a line of `cells` cells (fact c = token on cell c), moved one cell at a time;
// goal: the last cell. Start: cell 0.
Task line_task(int32_t cells) {
  FixtureBuilder b(cells);
  b.add_objects(cells, "cell");
  for (int32_t c = 0; c < cells; ++c) b.fact_args.push_back(c);
  for (int32_t c = 0; c + 1 < cells; ++c) {
    for (const auto& [from, to] : {std::pair{c, c + 1}, std::pair{c + 1, c}}) {
      GroundingDef g{{from}, {}, {{from, false}, {to, true}}};
      g.args = {from, to};
      b.add_grounding(g);
    }
  }
  b.goal_atoms = {GoalAtomDef{0, {obj(cells - 1, 0, 1)}}};
  return b.task();
}

// Searches a line_task from cell 0; BFS unless `astar`.
SearchResult search_line(const Task& line, bool astar = false,
                         std::function<bool(const SearchStats&)> poll = nullptr) {
  State start(line);
  start.set(0);
  SearchOptions options;
  options.algorithm = astar ? Algorithm::kAstar : Algorithm::kBfs;
  options.poll = std::move(poll);
  return search(line, start.words.data(), start.counters.data(), options);
}

TEST(SearchTest, BoundsAboveWhatAStateKeepsStillGiveTheOptimum) {
  // A state keeps its bound in a byte (at most 254); here the bound at the start is 299.
  const Task line = line_task(300);
  const SearchResult a = search_line(line, /*astar=*/true);
  const SearchResult b = search_line(line);
  ASSERT_EQ(a.status, SearchStatus::kSolved);
  ASSERT_EQ(b.status, SearchStatus::kSolved);
  EXPECT_EQ(a.stats.initial_h, 299);
  EXPECT_EQ(a.plan.size(), 299u);
  EXPECT_EQ(b.plan.size(), 299u);
}

TEST(SearchTest, ThePollSeesTheStatisticsSoFarAndCanCancel) {
  std::vector<SearchStats> seen;
  const SearchResult r = search_line(line_task(300), false, [&](const SearchStats& so_far) {
    seen.push_back(so_far);
    return true;
  });
  EXPECT_EQ(r.status, SearchStatus::kCancelled);
  ASSERT_EQ(seen.size(), 1u);  // the first poll cancels
  const SearchStats& s = seen[0];
  EXPECT_GT(s.expanded, 0);
  EXPECT_EQ(s.stored, s.expanded + 1);  // a line: each expansion stores the next cell
  EXPECT_GT(s.bytes, 0);
  EXPECT_GT(s.state_bytes, 0);
  EXPECT_LE(s.expanded, r.stats.expanded);
  EXPECT_LE(s.seconds, r.stats.seconds);
}

TEST(SearchTest, APlanLongerThanTheDeepestStateKeptStopsAtTheDepthLimit) {
  // kMaxSearchDepth cells to the goal: one step more than a search can keep. (BFS: A*'s
  // bound would cost a pass over the task per state here.)
  const SearchResult r = search_line(line_task(kMaxSearchDepth + 2));
  EXPECT_EQ(r.status, SearchStatus::kDepthLimit);
  EXPECT_EQ(status_name(r.status), "max_depth");
  EXPECT_EQ(r.stats.expanded, kMaxSearchDepth);  // cells 0 .. kMaxSearchDepth - 1
}

// One item (object 0) on one of three stations (objects 1..3; facts 0..2 = at(item, s)), the
// robot's position (object 4; facts 3..5 = at(robot, s)) and its hand (fact 6 = holds(robot,
// item)). The partition charges pick and place to the item (cost code 1) and moves to the item
// while the robot holds it (code 2). Goal: the item on station 3 (fact 2).
struct Carry {
  Task task;
  ProjectionSpec spec;
};

Carry carry_task(bool with_wait = false) {
  FixtureBuilder b(7);
  b.add_objects(5, "o");
  b.fact_args_width = 2;
  b.fact_args = {0, 1, 0, 2, 0, 3, 4, 1, 4, 2, 4, 3, 4, 0};
  ProjectionSpec p;
  for (int32_t from = 0; from < 3; ++from) {
    for (int32_t to = 0; to < 3; ++to) {
      if (from == to) continue;
      GroundingDef move{{3 + from}, {}, {{3 + from, false}, {3 + to, true}}};
      move.owner = 4;
      p.groundings.push_back(b.add_grounding(move));
      p.costs.push_back(2);
    }
  }
  for (int32_t s = 0; s < 3; ++s) {
    GroundingDef pick{{s, 3 + s}, {6}, {{s, false}, {6, true}}};
    GroundingDef place{{6, 3 + s}, {}, {{6, false}, {s, true}}};
    pick.owner = place.owner = 4;
    p.groundings.push_back(b.add_grounding(pick));
    p.costs.push_back(1);
    p.groundings.push_back(b.add_grounding(place));
    p.costs.push_back(1);
  }
  if (with_wait) b.add_grounding(GroundingDef{{}, {}, {}});
  b.goal_atoms = {GoalAtomDef{2, {}}};
  p.objects = {0};
  p.fact_begin = {0, 7};
  p.facts = {0, 1, 2, 3, 4, 5, 6};
  p.template_begin = {0, 0};
  p.grounding_begin = {0, static_cast<int32_t>(p.groundings.size())};
  p.hold_begin = {0, 1};
  p.hold_facts = {4, 6};
  p.fallback = {0};
  return {b.task(), p};
}

int32_t carry_bound(const Carry& c, int32_t item_fact, int32_t robot_fact) {
  State s(c.task);
  s.set(item_fact);
  s.set(robot_fact);
  ProjectionHeuristic h(c.task, c.spec, s.words.data(), s.counters.data());
  return h.evaluate(s.words.data(), s.counters.data());
}

TEST(SearchTest, RelocationPruningKeepsTheOptimumAndGeneratesLess) {
  // Item on station 1, robot at station 3: move, pick, move, place. The six moves (the first
  // groundings) only relocate the robot, and a wait exists.
  const Carry c = carry_task(/*with_wait=*/true);
  State s(c.task);
  s.set(0);
  s.set(5);
  for (const Algorithm algorithm : {Algorithm::kBfs, Algorithm::kAstar}) {
    SearchOptions plain;
    plain.algorithm = algorithm;
    SearchOptions pruned = plain;
    pruned.relocation_robot.assign(static_cast<size_t>(c.task.num_groundings), -1);
    std::fill_n(pruned.relocation_robot.begin(), 6, 4);
    const SearchResult a = search(c.task, s.words.data(), s.counters.data(), plain);
    const SearchResult r = search(c.task, s.words.data(), s.counters.data(), pruned);
    ASSERT_EQ(a.status, SearchStatus::kSolved);
    ASSERT_EQ(r.status, SearchStatus::kSolved);
    EXPECT_EQ(r.plan.size(), 4u);
    EXPECT_EQ(a.plan.size(), r.plan.size());
    EXPECT_LT(r.stats.generated, a.stats.generated);
  }
  SearchOptions wrong;
  wrong.relocation_robot = {4};
  EXPECT_THROW(search(c.task, s.words.data(), s.counters.data(), wrong), std::invalid_argument);
}

// `tokens` tokens, each on its own line of `cells` cells (fact t * cells + c: token t on cell
// c), moved one cell at a time; goal: every token on its last cell. Start: every token on cell
// 0. Without LM-cut, A*'s bound is the time bound (cells - 1: the tokens move at once in the
// relaxation), far below the optimum, so each f layer holds many states.
Task tokens_task(int32_t tokens, int32_t cells) {
  FixtureBuilder b(tokens * cells);
  b.add_objects(tokens * cells, "cell");
  for (int32_t f = 0; f < tokens * cells; ++f) b.fact_args.push_back(f);
  for (int32_t t = 0; t < tokens; ++t) {
    for (int32_t c = 0; c + 1 < cells; ++c) {
      const int32_t at = t * cells + c;
      for (const auto& [from, to] : {std::pair{at, at + 1}, std::pair{at + 1, at}}) {
        GroundingDef g{{from}, {}, {{from, false}, {to, true}}};
        g.args = {from, to};
        b.add_grounding(g);
      }
    }
    b.goal_atoms.push_back(GoalAtomDef{0, {obj(t * cells + cells - 1, 0, 1)}});
  }
  return b.task();
}

// A search of task = tokens_task(4, cells) from every token on its cell 0 (optimum: 4 *
// (cells - 1) moves).
SearchResult search_tokens(const Task& task, const SearchOptions& options, int32_t cells = 6) {
  State start(task);
  for (int32_t t = 0; t < 4; ++t) start.set(t * cells);
  return search(task, start.words.data(), start.counters.data(), options);
}

// The results two searches must share when only their thread counts differ.
void expect_same_search(const SearchResult& a, const SearchResult& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.plan, b.plan);
  EXPECT_EQ(a.stats.expanded, b.stats.expanded);
  EXPECT_EQ(a.stats.generated, b.stats.generated);
  EXPECT_EQ(a.stats.stored, b.stats.stored);
  EXPECT_EQ(a.stats.pruned, b.stats.pruned);
  EXPECT_EQ(a.stats.bound, b.stats.bound);
  EXPECT_EQ(a.stats.deferred, b.stats.deferred);
}

TEST(SearchTest, ThreadsChangeTheTimeNotTheSearch) {
  const Task task = tokens_task(4, 6);
  SearchOptions one;
  one.lmcut = false;
  SearchOptions batched = one;
  batched.batch = 8;
  const SearchResult serial = search_tokens(task, one);
  const SearchResult alone = search_tokens(task, batched);
  ASSERT_EQ(serial.status, SearchStatus::kSolved);
  EXPECT_EQ(serial.plan.size(), 20u);
  EXPECT_EQ(alone.plan.size(), 20u);
  EXPECT_GT(alone.stats.expanded, 100);  // many states per layer: batches of 8 fill up
  for (const int32_t threads : {2, 3}) {
    SearchOptions parallel = batched;
    parallel.threads = threads;
    expect_same_search(alone, search_tokens(task, parallel));
  }
  SearchOptions defaults = one;  // batches of 32 per thread
  defaults.threads = 2;
  const SearchResult two = search_tokens(task, defaults);
  EXPECT_EQ(two.status, SearchStatus::kSolved);
  EXPECT_EQ(two.plan.size(), 20u);
  defaults.max_states = 50;
  EXPECT_EQ(search_tokens(task, defaults).status, SearchStatus::kStateLimit);
  SearchOptions none = one;
  none.threads = 0;
  EXPECT_THROW(search_tokens(task, none), std::invalid_argument);
}

TEST(SearchTest, BfsThreadsChangeTheTimeNotTheSearch) {
  // Thread 0 stores a batch while the others expand the next (search.h, "Threads"): the same
  // search as one thread for any batch, also where a state limit stops it mid-batch.
  const Task task = tokens_task(4, 6);
  SearchOptions one;
  one.algorithm = Algorithm::kBfs;
  const SearchResult alone = search_tokens(task, one);
  ASSERT_EQ(alone.status, SearchStatus::kSolved);
  EXPECT_EQ(alone.plan.size(), 20u);
  for (const int32_t threads : {2, 3}) {
    for (const int32_t batch : {0, 1, 5}) {
      SearchOptions parallel = one;
      parallel.threads = threads;
      parallel.batch = batch;
      expect_same_search(alone, search_tokens(task, parallel));
      if (threads != 2 || batch != 5) continue;  // (three threads on two cores wait long)
      for (int64_t limit = 1; limit <= alone.stats.stored; limit += 37) {
        SearchOptions limited = one, limited_parallel = parallel;
        limited.max_states = limited_parallel.max_states = limit;
        expect_same_search(search_tokens(task, limited), search_tokens(task, limited_parallel));
      }
    }
  }
  // 16^4 states: the visited set (2^16 slots at first) grows, between two batches.
  const Task larger = tokens_task(4, 16);
  const SearchResult big = search_tokens(larger, one, 16);
  ASSERT_EQ(big.status, SearchStatus::kSolved);
  EXPECT_EQ(big.plan.size(), 60u);
  EXPECT_GT(big.stats.stored, (1 << 16) * 7 / 10);
  SearchOptions two = one;
  two.threads = 2;
  expect_same_search(big, search_tokens(larger, two, 16));
}

TEST(SearchTest, PartialExpansionStoresFewerStatesForTheSamePlanLength) {
  const Task task = tokens_task(4, 6);
  SearchOptions whole;
  whole.lmcut = false;
  whole.batch = 8;
  whole.partial_slack = -1;
  SearchOptions partial = whole;
  partial.partial_slack = 0;
  partial.partial_from_bytes = 0;  // from the start
  const SearchResult a = search_tokens(task, whole);
  const SearchResult p = search_tokens(task, partial);
  ASSERT_EQ(a.status, SearchStatus::kSolved);
  ASSERT_EQ(p.status, SearchStatus::kSolved);
  EXPECT_EQ(a.plan.size(), 20u);
  EXPECT_EQ(p.plan.size(), 20u);
  EXPECT_EQ(a.stats.deferred, 0);
  EXPECT_GT(p.stats.deferred, 0);
  EXPECT_LT(p.stats.stored, a.stats.stored);  // (the bytes are the tables' first blocks here)
  // Deferred states are expanded again: more expansions than the whole search's.
  EXPECT_GT(p.stats.expanded, a.stats.expanded);
  // Threads still change only the time.
  SearchOptions parallel = partial;
  parallel.threads = 2;
  const SearchResult two = search_tokens(task, parallel);
  expect_same_search(p, two);
  // A slack above every successor's rise leaves nothing out.
  SearchOptions slack = partial;
  slack.partial_slack = 2;
  expect_same_search(a, search_tokens(task, slack));
  // By default it starts at half the memory budget, and not at all without one.
  SearchOptions defaults = whole;
  defaults.partial_slack = SearchOptions{}.partial_slack;
  expect_same_search(a, search_tokens(task, defaults));
  defaults.max_memory_bytes = 2 * p.stats.bytes;
  const SearchResult budget = search_tokens(task, defaults);
  EXPECT_EQ(budget.status, SearchStatus::kSolved);
  EXPECT_EQ(budget.plan.size(), 20u);
  EXPECT_GT(budget.stats.deferred, 0);
  SearchOptions wrong = whole;
  wrong.partial_slack = -2;
  EXPECT_THROW(search_tokens(task, wrong), std::invalid_argument);
}

TEST(SearchTest, ThreadsShareTheProjectionsAndKeepTheRelocationPruning) {
  // As above, with the projection bound: each further thread evaluates with a clone.
  const Carry c = carry_task(/*with_wait=*/true);
  State s(c.task);
  s.set(0);
  s.set(5);
  SearchOptions options;
  options.projections = std::make_shared<ProjectionSpec>(c.spec);
  options.relocation_robot.assign(static_cast<size_t>(c.task.num_groundings), -1);
  std::fill_n(options.relocation_robot.begin(), 6, 4);
  options.batch = 2;
  const SearchResult one = search(c.task, s.words.data(), s.counters.data(), options);
  ASSERT_EQ(one.status, SearchStatus::kSolved);
  EXPECT_EQ(one.plan.size(), 4u);
  EXPECT_EQ(one.stats.initial_h, 3);  // the first move is free (no arrival bits)
  options.threads = 2;
  expect_same_search(one, search(c.task, s.words.data(), s.counters.data(), options));
}

TEST(ProjectionHeuristicTest, CountsPickCarryAndPlace) {
  const Carry c = carry_task();
  EXPECT_EQ(carry_bound(c, 0, 4), 3);  // item on 1, robot on 2: (free move) pick, carry, place
  EXPECT_EQ(carry_bound(c, 0, 3), 3);  // robot already there: still pick, carry, place
  EXPECT_EQ(carry_bound(c, 6, 5), 1);  // held at station 3: place
  EXPECT_EQ(carry_bound(c, 6, 3), 2);  // held elsewhere: carry, place
  EXPECT_EQ(carry_bound(c, 2, 3), 0);  // done
}

TEST(ProjectionHeuristicTest, UpgradesOnTwoThreadsBuildTheRowsOneThreadBuilds) {
  // Two objects (the item, and a station given the item's facts to have a second row), each
  // with its full row and a fallback without the robot's position. First caps of 5 states
  // keep the fallbacks (4 states each) and send both full rows to the upgrade pass, which
  // builds them at once on two threads.
  const Carry c = carry_task();
  ProjectionSpec spec = c.spec;
  const IntVec full = c.spec.facts, coarse = {0, 1, 2, 6};
  const IntVec groundings = c.spec.groundings, costs = c.spec.costs;
  spec.objects = {0, 0, 1, 1};
  spec.fallback = {0, 1, 0, 1};
  spec.facts.clear();
  spec.fact_begin = {0};
  spec.groundings.clear();
  spec.costs.clear();
  spec.grounding_begin = {0};
  for (int32_t row = 0; row < 4; ++row) {
    const IntVec& facts = row % 2 == 0 ? full : coarse;
    spec.facts.insert(spec.facts.end(), facts.begin(), facts.end());
    spec.fact_begin.push_back(static_cast<int32_t>(spec.facts.size()));
    spec.groundings.insert(spec.groundings.end(), groundings.begin(), groundings.end());
    spec.costs.insert(spec.costs.end(), costs.begin(), costs.end());
    spec.grounding_begin.push_back(static_cast<int32_t>(spec.groundings.size()));
  }
  spec.template_begin = {0, 0, 0, 0, 0};
  spec.hold_begin = {0, 1, 2, 3, 4};
  spec.hold_facts = {4, 6, 4, 6, 4, 6, 4, 6};
  State s(c.task);
  s.set(0);
  s.set(5);
  ProjectionLimits first_caps;
  first_caps.max_states = 5;
  first_caps.upgrade_states = 0;
  const ProjectionHeuristic fallbacks(c.task, spec, s.words.data(), s.counters.data(), {},
                                      first_caps);
  EXPECT_EQ(fallbacks.abstract_states(), 8);
  ProjectionLimits limits;
  limits.max_states = 5;
  ProjectionHeuristic one(c.task, spec, s.words.data(), s.counters.data(), {}, limits);
  limits.threads = 2;
  ProjectionHeuristic two(c.task, spec, s.words.data(), s.counters.data(), {}, limits);
  EXPECT_GT(one.abstract_states(), 8);
  EXPECT_EQ(two.abstract_states(), one.abstract_states());
  for (int32_t item : {0, 1, 6}) {
    for (int32_t robot : {3, 4, 5}) {
      State at(c.task);
      at.set(item);
      at.set(robot);
      EXPECT_EQ(two.evaluate(at.words.data(), at.counters.data()),
                one.evaluate(at.words.data(), at.counters.data()));
    }
  }
  // Under the default caps the full rows are built in the first pass, after their fallbacks,
  // on two threads as on one.
  ProjectionLimits defaults;
  const ProjectionHeuristic first_pass_one(c.task, spec, s.words.data(), s.counters.data(), {},
                                           defaults);
  defaults.threads = 2;
  const ProjectionHeuristic first_pass_two(c.task, spec, s.words.data(), s.counters.data(), {},
                                           defaults);
  EXPECT_EQ(first_pass_one.abstract_states(), one.abstract_states());
  EXPECT_EQ(first_pass_two.abstract_states(), one.abstract_states());
  // A total of 20 states takes the first object's full row (12) but leaves the second one's
  // fallback (4) short of room for its full row: one started ahead of its turn is dropped.
  ProjectionLimits total;
  total.max_total_states = 20;
  total.upgrade_states = 0;
  const ProjectionHeuristic total_one(c.task, spec, s.words.data(), s.counters.data(), {},
                                      total);
  total.threads = 2;
  for (int32_t run = 0; run < 20; ++run) {
    const ProjectionHeuristic total_two(c.task, spec, s.words.data(), s.counters.data(), {},
                                        total);
    EXPECT_EQ(total_one.abstract_states(), 16);
    EXPECT_EQ(total_two.abstract_states(), total_one.abstract_states());
  }
  // A stop request after any number of polls leaves some of the rows (a weaker bound), on one
  // thread as on two; late enough, all of them.
  for (const int32_t threads : {1, 2}) {
    limits.threads = threads;
    for (int32_t polls = 0; polls < 40; ++polls) {
      ProjectionHeuristic stopped(c.task, spec, s.words.data(), s.counters.data(),
                                  [polls, calls = 0]() mutable { return ++calls > polls; },
                                  limits);
      EXPECT_LE(stopped.abstract_states(), one.abstract_states());
      EXPECT_LE(stopped.evaluate(s.words.data(), s.counters.data()),
                one.evaluate(s.words.data(), s.counters.data()));
    }
    ProjectionHeuristic late(c.task, spec, s.words.data(), s.counters.data(),
                             [calls = 0]() mutable { return ++calls > 1000; }, limits);
    EXPECT_EQ(late.abstract_states(), one.abstract_states());
  }
}

TEST(ProjectionHeuristicTest, TheBoundIsTheOptimumHereAndAStarFindsIt) {
  const Carry c = carry_task();
  State s(c.task);
  s.set(0);
  s.set(4);
  SearchOptions astar;
  astar.lmcut = false;
  astar.projections = std::make_shared<ProjectionSpec>(c.spec);
  SearchOptions bfs;
  bfs.algorithm = Algorithm::kBfs;
  const SearchResult a = search(c.task, s.words.data(), s.counters.data(), astar);
  const SearchResult b = search(c.task, s.words.data(), s.counters.data(), bfs);
  ASSERT_EQ(a.status, SearchStatus::kSolved);
  ASSERT_EQ(b.status, SearchStatus::kSolved);
  EXPECT_EQ(a.plan.size(), 4u);  // move, pick, move, place
  EXPECT_EQ(b.plan.size(), 4u);
  EXPECT_EQ(a.stats.initial_h, 3);
  EXPECT_GT(a.stats.abstract_states, 0);
}

// Two items (objects 0, 1) that can each play the goal's variables: done(item) is fact 0 / 1;
// item 0 needs two steps (half, fact 2, then done), item 1 one. With `vars` variables of one
// group over both items, the bound is the cheapest assignment of variables to distinct items.
int32_t roles_bound(int32_t vars, bool item1_done) {
  FixtureBuilder b(3);
  b.add_objects(2, "item");
  b.fact_args = {0, 1, 0};
  const int32_t half0 = b.add_grounding(GroundingDef{{}, {2, 0}, {{2, true}}});
  const int32_t done0 = b.add_grounding(GroundingDef{{2}, {0}, {{0, true}}});
  const int32_t done1 = b.add_grounding(GroundingDef{{}, {1}, {{1, true}}});
  for (int32_t v = 0; v < vars; ++v) {
    b.goal_vars.push_back(GoalVarDef{0, {0, 1}});
    b.goal_atoms.push_back(GoalAtomDef{0, {var(v, 0, 1)}});
  }
  const Task task = b.task();
  ProjectionSpec p;
  p.objects = {0, 1};
  p.fact_begin = {0, 2, 3};
  p.facts = {0, 2, 1};
  p.template_begin = {0, 0, 0};
  p.grounding_begin = {0, 2, 3};
  p.groundings = {half0, done0, done1};
  p.costs = {1, 1, 1};
  p.hold_begin = {0, 0, 0};
  p.fallback = {0, 0};
  State s(task);
  if (item1_done) s.set(1);
  ProjectionHeuristic h(task, p, s.words.data(), s.counters.data());
  return h.evaluate(s.words.data(), s.counters.data());
}

TEST(ProjectionHeuristicTest, RolesTakeTheCheapestDistinctObjects) {
  EXPECT_EQ(roles_bound(1, false), 1);  // item 1 plays the one role; item 0 is left out
  EXPECT_EQ(roles_bound(2, false), 3);  // both are needed: 2 + 1
  EXPECT_EQ(roles_bound(1, true), 0);   // item 1 is already done
  EXPECT_EQ(roles_bound(2, true), 2);   // item 0 must still be done
}

TEST(ProjectionHeuristicTest, EachEvaluationDependsOnlyOnItsOwnState) {
  // evaluate() reuses what the previous call found for unchanged facts: any sequence of states
  // must get the bounds a fresh heuristic (built from the same start) gives each.
  const Carry c = carry_task();
  State start(c.task);
  start.set(0);
  start.set(4);
  ProjectionHeuristic shared(c.task, c.spec, start.words.data(), start.counters.data());
  const std::pair<int32_t, int32_t> sequence[] = {{0, 4}, {0, 3}, {6, 3}, {6, 5}, {2, 5},
                                                  {2, 3}, {0, 4}, {6, 4}, {1, 4}, {1, 4}};
  for (const auto& [item, robot] : sequence) {
    State s(c.task);
    s.set(item);
    s.set(robot);
    ProjectionHeuristic fresh(c.task, c.spec, start.words.data(), start.counters.data());
    EXPECT_EQ(shared.evaluate(s.words.data(), s.counters.data()),
              fresh.evaluate(s.words.data(), s.counters.data()))
        << "item fact " << item << ", robot fact " << robot;
  }
}

TEST(ProjectionHeuristicTest, RejectsTablesThatDoNotFitTheTask) {
  Carry c = carry_task();
  State s(c.task);
  c.spec.facts[0] = 70;
  EXPECT_THROW(ProjectionHeuristic(c.task, c.spec, s.words.data(), s.counters.data()),
               std::invalid_argument);
  c = carry_task();
  c.spec.costs[0] = 3;
  EXPECT_THROW(ProjectionHeuristic(c.task, c.spec, s.words.data(), s.counters.data()),
               std::invalid_argument);
  c = carry_task();
  c.spec.key_vars = {5};
  EXPECT_THROW(ProjectionHeuristic(c.task, c.spec, s.words.data(), s.counters.data()),
               std::invalid_argument);
}

TEST(BoundLimitsTest, CapsGrowWithTheTimeLimitUpToTheirScale) {
  const ProjectionLimits defaults;
  SearchOptions options;
  options.threads = 2;
  ProjectionLimits limits = bound_limits(options);  // no time limit: the defaults
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states);
  EXPECT_EQ(limits.threads, 2);
  options.time_limit = 120;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_seconds, 60);
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states * 6);
  EXPECT_EQ(limits.upgrade_total_states, defaults.upgrade_total_states * 6);
  // The sink is decided against the cap before growing; a retry's cap grows as far.
  EXPECT_EQ(limits.sink_states, defaults.upgrade_states);
  EXPECT_EQ(limits.retry_states, defaults.upgrade_states * 6);
  // Without a memory budget a long search grows them no further.
  options.time_limit = 1800;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states * 6);
  EXPECT_EQ(limits.sink_states, defaults.upgrade_states);
  // Below the most, each further thread grows them by what it adds to construction.
  options.time_limit = 10;
  const ProjectionLimits on_two = bound_limits(options);
  options.threads = 1;
  const ProjectionLimits on_one = bound_limits(options);
  EXPECT_EQ(on_one.upgrade_states, defaults.upgrade_states * 2);
  EXPECT_EQ(on_two.upgrade_states,
            static_cast<int64_t>(static_cast<double>(defaults.upgrade_states) * 2 *
                                 (1 + robotouille::kHelperGain)));
  // A retried row's cap grows as the caps do on one thread, from a 15 s limit on (3 times).
  EXPECT_EQ(on_one.retry_states, defaults.upgrade_states);
  EXPECT_EQ(on_two.retry_states, defaults.upgrade_states);
  options.time_limit = robotouille::kRetryGrowthSeconds / robotouille::kUpgradeShare;
  EXPECT_EQ(bound_limits(options).retry_states, defaults.upgrade_states * 3);
  options.threads = 2;
  EXPECT_EQ(bound_limits(options).retry_states, defaults.upgrade_states * 3);
  options.threads = 1;
  // Without a time limit, planned_seconds plans the construction as that limit would.
  options.time_limit = 0;
  options.projection_limits.planned_seconds = 10;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_seconds, 5);
  EXPECT_EQ(limits.upgrade_states, on_one.upgrade_states);
  EXPECT_EQ(limits.upgrade_total_states, on_one.upgrade_total_states);
}

TEST(BoundLimitsTest, ABudgetHoldsTheCapsOfAShortSearch) {
  const ProjectionLimits defaults;
  SearchOptions options;
  options.time_limit = 120;
  // Room for three times the default total at kConstructionBytesPerState.
  options.max_memory_bytes = static_cast<int64_t>(
      3 * kConstructionBytesPerState * static_cast<double>(defaults.upgrade_total_states));
  const ProjectionLimits limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states * 3);
  EXPECT_EQ(limits.upgrade_total_states, defaults.upgrade_total_states * 3);
  EXPECT_EQ(limits.sink_states, defaults.upgrade_states);
}

TEST(BoundLimitsTest, ALongSearchTakesEveryCapToHalfItsBudget) {
  const ProjectionLimits defaults;
  SearchOptions options;
  options.max_memory_bytes = int64_t{16} << 30;
  const auto half = static_cast<int64_t>(
      static_cast<double>(options.max_memory_bytes) / kConstructionBytesPerState / 2);
  options.time_limit = 2 * kLongUpgradeSeconds / kUpgradeShare;  // the share, twice over
  ProjectionLimits limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, half);
  EXPECT_EQ(limits.upgrade_total_states, half);
  EXPECT_EQ(limits.retry_states, half);
  EXPECT_EQ(limits.sink_states, half);  // rows that repeat timers are built whole if they fit
  // The distance tables get room for those caps' rows, at least the default.
  EXPECT_EQ(limits.max_distance_entries, half * kLongDistanceEntriesPerState);
  EXPECT_GT(limits.max_distance_entries, defaults.max_distance_entries);
  // Just short of the long share: the caps of a 30 s search and more, the default room.
  options.time_limit = kLongUpgradeSeconds / kUpgradeShare - 1;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states * 6);
  EXPECT_EQ(limits.sink_states, defaults.upgrade_states);
  EXPECT_EQ(limits.max_distance_entries, defaults.max_distance_entries);
  // Caps the caller names stay (the sink's), and a named share turns the growth off.
  options.time_limit = 1800;
  options.projection_limits.sink_states = 1000;
  limits = bound_limits(options);
  EXPECT_EQ(limits.sink_states, 1000);
  EXPECT_EQ(limits.upgrade_states, half);
  options.projection_limits.upgrade_seconds = 5;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, defaults.upgrade_states);
  EXPECT_EQ(limits.upgrade_seconds, 5);
  // A budget too small to hold more than the regular growth keeps it.
  options.projection_limits = {};
  options.max_memory_bytes = static_cast<int64_t>(
      4 * kConstructionBytesPerState * static_cast<double>(defaults.upgrade_total_states));
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_total_states, defaults.upgrade_total_states * 4);
}

TEST(BoundLimitsTest, ASearchPlansItsCapsForTheMemoryItNames) {
  SearchOptions options;
  options.max_memory_bytes = int64_t{16} << 30;
  options.time_limit = 2 * kLongUpgradeSeconds / kUpgradeShare;
  const ProjectionLimits budgeted = bound_limits(options);
  // No time limit nor budget: planned_seconds and planned_memory_bytes stand in for them.
  options.max_memory_bytes = 0;
  options.time_limit = 0;
  options.projection_limits.planned_seconds = 2 * kLongUpgradeSeconds / kUpgradeShare;
  options.projection_limits.planned_memory_bytes = int64_t{16} << 30;
  ProjectionLimits limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, budgeted.upgrade_states);
  EXPECT_EQ(limits.upgrade_total_states, budgeted.upgrade_total_states);
  EXPECT_EQ(limits.sink_states, budgeted.sink_states);
  EXPECT_EQ(limits.max_distance_entries, budgeted.max_distance_entries);
  // The memory named comes first, so a bound can be planned for more than the search's
  // budget; without it, the budget plans.
  options.max_memory_bytes = int64_t{4} << 30;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, budgeted.upgrade_states);
  options.projection_limits.planned_memory_bytes = 0;
  options.max_memory_bytes = int64_t{32} << 30;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_states, budgeted.upgrade_states * 2);
}

TEST(BoundLimitsTest, AnUntimedLongSearchHasTheTimeItsCapsTakeToBuild) {
  SearchOptions options;
  options.threads = 1;
  options.projection_limits.planned_seconds = 2 * kLongUpgradeSeconds / kUpgradeShare;
  // Caps that build within the planned share keep it.
  options.projection_limits.planned_memory_bytes = int64_t{8} << 30;
  ProjectionLimits limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_seconds, 2 * kLongUpgradeSeconds);
  // Larger ones get the seconds they take, fewer with a further thread.
  options.projection_limits.planned_memory_bytes = int64_t{64} << 30;
  limits = bound_limits(options);
  const double caps_seconds =
      static_cast<double>(limits.upgrade_total_states) * kLongSecondsPerState;
  EXPECT_GT(caps_seconds, 2 * kLongUpgradeSeconds);
  EXPECT_DOUBLE_EQ(limits.upgrade_seconds, caps_seconds);
  options.threads = 2;
  limits = bound_limits(options);
  EXPECT_DOUBLE_EQ(limits.upgrade_seconds, caps_seconds / (1 + kHelperGain));
  // A time limit is the caller's: its share stands, whatever the caps.
  options.time_limit = 2 * kLongUpgradeSeconds / kUpgradeShare;
  limits = bound_limits(options);
  EXPECT_EQ(limits.upgrade_seconds, 2 * kLongUpgradeSeconds);
}

}  // namespace
}  // namespace robotouille::testing

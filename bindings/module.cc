// The private _core extension: the only translation unit that includes nanobind. It validates
// array shapes and dtypes, converts the compiler's keyword arrays into a TaskSpec, and calls the
// kernels in cpp/ with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <iterator>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "robotouille/effect_order.h"
#include "robotouille/kernels.h"
#include "robotouille/projection.h"
#include "robotouille/heuristic.h"
#include "robotouille/search.h"
#include "robotouille/task.h"
#include "robotouille/vector_env.h"

namespace nb = nanobind;
using robotouille::Task;
using robotouille::TaskSpec;

namespace {

template <typename T, typename Shape>
using Array = nb::ndarray<T, Shape, nb::c_contig, nb::device::cpu>;
using Words = Array<uint64_t, nb::shape<-1, -1>>;
using WordsRow = Array<const uint64_t, nb::shape<-1>>;
using CountersRow = Array<const int32_t, nb::shape<-1>>;
using Counters = Array<int32_t, nb::shape<-1, -1>>;

robotouille::IntVec int_array(const nb::kwargs& kw, const char* key) {
  if (!kw.contains(key)) throw std::invalid_argument(std::string("missing task array ") + key);
  auto arr = nb::cast<Array<const int32_t, nb::ndim<1>>>(kw[key]);
  return robotouille::IntVec(arr.data(), arr.data() + arr.shape(0));
}

int32_t int_value(const nb::kwargs& kw, const char* key) {
  if (!kw.contains(key)) throw std::invalid_argument(std::string("missing task value ") + key);
  return nb::cast<int32_t>(kw[key]);
}

std::vector<robotouille::TextTemplate> templates(const nb::kwargs& kw, const char* key) {
  using Raw = std::vector<std::pair<std::vector<std::string>, std::vector<int32_t>>>;
  auto raw = nb::cast<Raw>(kw[key]);
  std::vector<robotouille::TextTemplate> out;
  for (auto& [pieces, slots] : raw) out.push_back({std::move(pieces), std::move(slots)});
  return out;
}

TaskSpec spec_from_kwargs(const nb::kwargs& kw) {
  TaskSpec s;
  s.num_facts = int_value(kw, "num_facts");
  s.num_objects = int_value(kw, "num_objects");
  s.num_players = int_value(kw, "num_players");
  s.fact_args_width = int_value(kw, "fact_args_width");
#define ROBOTOUILLE_ARRAY(name) s.name = int_array(kw, #name)
  ROBOTOUILLE_ARRAY(object_type);
  ROBOTOUILLE_ARRAY(typepos);
  ROBOTOUILLE_ARRAY(exists_fact);
  ROBOTOUILLE_ARRAY(pre_pos_begin);
  ROBOTOUILLE_ARRAY(pre_pos);
  ROBOTOUILLE_ARRAY(pre_neg_begin);
  ROBOTOUILLE_ARRAY(pre_neg);
  ROBOTOUILLE_ARRAY(eff_begin);
  ROBOTOUILLE_ARRAY(eff_fact);
  ROBOTOUILLE_ARRAY(eff_value);
  ROBOTOUILLE_ARRAY(sfx_begin);
  ROBOTOUILLE_ARRAY(sfx_template);
  ROBOTOUILLE_ARRAY(owner);
  ROBOTOUILLE_ARRAY(fact_hint);
  ROBOTOUILLE_ARRAY(action_of);
  ROBOTOUILLE_ARRAY(grounding_args);
  ROBOTOUILLE_ARRAY(template_first);
  ROBOTOUILLE_ARRAY(template_count);
  ROBOTOUILLE_ARRAY(node_type);
  ROBOTOUILLE_ARRAY(node_goal);
  ROBOTOUILLE_ARRAY(node_fx_begin);
  ROBOTOUILLE_ARRAY(node_cond_begin);
  ROBOTOUILLE_ARRAY(node_child_begin);
  ROBOTOUILLE_ARRAY(node_children);
  ROBOTOUILLE_ARRAY(node_delete_object);
  ROBOTOUILLE_ARRAY(node_create_group);
  ROBOTOUILLE_ARRAY(lit_fact);
  ROBOTOUILLE_ARRAY(lit_value);
  ROBOTOUILLE_ARRAY(lit_created_stride);
  ROBOTOUILLE_ARRAY(lit_guard_begin);
  ROBOTOUILLE_ARRAY(lit_guards);
  ROBOTOUILLE_ARRAY(group_slot_begin);
  ROBOTOUILLE_ARRAY(group_slots);
  ROBOTOUILLE_ARRAY(delete_fact_begin);
  ROBOTOUILLE_ARRAY(delete_facts);
  ROBOTOUILLE_ARRAY(goal_var_group);
  ROBOTOUILLE_ARRAY(goal_cand_begin);
  ROBOTOUILLE_ARRAY(goal_candidates);
  ROBOTOUILLE_ARRAY(goal_order);
  ROBOTOUILLE_ARRAY(goal_atom_base);
  ROBOTOUILLE_ARRAY(goal_atom_level);
  ROBOTOUILLE_ARRAY(goal_atom_arg_begin);
  ROBOTOUILLE_ARRAY(goal_atom_args);
  ROBOTOUILLE_ARRAY(line_begin);
  ROBOTOUILLE_ARRAY(line_fact);
  ROBOTOUILLE_ARRAY(line_template);
  ROBOTOUILLE_ARRAY(fact_args);
  ROBOTOUILLE_ARRAY(template_pred);
  ROBOTOUILLE_ARRAY(hole_facts);
#undef ROBOTOUILLE_ARRAY
  s.object_names = nb::cast<std::vector<std::string>>(kw["object_names"]);
  s.object_labels = nb::cast<std::vector<std::string>>(kw["object_labels"]);
  s.text_templates = templates(kw, "text_templates");
  s.action_templates = templates(kw, "action_templates");
  s.goal_description = nb::cast<std::string>(kw["goal_description"]);
  return s;
}

void check_rows(const Task& t, size_t rows, size_t words_cols, const char* what) {
  if (words_cols != static_cast<size_t>(t.num_words)) {
    throw std::invalid_argument(std::string(what) + ".shape[1] should be num_words=" +
                                std::to_string(t.num_words) + ", got " +
                                std::to_string(words_cols));
  }
  (void)rows;
}

void check_state(const Task& t, const Words& words, const Counters& counters) {
  check_rows(t, words.shape(0), words.shape(1), "words");
  if (counters.shape(0) != words.shape(0) ||
      counters.shape(1) != static_cast<size_t>(t.num_counters)) {
    throw std::invalid_argument("counters.shape should be (" + std::to_string(words.shape(0)) +
                                ", num_counters=" + std::to_string(t.num_counters) + ")");
  }
}

void check_row(const Task& t, const WordsRow& words) {
  if (words.shape(0) != static_cast<size_t>(t.num_words)) {
    throw std::invalid_argument("words.shape should be (num_words=" +
                                std::to_string(t.num_words) + ",)");
  }
}

// One state's counters hold num_counters values.
void check_counters(const Task& t, size_t length) {
  if (length != static_cast<size_t>(t.num_counters)) {
    throw std::invalid_argument("counters.shape should be (num_counters=" +
                                std::to_string(t.num_counters) + ",)");
  }
}

void check_row(const Task& t, const WordsRow& words, const CountersRow& counters) {
  check_row(t, words);
  check_counters(t, counters.shape(0));
}

void check_grounding(const Task& t, int32_t g) {
  if (g < 0 || g >= t.num_groundings) throw std::out_of_range("grounding id out of range");
}

// Copies the named int lists of a dict (a missing name is an error).
void int_fields(const nb::dict& d, const char* what,
                std::initializer_list<std::pair<const char*, std::vector<int32_t>*>> fields) {
  for (const auto& [name, out] : fields) {
    if (!d.contains(name)) {
      throw std::invalid_argument(std::string(what) + " tables: missing '" + name + "'");
    }
    *out = nb::cast<std::vector<int32_t>>(d[name]);
  }
}

// The symmetry tables (python/robotouille/symmetry.py); the Canonicalizer validates them.
std::shared_ptr<const robotouille::SymmetrySpec> symmetry_spec(const nb::dict& d) {
  auto s = std::make_shared<robotouille::SymmetrySpec>();
  int_fields(d, "symmetry",
             {{"class_begin", &s->class_begin},
              {"class_objects", &s->class_objects},
              {"pair_fact_begin", &s->pair_fact_begin},
              {"pair_facts", &s->pair_facts},
              {"pair_template_begin", &s->pair_template_begin},
              {"pair_templates", &s->pair_templates},
              {"fact_pred", &s->fact_pred},
              {"template_orbit", &s->template_orbit},
              {"template_object_begin", &s->template_object_begin},
              {"template_objects", &s->template_objects}});
  return s;
}

// The projection tables (python/robotouille/projections.py); the heuristic validates them.
std::shared_ptr<const robotouille::ProjectionSpec> projection_spec(const nb::dict& d) {
  auto s = std::make_shared<robotouille::ProjectionSpec>();
  int_fields(d, "projection",
             {{"objects", &s->objects},
              {"fact_begin", &s->fact_begin},
              {"facts", &s->facts},
              {"template_begin", &s->template_begin},
              {"templates", &s->templates},
              {"grounding_begin", &s->grounding_begin},
              {"groundings", &s->groundings},
              {"costs", &s->costs},
              {"hold_begin", &s->hold_begin},
              {"hold_facts", &s->hold_facts},
              {"key_vars", &s->key_vars},
              {"fallback", &s->fallback},
              {"arrivals", &s->arrivals},
              {"colocated_begin", &s->colocated_begin},
              {"colocated", &s->colocated},
              {"lifts", &s->lifts},
              {"lift_stacks", &s->lift_stacks},
              {"clearing", &s->clearing},
              {"mutex_begin", &s->mutex_begin},
              {"mutex_facts", &s->mutex_facts},
              {"merge_begin", &s->merge_begin},
              {"merges", &s->merges},
              {"share", &s->share},
              {"share_template_begin", &s->share_template_begin},
              {"share_templates", &s->share_templates},
              {"robot_swap_fact_begin", &s->robot_swap_fact_begin},
              {"robot_swap_facts", &s->robot_swap_facts},
              {"robot_swap_template_begin", &s->robot_swap_template_begin},
              {"robot_swap_templates", &s->robot_swap_templates},
              {"robot_swap_slots", &s->robot_swap_slots},
              {"hand_over_places", &s->hand_over_places},
              {"idle_begin", &s->idle_begin},
              {"idle", &s->idle},
              {"idle_codes", &s->idle_codes},
              {"free_hands", &s->free_hands},
              {"clear_facts", &s->clear_facts},
              {"away_begin", &s->away_begin},
              {"away", &s->away},
              {"forbid_begin", &s->forbid_begin},
              {"forbid", &s->forbid},
              {"variants", &s->variants},
              {"appear_begin", &s->appear_begin},
              {"appear", &s->appear}});
  return s;
}

robotouille::SearchOptions search_options(const std::string& algorithm, const std::string& mode,
                                          bool lmcut, std::vector<int32_t> robots,
                                          int64_t max_states, int64_t max_memory_bytes,
                                          double time_limit) {
  robotouille::SearchOptions o;
  if (algorithm == "bfs") {
    o.algorithm = robotouille::Algorithm::kBfs;
  } else if (algorithm == "astar") {
    o.algorithm = robotouille::Algorithm::kAstar;
  } else {
    throw std::invalid_argument("algorithm must be 'astar' or 'bfs', got '" + algorithm + "'");
  }
  if (mode == "centralized") {
    o.mode = robotouille::PlanMode::kCentralized;
  } else if (mode == "turn_based") {
    o.mode = robotouille::PlanMode::kTurnBased;
  } else if (mode == "simultaneous") {
    o.mode = robotouille::PlanMode::kSimultaneous;
  } else {
    throw std::invalid_argument("unknown mode '" + mode + "'");
  }
  o.lmcut = lmcut;
  o.robots = std::move(robots);
  o.max_states = max_states;
  o.max_memory_bytes = max_memory_bytes;
  o.time_limit = time_limit;
  return o;
}

// The bound vector environment: the core VectorEnv plus references that keep the Tasks and the
// caller's numpy buffers alive for as long as it writes into them.
struct BoundVectorEnv {
  std::vector<nb::object> keep_alive;
  std::unique_ptr<robotouille::VectorEnv> env;
};

template <typename T>
T* buffer(std::vector<nb::object>& keep, const nb::kwargs& kw, const char* key, size_t rows,
          int64_t cols) {
  if (!kw.contains(key)) throw std::invalid_argument(std::string("missing buffer ") + key);
  nb::object obj = kw[key];
  auto arr = nb::cast<nb::ndarray<T, nb::c_contig, nb::device::cpu>>(obj, false);
  const bool shape_ok = cols < 0 ? (arr.ndim() == 1 && arr.shape(0) == rows)
                                 : (arr.ndim() == 2 && arr.shape(0) == rows &&
                                    arr.shape(1) == static_cast<size_t>(cols));
  if (!shape_ok) {
    throw std::invalid_argument(std::string(key) + " should have shape (" + std::to_string(rows) +
                                (cols < 0 ? "," : ", " + std::to_string(cols)) + ")");
  }
  keep.push_back(obj);
  return arr.data();
}

template <typename T>
std::vector<T> row_copy(const nb::handle& h) {
  auto arr = nb::cast<nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(h, false);
  return std::vector<T>(arr.data(), arr.data() + arr.shape(0));
}

BoundVectorEnv make_vector_env(const nb::list& instances, int32_t num_obs_columns,
                                int32_t num_action_columns, const std::string& mode,
                                double goal_reward, const std::string& invalid_action,
                                int32_t threads, const nb::kwargs& kw) {
  BoundVectorEnv bound;
  std::vector<robotouille::VecInstance> list;
  int64_t words_stride = 0, counters_stride = 0;
  for (nb::handle h : instances) {
    auto t = nb::cast<nb::tuple>(h);
    if (t.size() != 9) throw std::invalid_argument("an instance is a 9-tuple");
    robotouille::VecInstance in;
    in.task = nb::cast<const Task*>(t[0]);
    in.initial_words = row_copy<uint64_t>(t[1]);
    in.initial_counters = row_copy<int32_t>(t[2]);
    in.fact_column = row_copy<int32_t>(t[3]);
    in.column_grounding = row_copy<int32_t>(t[4]);
    in.robots = row_copy<int32_t>(t[5]);
    in.task_column = nb::cast<int32_t>(t[6]);
    in.player_column = nb::cast<int32_t>(t[7]);
    in.max_steps = nb::cast<int32_t>(t[8]);
    words_stride = std::max<int64_t>(words_stride, in.task->num_words);
    counters_stride = std::max<int64_t>(counters_stride, in.task->num_counters);
    bound.keep_alive.push_back(nb::borrow(t[0]));
    list.push_back(std::move(in));
  }
  robotouille::VecConfig config;
  config.num_obs_columns = num_obs_columns;
  config.num_action_columns = num_action_columns;
  if (mode != "centralized" && mode != "turn_based") {
    throw std::invalid_argument("a vector environment runs in centralized or turn_based mode");
  }
  config.turn_based = mode == "turn_based";
  config.goal_reward = goal_reward;
  if (invalid_action == "raise") {
    config.invalid_action = robotouille::InvalidAction::kRaise;
  } else if (invalid_action == "ignore") {
    config.invalid_action = robotouille::InvalidAction::kIgnore;
  } else {
    throw std::invalid_argument("invalid_action must be 'raise' or 'ignore'");
  }
  config.threads = threads;
  robotouille::VecBuffers b;
  auto& keep = bound.keep_alive;
  if (!kw.contains("reward")) throw std::invalid_argument("missing buffer reward");
  const auto rows = nb::cast<nb::ndarray<>>(kw["reward"]).shape(0);
  b.num_envs = static_cast<int64_t>(rows);
  b.words_stride = words_stride;
  b.counters_stride = counters_stride;
  b.words = buffer<uint64_t>(keep, kw, "words", rows, words_stride);
  b.counters = buffer<int32_t>(keep, kw, "counters", rows, counters_stride);
  b.observation = buffer<uint8_t>(keep, kw, "observation", rows, num_obs_columns);
  b.action_mask = reinterpret_cast<uint8_t*>(
      buffer<bool>(keep, kw, "action_mask", rows, num_action_columns));
  b.reward = buffer<double>(keep, kw, "reward", rows, -1);
  b.terminated = reinterpret_cast<uint8_t*>(buffer<bool>(keep, kw, "terminated", rows, -1));
  b.truncated = reinterpret_cast<uint8_t*>(buffer<bool>(keep, kw, "truncated", rows, -1));
  b.invalid = reinterpret_cast<uint8_t*>(buffer<bool>(keep, kw, "invalid", rows, -1));
  b.instance = buffer<int32_t>(keep, kw, "instance", rows, -1);
  b.home = buffer<int32_t>(keep, kw, "home", rows, -1);
  b.steps = buffer<int32_t>(keep, kw, "steps", rows, -1);
  bound.env = std::make_unique<robotouille::VectorEnv>(std::move(list), config, b);
  return bound;
}

// A search's statistics as the dict robotouille.planning.SearchStats is built from.
nb::dict stats_dict(const robotouille::SearchStats& stats) {
  nb::dict d;
  d["expanded"] = stats.expanded;
  d["generated"] = stats.generated;
  d["stored"] = stats.stored;
  d["bytes"] = stats.bytes;
  d["state_bytes"] = stats.state_bytes;
  d["pruned"] = stats.pruned;
  d["deferred"] = stats.deferred;
  d["initial_h"] = stats.initial_h;
  d["abstract_states"] = stats.abstract_states;
  d["coarse_rows"] = stats.coarse_rows;
  d["sink_rows"] = stats.sink_rows;
  d["bound"] = stats.bound;
  d["seconds"] = stats.seconds;
  return d;
}

// A search's projection_limits dict (see "search" below) over the default caps.
robotouille::ProjectionLimits projection_limits_from(nb::object limits) {
  robotouille::ProjectionLimits l;
  if (limits.is_none()) return l;
  using Limits = robotouille::ProjectionLimits;
  static constexpr std::pair<std::string_view, int64_t Limits::*> kIntegerCaps[] = {
      {"max_states", &Limits::max_states},
      {"max_total_states", &Limits::max_total_states},
      {"upgrade_states", &Limits::upgrade_states},
      {"upgrade_total_states", &Limits::upgrade_total_states},
      {"retry_states", &Limits::retry_states},
      {"planned_memory_bytes", &Limits::planned_memory_bytes},
      {"max_distance_entries", &Limits::max_distance_entries},
  };
  for (auto [key, value] : nb::cast<nb::dict>(limits)) {
    const std::string name = nb::cast<std::string>(key);
    const auto cap = std::find_if(std::begin(kIntegerCaps), std::end(kIntegerCaps),
                                  [&](const auto& entry) { return entry.first == name; });
    if (cap != std::end(kIntegerCaps)) {
      if (!nb::isinstance<nb::int_>(value)) {
        throw std::invalid_argument("projection limit '" + name + "' is no integer");
      }
      l.*(cap->second) = nb::cast<int64_t>(value);
    } else if (name == "upgrade_seconds") {
      l.upgrade_seconds = nb::cast<double>(value);
    } else if (name == "planned_seconds") {
      l.planned_seconds = nb::cast<double>(value);
    } else if (name == "threads") {
      l.threads = nb::cast<int32_t>(value);
    } else if (name == "exact_timers") {
      l.exact_timers = nb::cast<bool>(value);
    } else if (name == "timer_sinks") {
      l.timer_sinks = nb::cast<bool>(value);
    } else if (name == "existence_order") {
      l.existence_order = nb::cast<bool>(value);
    } else {
      throw std::invalid_argument("unknown projection limit '" + name + "'");
    }
    const bool flag =
        name == "exact_timers" || name == "timer_sinks" || name == "existence_order";
    if (!flag && nb::cast<double>(value) < 0) {
      throw std::invalid_argument("projection limit '" + name + "' is negative");
    }
  }
  return l;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "Private compiled core of robotouille; use the robotouille package instead.";
  m.attr("STATUS_GOAL") = robotouille::kStatusGoal;
  m.attr("STATUS_POOL_EXHAUSTED") = robotouille::kStatusPoolExhausted;

  nb::class_<Task>(m, "Task")
      .def("__init__",
           [](Task* self, nb::kwargs kw) { new (self) Task(spec_from_kwargs(kw)); })
      .def_ro("num_facts", &Task::num_facts)
      .def_ro("num_words", &Task::num_words)
      .def_ro("num_objects", &Task::num_objects)
      .def_ro("num_groundings", &Task::num_groundings)
      .def_ro("num_templates", &Task::num_templates)
      .def_ro("num_nodes", &Task::num_nodes)
      .def_ro("num_counters", &Task::num_counters)
      .def_ro("mask_words", &Task::mask_words);

  nb::class_<BoundVectorEnv>(m, "VectorEnv")
      .def("__init__",
           [](BoundVectorEnv* self, const nb::list& instances, int32_t num_obs_columns,
              int32_t num_action_columns, const std::string& mode, double goal_reward,
              const std::string& invalid_action, int32_t threads, const nb::kwargs& kw) {
             new (self) BoundVectorEnv(make_vector_env(instances, num_obs_columns,
                                                       num_action_columns, mode, goal_reward,
                                                       invalid_action, threads, kw));
           },
           nb::arg("instances"), nb::arg("num_obs_columns"), nb::arg("num_action_columns"),
           nb::arg("mode"), nb::arg("goal_reward"), nb::arg("invalid_action"),
           nb::arg("threads"), nb::arg("kwargs"),
           "instances: list of (task, initial_words, initial_counters, fact_column, "
           "column_grounding, robots, task_column, player_column, max_steps); buffers by "
           "keyword: words, counters, observation, action_mask, reward, terminated, truncated, "
           "invalid, instance, home, steps (one row per environment).")
      .def_prop_ro("threads", [](const BoundVectorEnv& v) { return v.env->threads(); })
      .def(
          "reset",
          [](BoundVectorEnv& v, std::optional<Array<const uint64_t, nb::shape<-1>>> seeds) {
            if (seeds && seeds->shape(0) != static_cast<size_t>(v.env->num_envs())) {
              throw std::invalid_argument("seeds should have one entry per environment");
            }
            const uint64_t* data = seeds ? seeds->data() : nullptr;
            nb::gil_scoped_release release;
            v.env->reset(data);
          },
          nb::arg("seeds").noconvert().none(),
          "Seeds each environment's stream (None: keep them) and resets every environment.")
      .def(
          "step",
          [](BoundVectorEnv& v, Array<const int32_t, nb::shape<-1>> actions) {
            if (actions.shape(0) != static_cast<size_t>(v.env->num_envs())) {
              throw std::invalid_argument("actions should have shape (num_envs=" +
                                          std::to_string(v.env->num_envs()) + ",)");
            }
            nb::gil_scoped_release release;
            v.env->step(actions.data());
          },
          nb::arg("actions").noconvert(), "One step per environment (actions: int32 columns).")
      .def(
          "step_random",
          [](BoundVectorEnv& v) {
            nb::gil_scoped_release release;
            v.env->step_random();
          },
          "One step per environment with a uniformly random valid action.");

  m.def(
      "step",
      [](const Task& t, Words words, Counters counters,
         Array<const int32_t, nb::shape<-1, -1>> actions, Array<uint8_t, nb::shape<-1, -1>> applied,
         Array<int32_t, nb::shape<-1>> status) {
        check_state(t, words, counters);
        const size_t B = words.shape(0);
        if (actions.shape(0) != B || applied.shape(0) != B || status.shape(0) != B ||
            applied.shape(1) != actions.shape(1)) {
          throw std::invalid_argument("actions, applied and status must have one row per state");
        }
        const auto K = static_cast<int32_t>(actions.shape(1));
        nb::gil_scoped_release release;
        for (size_t b = 0; b < B; ++b) {
          status(b) = robotouille::step(t, &words(b, 0), &counters(b, 0),
                                        actions.data() + b * K, K, applied.data() + b * K);
        }
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("actions").noconvert(), nb::arg("applied").noconvert(),
      nb::arg("status").noconvert(),
      "Steps each state of a batch in place: words (B, W) uint64, counters (B, C) int32, "
      "actions (B, K) int32 grounding ids (-1 = none); writes applied (B, K) uint8 and status "
      "(B,) int32 bits (STATUS_GOAL, STATUS_POOL_EXHAUSTED).");

  m.def(
      "random_rollout",
      [](const Task& t, Words words, Counters counters, int64_t steps, uint64_t seed,
         WordsRow reset_words, Array<const int32_t, nb::shape<-1>> reset_counters) {
        check_state(t, words, counters);
        check_row(t, reset_words);
        if (reset_counters.shape(0) != static_cast<size_t>(t.num_counters)) {
          throw std::invalid_argument("reset_counters.shape should be (num_counters,)");
        }
        if (steps < 0) throw std::invalid_argument("steps must be >= 0");
        int64_t goals = 0;
        nb::gil_scoped_release release;
        for (size_t b = 0; b < words.shape(0); ++b) {
          goals += robotouille::random_rollout(t, &words(b, 0), &counters(b, 0), steps, seed + b,
                                               reset_words.data(), reset_counters.data());
        }
        return goals;
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("steps"), nb::arg("seed"), nb::arg("reset_words").noconvert(),
      nb::arg("reset_counters").noconvert(),
      "Runs `steps` uniformly random steps from each state of the batch in place, resetting to "
      "the given state after each goal; returns how many episodes reached the goal.");

  m.def(
      "valid_mask",
      [](const Task& t, Array<const uint64_t, nb::shape<-1, -1>> words,
         Array<uint64_t, nb::shape<-1, -1>> out, int32_t player) {
        check_rows(t, words.shape(0), words.shape(1), "words");
        if (out.shape(0) != words.shape(0) || out.shape(1) != static_cast<size_t>(t.mask_words)) {
          throw std::invalid_argument("out.shape should be (B, mask_words=" +
                                      std::to_string(t.mask_words) + ")");
        }
        nb::gil_scoped_release release;
        for (size_t b = 0; b < words.shape(0); ++b) {
          robotouille::valid_mask(t, &words(b, 0), &out(b, 0), player);
        }
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("out").noconvert(),
      nb::arg("player") = -1,
      "Writes the valid-action bitmask of each state: out (B, mask_words) uint64.");

  m.def(
      "goal_reached",
      [](const Task& t, Array<const uint64_t, nb::shape<-1, -1>> words,
         Array<bool, nb::shape<-1>> out) {
        check_rows(t, words.shape(0), words.shape(1), "words");
        if (out.shape(0) != words.shape(0)) throw std::invalid_argument("out.shape should be (B,)");
        nb::gil_scoped_release release;
        for (size_t b = 0; b < words.shape(0); ++b) {
          out(b) = robotouille::goal_reached(t, &words(b, 0));
        }
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("out").noconvert(),
      "Writes whether the goal holds in each state: out (B,) bool.");

  m.def(
      "valid_groundings",
      [](const Task& t, WordsRow words, CountersRow counters, int32_t player) {
        check_row(t, words, counters);
        std::vector<int32_t> out;
        nb::gil_scoped_release release;
        robotouille::valid_groundings(t, words.data(), out, player, counters.data());
        return out;
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("player") = -1,
      "Valid grounding ids of one state, in canonical order over the state's object order.");

  m.def(
      "normalize_effect_order",
      [](const Task& t, Array<int32_t, nb::shape<-1>> counters) {
        check_counters(t, counters.shape(0));
        const int32_t* c = counters.data();
        if (c[1] < 0 || c[1] > t.num_templates) {
          throw std::invalid_argument("counters[1] is not an active-list length");
        }
        for (int32_t i = 0; i < c[1]; ++i) {
          if (c[2 + i] < 0 || c[2 + i] >= t.num_templates) {
            throw std::invalid_argument("the active list holds a template id out of range");
          }
        }
        return robotouille::EffectOrder(t).normalize(counters.data());
      },
      nb::arg("task"), nb::arg("counters").noconvert(),
      "Rewrites one state's active special-effect list (counters, in place) into the normal "
      "form the planner stores (see effect_order.h); returns whether it changed. For tests.");

  m.def(
      "object_order",
      [](const Task& t, WordsRow words, CountersRow counters) {
        check_row(t, words, counters);
        std::vector<int32_t> out;
        robotouille::object_order(t, words.data(), counters.data(), out);
        return out;
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      "Existing objects of one state in object order (created objects in creation order).");

  m.def(
      "observation",
      [](const Task& t, WordsRow words, CountersRow counters, const std::vector<int32_t>& valid) {
        check_row(t, words, counters);
        for (int32_t g : valid) check_grounding(t, g);
        return robotouille::observation(t, words.data(), valid, counters.data());
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("valid"), "The observation text of one state with the given valid groundings.");

  m.def(
      "describe",
      [](const Task& t, WordsRow words, CountersRow counters) {
        check_row(t, words, counters);
        return robotouille::describe(t, words.data(), counters.data());
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      "The object part of the observation text of one state.");

  m.def(
      "action_text",
      [](const Task& t, int32_t g) {
        check_grounding(t, g);
        return robotouille::action_text(t, g);
      },
      nb::arg("task"), nb::arg("grounding"), "The language text of a grounding.");

  m.def(
      "search",
      [](const Task& t, WordsRow words, CountersRow counters, const std::string& algorithm,
         const std::string& mode, bool lmcut, std::vector<int32_t> robots, int64_t max_states,
         int64_t max_memory_bytes, double time_limit, nb::object cancel, nb::object symmetry,
         nb::object projections, nb::object packing, nb::object projection_task,
         nb::object projection_limits, std::vector<int32_t> relocations,
         std::vector<int32_t> commuting, int32_t weight,
         int32_t weight_denominator, nb::object progress, double progress_every, int32_t threads,
         int32_t batch, int32_t partial_slack, int64_t partial_from_bytes) {
        check_row(t, words, counters);
        robotouille::SearchOptions o = search_options(algorithm, mode, lmcut, std::move(robots),
                                                      max_states, max_memory_bytes, time_limit);
        o.weight = weight;
        o.weight_denominator = weight_denominator;
        o.threads = threads;
        o.batch = batch;
        o.partial_slack = partial_slack;
        o.partial_from_bytes = partial_from_bytes;
        if (!packing.is_none()) {
          const auto tables = nb::cast<nb::dict>(packing);
          int_fields(tables, "packing",
                     {{"group_begin", &o.pack_group_begin},
                      {"group_facts", &o.pack_group_facts}});
          if (tables.contains("min_interned_bytes")) {
            o.min_interned_bytes = nb::cast<int32_t>(tables["min_interned_bytes"]);
          }
        }
        o.relocation_robot = std::move(relocations);
        o.commuting_robot = std::move(commuting);
        if (!symmetry.is_none()) o.symmetry = symmetry_spec(nb::cast<nb::dict>(symmetry));
        if (!projections.is_none()) {
          o.projections = projection_spec(nb::cast<nb::dict>(projections));
        }
        // Kept alive by the caller's reference for the whole call.
        if (!projection_task.is_none()) o.projection_task = &nb::cast<const Task&>(projection_task);
        o.projection_limits = projection_limits_from(projection_limits);
        // Polled from the searching thread with the GIL released: take it briefly to run
        // Python's signal handlers (Ctrl-C in the main thread), the caller's cancel check and,
        // every progress_every seconds, its progress callback. An exception in either stops
        // the search and is raised from here.
        bool interrupted = false;
        double next_progress = progress_every;
        o.poll = [&](const robotouille::SearchStats& so_far) {
          nb::gil_scoped_acquire acquire;
          if (PyErr_CheckSignals() != 0) {
            interrupted = true;
            return true;
          }
          try {
            if (!progress.is_none() && so_far.seconds >= next_progress) {
              next_progress = so_far.seconds + progress_every;
              progress(stats_dict(so_far));
            }
            return !cancel.is_none() && nb::cast<bool>(cancel());
          } catch (nb::python_error& error) {
            error.restore();
            interrupted = true;
            return true;
          }
        };
        robotouille::SearchResult r;
        {
          nb::gil_scoped_release release;
          r = robotouille::search(t, words.data(), counters.data(), o);
        }
        if (interrupted) throw nb::python_error();
        return std::make_tuple(robotouille::status_name(r.status), r.plan, stats_dict(r.stats));
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("algorithm") = "astar", nb::arg("mode") = "centralized", nb::arg("lmcut") = true,
      nb::arg("robots") = std::vector<int32_t>{}, nb::arg("max_states") = 0,
      nb::arg("max_memory_bytes") = 0, nb::arg("time_limit") = 0.0,
      nb::arg("cancel").none() = nb::none(), nb::arg("symmetry").none() = nb::none(),
      nb::arg("projections").none() = nb::none(), nb::arg("packing").none() = nb::none(),
      nb::arg("projection_task").none() = nb::none(),
      nb::arg("projection_limits").none() = nb::none(),
      nb::arg("relocations") = std::vector<int32_t>{},
      nb::arg("commuting") = std::vector<int32_t>{}, nb::arg("weight") = 1,
      nb::arg("weight_denominator") = 1, nb::arg("progress").none() = nb::none(),
      nb::arg("progress_every") = 1.0, nb::arg("threads") = 1, nb::arg("batch") = 0,
      nb::arg("partial_slack") = robotouille::SearchOptions{}.partial_slack,
      nb::arg("partial_from_bytes") = robotouille::SearchOptions{}.partial_from_bytes,
      "Optimal plan search from one state; returns (status, plan, stats). plan: one list of "
      "groundings per step. symmetry: a dict of the tables robotouille.symmetry builds (lists "
      "of ints), or None. projections: likewise, robotouille.projections' tables (A* only). "
      "packing: robotouille.invariants' packing tables (at-most-one fact sets, and optionally "
      "min_interned_bytes: the plain facts' bytes are interned where they fill at least that "
      "many, 0 never; 16 if absent; see search.h), or None. "
      "projection_task: the task the projections are built for (the same task with implied "
      "goal atoms added), or None for task itself. projection_limits: a dict overriding caps on "
      "building the projections (max_states, max_total_states, upgrade_states, "
      "upgrade_total_states, retry_states, upgrade_seconds; planned_seconds: without a time limit, "
      "build them as a search with that one would; planned_memory_bytes: plan them as a search "
      "with that memory budget would, in place of max_memory_bytes; max_distance_entries: the "
      "distance tables' entries over all rows; threads: build them on that many, where the "
      "search's own threads do not decide), exact_timers (true: keep every "
      "timer's exact progress, for comparisons; see projection.h), timer_sinks (false: never "
      "lead repeated timers to a sink, for comparisons; see projection.h) and existence_order "
      "(false: rows do not check that the pool objects before a needed one exist, for "
      "comparisons; see projection.h), or None. "
      "relocations: per "
      "grounding, the robot it only moves between stations, or -1 (in centralized mode a robot "
      "that just moved is offered neither a move nor a no-op; see search.h), or empty for none. "
      "commuting: per grounding, the robot whose moves (and the no-ops) are not offered right "
      "after it, or -1 "
      "(with relocations; see search.h, \"Commutation pruning\"), or empty for none. "
      "weight, weight_denominator: A* with f = g + w * h, w = weight / weight_denominator "
      "(at least 1); above 1 the plan is not necessarily optimal (see search.h). "
      "progress: called every progress_every seconds of the search with its statistics so far "
      "(a dict like the returned one), or None; an exception it raises stops the search and "
      "is raised from here. threads: A* and BFS expand states on that many threads (A*'s plan "
      "and statistics depend only on the batch size: states expanded at once, 0 for 1 on one "
      "thread and 32 per thread on more, 128 for BFS, whose search is the same for any; see "
      "search.h). partial_slack, partial_from_bytes: A* "
      "under memory pressure leaves out successors more than partial_slack layers above the one "
      "expanded once its tables hold partial_from_bytes (-1: half of max_memory_bytes if set, "
      "else never), and expands their parents again when they fall due; partial_slack -1: "
      "never (see search.h, \"Partial expansion\"). The GIL is released while searching.");

  m.def(
      "heuristic_value",
      [](const Task& t, WordsRow words, CountersRow counters, const std::string& mode,
         bool lmcut, std::vector<int32_t> robots) {
        check_row(t, words, counters);
        const robotouille::SearchOptions o =
            search_options("astar", mode, lmcut, std::move(robots), 0, 0, 0);
        const int32_t h = robotouille::heuristic_value(t, words.data(), counters.data(), o);
        return h == robotouille::DelayHeuristic::kDeadEnd ? -1 : h;
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("mode") = "centralized", nb::arg("lmcut") = true,
      nb::arg("robots") = std::vector<int32_t>{},
      "The A* heuristic's lower bound on steps to the goal (-1: provably unreachable).");

  m.def(
      "projection_bounds",
      [](const Task& t, Array<const uint64_t, nb::shape<-1, -1>> words,
         Array<const int32_t, nb::shape<-1, -1>> counters, nb::dict projections,
         nb::object projection_task, bool incremental, nb::object projection_limits) {
        check_rows(t, words.shape(0), words.shape(1), "words");
        if (counters.shape(0) != words.shape(0) || words.shape(0) == 0 ||
            counters.shape(1) != static_cast<size_t>(t.num_counters)) {
          throw std::invalid_argument("counters.shape should be (" +
                                      std::to_string(words.shape(0)) + " > 0, num_counters=" +
                                      std::to_string(t.num_counters) + ")");
        }
        const Task& projected =
            projection_task.is_none() ? t : nb::cast<const Task&>(projection_task);
        const auto spec = projection_spec(projections);
        const robotouille::ProjectionLimits limits = projection_limits_from(projection_limits);
        std::vector<int32_t> bounds(words.shape(0));
        nb::gil_scoped_release release;
        robotouille::ProjectionHeuristic h(projected, *spec, &words(0, 0), &counters(0, 0), {},
                                           limits);
        for (size_t b = 0; b < words.shape(0); ++b) {
          if (!incremental) h.forget();
          const int32_t value = h.evaluate(&words(b, 0), &counters(b, 0));
          bounds[b] = value == robotouille::ProjectionHeuristic::kDeadEnd ? -1 : value;
        }
        return bounds;
      },
      nb::arg("task"), nb::arg("words").noconvert(), nb::arg("counters").noconvert(),
      nb::arg("projections"), nb::arg("projection_task").none() = nb::none(),
      nb::arg("incremental") = true, nb::arg("projection_limits").none() = nb::none(),
      "The projection bound (robotouille.projections' tables, built from the first state) of "
      "each state in turn (-1: provably unreachable). incremental: each evaluation reuses what "
      "the one before found for the facts that did not change, as the search's do; False "
      "evaluates each state afresh (for tests). projection_limits: the caps on building the "
      "tables, as search() takes them (its defaults without a time limit), or None.");
}

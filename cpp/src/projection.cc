#include "robotouille/projection.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>

#include "robotouille/kernels.h"
#include "robotouille/id_index.h"
#include "layered_distances.h"
#include "table_checks.h"

namespace robotouille {
namespace {

constexpr int32_t kMaxFacts = 64 * ProjectionHeuristic::kBitsWords;
// Unreachable. Distances stay far below (projected plans are shorter than a real one), and a
// sum of up to 2^17 projections of at most kUnreached each fits an int32, so sums need no test.
constexpr uint16_t kUnreached = 0x3FFF;
constexpr size_t kNoRow = ~size_t{0};

constexpr const char* kTables = "projection";

void require(bool ok, std::string_view what) { require_table(ok, kTables, what); }

void check_csr(const IntVec& begin, size_t rows, size_t values, const std::string& name) {
  require_offsets(kTables, begin, rows, values, name);
}

// A plain key's slot in a table of `slots` (a power of two), from its first `words` words (words
// past them, 0, would not change it).
template <size_t words>
size_t plain_slot(const uint64_t* key, size_t slots) {
  uint64_t h = key[0];
  for (size_t k = 1; k < words; ++k) h ^= key[k] * (0x9E3779B97F4A7C15ULL + 2 * k);
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  return static_cast<size_t>(h) & (slots - 1);
}

using Bits = ProjectionHeuristic::Bits;

constexpr uint64_t kEmptyPlain = ~uint64_t{0};  // an empty slot's id in Projection::plain

// A key's bits: its first `bytes` bytes (a row's key_bytes: 8, 16 or 24), the other words 0.
// Copies of a constant size: a memcpy of a variable size is a call, on the hottest paths.
[[gnu::always_inline]] inline Bits read_bits(std::string_view key, size_t bytes) {
  Bits bits;
  switch (bytes) {
    case 8:
      std::memcpy(bits.w, key.data(), 8);
      break;
    case 16:
      std::memcpy(bits.w, key.data(), 16);
      break;
    default:
      std::memcpy(bits.w, key.data(), sizeof(bits.w));
  }
  return bits;
}

// Overwrites a key's bits (its first `bytes` bytes) with `bits`.
[[gnu::always_inline]] inline void write_bits(std::string& key, const Bits& bits, size_t bytes) {
  switch (bytes) {
    case 8:
      std::memcpy(key.data(), bits.w, 8);
      break;
    case 16:
      std::memcpy(key.data(), bits.w, 16);
      break;
    default:
      std::memcpy(key.data(), bits.w, sizeof(bits.w));
  }
}

// How many times row `full` may outnumber its fallback `coarse` in states: the combinations of
// the facts it adds (the robots' positions), grouped by their first argument (the robot) with
// one true fact per group. Arrival bits are not counted: they vary only where their robot stands
// at the object's station (elsewhere they are canonical), which adds about 16% with two robots,
// less than the product overestimates (not every position combination is reachable). A full
// row with a robot swap keeps one of each two position combinations that the swap exchanges
// (the fallback, without positions, gains little from it): half the product, which the
// arrival bits then exceed (by 13-32% on the multi-agent tasks), so two thirds of it. A row
// predicted too small costs a failed build; one predicted too large waits for the upgrades.
// Whether the spec gives row `row` a robot swap (see "Robot swap"): it has fact pairs.
bool has_robot_swap(const ProjectionSpec& spec, size_t row) {
  return !spec.robot_swap_fact_begin.empty() &&
         spec.robot_swap_fact_begin[row] < spec.robot_swap_fact_begin[row + 1];
}

int64_t size_factor(const Task& task, const ProjectionSpec& spec, size_t full, size_t coarse) {
  const auto first = spec.facts.begin() + spec.fact_begin[coarse];
  const auto last = spec.facts.begin() + spec.fact_begin[coarse + 1];
  std::map<int32_t, int64_t> per_subject;
  for (int32_t i = spec.fact_begin[full]; i < spec.fact_begin[full + 1]; ++i) {
    const int32_t fact = spec.facts[i];
    if (std::find(first, last, fact) != last) continue;
    const auto at = static_cast<size_t>(fact) * static_cast<size_t>(task.spec.fact_args_width);
    ++per_subject[at < task.spec.fact_args.size() ? task.spec.fact_args[at] : -1];
  }
  int64_t product = 1, largest = 0;
  for (const auto& [subject, count] : per_subject) {
    product = std::min<int64_t>(product * count, int64_t{1} << 40);
    largest = std::max(largest, count);
  }
  // With away robots (see "Away robots"), only the robot that holds the object has a place of
  // its own; the others are away or beside the object, with or without their arrival bit. On
  // the multi-agent kitchens (2 robots, 23 stations) that is about 6 with the swap (6.7 by this
  // estimate), against 13 (no swap) to 265 by the product.
  if (!spec.away_begin.empty() && spec.away_begin[full] < spec.away_begin[full + 1]) {
    const auto robots = static_cast<int64_t>(per_subject.size());
    product = std::min(product, 1 + 2 * robots + largest / 4);
  }
  return has_robot_swap(spec, full) ? std::max<int64_t>(1, product * 2 / 3) : product;
}

constexpr int32_t kDelayedNode = static_cast<int32_t>(EffectType::kDelayed);
// The most states a thread takes at once from an enumeration shared with helpers.
constexpr size_t kBatchStates = 64;
// A step branches over at most 2^this ways its coarse timers can tick; a projection whose
// states need more is dropped (projection.h, "Timers").
constexpr uint32_t kMaxTimerChoices = 8;

// The key of a row's sink (projection.h, "Repeated timers"): its length is no real key's (8, 16
// or 24 bytes, then 4 + 4 per node for each listed template), and its bits read as none.
constexpr char kSinkBytes[sizeof(ProjectionHeuristic::Bits::w) + 1] = {};
constexpr std::string_view kSinkKey(kSinkBytes, sizeof(kSinkBytes));

// The hash a row's timed keys are indexed by (construction) and looked up by (lookup()).
uint32_t key_hash(std::string_view key) {
  return static_cast<uint32_t>(
      hash_bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
}

// Per template (in the given order), its family (projection.h, "Repeated timers"): templates
// whose trees have the same shape, goals and effects share one; only their conditions may
// differ (the same cook on two stoves).
IntVec timer_families(const TaskSpec& s, const IntVec& templates) {
  std::map<IntVec, int32_t> family_of_tree;
  IntVec families;
  for (int32_t t : templates) {
    IntVec tree;
    for (int32_t n = s.template_first[t]; n < s.template_first[t] + s.template_count[t]; ++n) {
      tree.insert(tree.end(), {s.node_type[n], s.node_goal[n],
                               s.node_child_begin[n + 1] - s.node_child_begin[n],
                               s.node_cond_begin[n] - s.node_fx_begin[n]});
      for (int32_t l = s.node_fx_begin[n]; l < s.node_cond_begin[n]; ++l) {
        tree.insert(tree.end(), {s.lit_fact[l], s.lit_value[l], s.lit_created_stride[l]});
      }
    }
    const auto next = static_cast<int32_t>(family_of_tree.size());
    families.push_back(family_of_tree.emplace(std::move(tree), next).first->second);
  }
  return families;
}

// The facts a template's updates can read and write (conditions, guards, effects, the pool
// facts a creation reads and sets, the facts a deletion clears).
struct Footprint {
  std::set<int32_t> reads, writes;
};

Footprint footprint(const Task& task, int32_t t) {
  const TaskSpec& s = task.spec;
  Footprint f;
  for (int32_t node = s.template_first[t]; node < s.template_first[t] + s.template_count[t];
       ++node) {
    for (int32_t o : task.creatable(node)) {
      if (s.exists_fact[o] >= 0) {
        f.reads.insert(s.exists_fact[o]);
        f.writes.insert(s.exists_fact[o]);
      }
    }
    if (s.node_type[node] == static_cast<int32_t>(EffectType::kDeletion)) {
      const int32_t o = s.node_delete_object[node];
      f.writes.insert(s.delete_facts.begin() + s.delete_fact_begin[o],
                      s.delete_facts.begin() + s.delete_fact_begin[o + 1]);
    }
    for (int32_t l = s.node_fx_begin[node]; l < s.node_fx_begin[node + 1]; ++l) {
      f.reads.insert(s.lit_guards.begin() + s.lit_guard_begin[l],
                     s.lit_guards.begin() + s.lit_guard_begin[l + 1]);
      const IntVec facts = task.literal_facts(node, l);
      // Effects first, then conditions.
      (l < s.node_cond_begin[node] ? f.writes : f.reads).insert(facts.begin(), facts.end());
    }
  }
  return f;
}

// The predicted size of a row whose enumeration found more than `cap` states after expanding
// `expanded` of them (0: unknown), for scheduling its retry under `upgrade_cap`: the found
// states times (found / expanded)^3, since the frontier keeps growing by about that factor per
// breadth-first layer. Nearly done (the pot of multi_agent/7 seed 210, 126,000 states: 97% of
// the 120,000 found were expanded) predicts just over the cap; half done (the pots of the
// original multi_agent/10, with 12 timer templates each: 54%) predicts past the upgrade cap,
// so no seconds go to a retry that would fail again. Only the order and the skipping of
// retries depend on it, never the bound's soundness.
int64_t retry_size(int64_t cap, int64_t expanded, int64_t upgrade_cap) {
  if (expanded <= 0) return upgrade_cap;
  const double growth = static_cast<double>(cap + 1) / static_cast<double>(expanded);
  const double size = static_cast<double>(cap + 1) * growth * growth * growth;
  return size > static_cast<double>(upgrade_cap) ? upgrade_cap + 1 : static_cast<int64_t>(size);
}

// layered_distances from `seeds` into a table of `columns` distances per abstract state (one
// row per state, over the reverse edges), columns first, first + 1, ... for the seeds' bits.
bool distances_into(std::vector<uint16_t>& table, int32_t columns, int32_t first,
                    const IntVec& reverse_begin, const IntVec& reverse_source,
                    const std::vector<uint8_t>& reverse_cost, LayeredSeeds& seeds,
                    const std::function<bool()>& stop) {
  return layered_distances(
      reverse_begin.size() - 1, reverse_begin, reverse_source, reverse_cost, seeds,
      kUnreached - 1, stop, [&](int32_t id, uint64_t bits, uint16_t d) {
        uint16_t* row = table.data() + static_cast<size_t>(id) * columns + first;
        for (; bits != 0; bits &= bits - 1) row[std::countr_zero(bits)] = d;
      });
}

// Distances through seed states ("via" and "park" tables, see projection.h): per batch of up
// to 64 of the table's columns, `seed(seeds, id, first, width)` adds state id's seeds for
// columns first.. first + width - 1, and the sink (-1: none) seeds every column with 0, since
// it stands for every state after it. False when layered_distances fails.
template <class Seed>
bool distances_through(std::vector<uint16_t>& table, int32_t columns, int32_t states,
                       int32_t sink, const IntVec& reverse_begin, const IntVec& reverse_source,
                       const std::vector<uint8_t>& reverse_cost, const Seed& seed) {
  LayeredSeeds seeds;
  for (int32_t first = 0; first < columns; first += 64) {
    const int32_t width = std::min<int32_t>(64, columns - first);
    seeds.clear();
    if (sink >= 0) {
      add_seed(seeds, sink, width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1, 0);
    }
    for (int32_t id = 0; id < states; ++id) {
      if (id != sink) seed(seeds, id, first, width);
    }
    if (!distances_into(table, columns, first, reverse_begin, reverse_source, reverse_cost, seeds,
                        {})) {
      return false;
    }
  }
  return true;
}

// Per robot, the bit of row `index`'s F that says it holds the row's object (-1: outside F).
std::map<int32_t, int32_t> hold_bits(const ProjectionSpec& spec, int32_t index,
                                     const std::vector<int16_t>& bit_of) {
  std::map<int32_t, int32_t> bits;
  for (int32_t k = spec.hold_begin[index]; k < spec.hold_begin[index + 1]; ++k) {
    bits[spec.hold_facts[2 * k]] = bit_of[spec.hold_facts[2 * k + 1]];
  }
  return bits;
}

// Abstract state keys by id, one after another in one buffer: a projection has up to millions,
// and a string each would cost an allocation and twice the bytes.
class KeyArena {
 public:
  size_t size() const { return end_.size(); }
  std::string_view operator[](size_t id) const {
    const size_t begin = id == 0 ? 0 : end_[id - 1];
    return {bytes_.data() + begin, end_[id] - begin};
  }
  // Whether key `id` is `key`; keys of bits alone (no timers, most of them) without a memcmp.
  bool equals(size_t id, std::string_view key) const {
    const size_t begin = id == 0 ? 0 : end_[id - 1];
    if (end_[id] - begin != key.size()) return false;
    const std::string_view mine(bytes_.data() + begin, key.size());
    if (key.size() == 8 || key.size() == 16 || key.size() == sizeof(Bits::w)) {
      return read_bits(mine, key.size()) == read_bits(key, key.size());
    }
    // Keys with timers: their first word (fact bits) mostly tells them apart.
    return read_bits(mine, 8).w[0] == read_bits(key, 8).w[0] &&
           std::memcmp(mine.data(), key.data(), key.size()) == 0;
  }
  void push_back(std::string_view key) {
    bytes_.append(key);
    end_.push_back(bytes_.size());
  }
  bool contains(std::string_view key) const {
    for (size_t id = 0; id < size(); ++id) {
      if ((*this)[id] == key) return true;
    }
    return false;
  }
  void clear() {  // keeps the buffers
    bytes_.clear();
    end_.clear();
  }

 private:
  std::string bytes_;
  std::vector<size_t> end_;  // per key: where it ends in bytes_
};

// A relevant grounding, restricted to the projection's facts.
struct LocalAction {
  int32_t grounding;
  Bits need_true, need_false, hold;  // hold: the acting robot's hold facts (cost code 2)
  std::vector<std::pair<int32_t, bool>> effects;  // (bit, value), in order
  bool starts_template;                           // starts one of the projection's templates
  int32_t cost;
  int32_t arrival = 0;  // kArrivalMove, kArrivalDrop, kArrivalPick, kArrivalHandOver, kArrivalFreed
  int32_t slot = 0;     // the acting robot's slot (see projection.h)
  int32_t idle = 0;     // kIdleSets, kIdleBlocked (see "Idling")
  // A move of a placed robot (see "Away robots") that starts no template and touches no timer
  // bit: every such move of one robot that leaves it away ends in the same placed state.
  bool away_move = false;
  // The effects as masks (set_masks(), once they are all in), for applied_to(): a state's
  // steps apply them word by word. Storing them one bit at a time into a Bits on the stack
  // and then reading it whole stalled on every step (the stores cannot be forwarded to the
  // wider loads): about a fifth of the enumeration's time in its hottest function.
  Bits effect_set, effect_clear;
  void set_masks() {
    effect_set = {};
    effect_clear = {};
    for (const auto& [bit, value] : effects) {  // in order: a later effect on a bit wins
      (value ? effect_set : effect_clear).set(bit);
      (value ? effect_clear : effect_set).assign(bit, false);
    }
  }
  Bits applied_to(const Bits& bits) const {
    Bits next;
    for (int32_t k = 0; k < ProjectionHeuristic::kBitsWords; ++k) {
      next.w[k] = (bits.w[k] & ~effect_clear.w[k]) | effect_set.w[k];
    }
    return next;
  }
  // Whether the action changes one of these bits.
  bool touches(const Bits& mask) const {
    return std::any_of(effects.begin(), effects.end(),
                       [&](const auto& e) { return mask.test(e.first); });
  }
};

}  // namespace

// A row's enumeration shared by the threads that build it together (see "Construction"): the
// owner's keys, their index and the sink, the edges each state led to (in blocks, in the order
// the states were done), and what the threads need to take states from it, all under `mutex`.
struct ProjectionHeuristic::SharedEnumeration {
  std::mutex mutex;
  std::condition_variable more;  // states to take, a state done, or the end
  KeyArena keys;
  IdIndex index;
  int32_t sink = -1;
  std::vector<Edge> edges;
  IntVec block_from;                 // per state done: its id
  std::vector<size_t> block_begin;   // ... and where its edges begin in `edges`
  size_t next = 0;                   // the next state to take
  size_t threads = 1;                // the owner and its helpers
  int32_t busy = 0;                  // batches taken and not done
  bool started = false;              // the roots are in
  bool ended = false, failed = false;
  int64_t over_cap = 0;              // the states taken when the keys went over the cap
  std::exception_ptr error;          // a helper's
};

void ProjectionHeuristic::find_existence_order(const uint64_t* words) {
  const TaskSpec& s = task_.spec;
  const auto facts = static_cast<size_t>(task_.num_facts);
  const auto objects = static_cast<size_t>(task_.num_objects);
  // Existence facts that something other than a creation writes, and deleted objects.
  std::vector<uint8_t> written(facts, 0), deleted(objects, 0);
  for (int32_t f : s.eff_fact) written[f] = 1;
  for (int32_t n = 0; n < task_.num_nodes; ++n) {
    if (s.node_delete_object[n] >= 0) deleted[s.node_delete_object[n]] = 1;
    for (int32_t l = s.node_fx_begin[n]; l < s.node_cond_begin[n]; ++l) {
      for (int32_t f : task_.literal_facts(n, l)) written[f] = 1;
    }
  }
  // Per object, the first creation group that lists it; a group listing it in another pool or
  // order disqualifies it.
  const size_t groups = s.group_slot_begin.empty() ? 0 : s.group_slot_begin.size() - 1;
  auto pool = [&](size_t g) {
    return std::span<const int32_t>(s.group_slots.data() + s.group_slot_begin[g],
                                    s.group_slots.data() + s.group_slot_begin[g + 1]);
  };
  IntVec group_of(objects, -1);
  std::vector<uint8_t> mixed(objects, 0);
  for (size_t g = 0; g < groups; ++g) {
    for (int32_t o : pool(g)) {
      if (group_of[o] < 0) {
        group_of[o] = static_cast<int32_t>(g);
      } else if (!std::ranges::equal(pool(static_cast<size_t>(group_of[o])), pool(g))) {
        mixed[o] = 1;
      }
    }
  }
  std::vector<IntVec> implied(facts);
  for (size_t g = 0; g < groups; ++g) {
    const std::span<const int32_t> members = pool(g);
    bool ordered = true, absent = false;
    for (int32_t o : members) {
      const int32_t ex = s.exists_fact[o];
      ordered = ordered && group_of[o] == static_cast<int32_t>(g) && !mixed[o] && !deleted[o] &&
                ex >= 0 && !written[ex];
      if (!ordered) break;
      const bool exists = test_bit(words, ex);
      ordered = !(exists && absent);  // the start's pool: a prefix
      absent = absent || !exists;
    }
    for (size_t k = 0; ordered && k < members.size(); ++k) {
      IntVec& before = implied[s.exists_fact[members[k]]];
      for (size_t j = 0; j < k; ++j) before.push_back(s.exists_fact[members[j]]);
    }
  }
  implied_.clear();
  for (size_t f = 0; f < facts; ++f) {
    implied_.insert(implied_.end(), implied[f].begin(), implied[f].end());
    implied_begin_[f + 1] = static_cast<int32_t>(implied_.size());
  }
}

ProjectionHeuristic::ProjectionHeuristic(const Task& task, const ProjectionSpec& spec,
                                         const uint64_t* words, const int32_t* counters,
                                         std::function<bool()> stop,
                                         const ProjectionLimits& limits)
    : task_(task),
      exact_timers_(limits.exact_timers),
      timer_sinks_(limits.timer_sinks),
      tick_free_(limits.tick_free),
      upgrade_states_(limits.upgrade_states),
      max_distance_entries_(limits.max_distance_entries) {
  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  implied_begin_.assign(static_cast<size_t>(task.num_facts) + 1, 0);
  if (limits.existence_order) find_existence_order(words);
  const auto n = spec.objects.size();
  check_csr(spec.fact_begin, n, spec.facts.size(), "fact_begin");
  check_csr(spec.template_begin, n, spec.templates.size(), "template_begin");
  check_csr(spec.grounding_begin, n, spec.groundings.size(), "grounding_begin");
  require(spec.costs.size() == spec.groundings.size(), "costs and groundings differ in size");
  require(spec.fallback.size() == n, "fallback has the wrong size");
  for (size_t p = 0; p < n; ++p) {
    require(spec.fallback[p] == 0 || (spec.fallback[p] == 1 && p > 0 &&
                                      spec.objects[p - 1] == spec.objects[p] &&
                                      spec.fallback[p - 1] == 0),
            "a fallback row must follow its object's first row");
  }
  check_csr(spec.hold_begin, n, spec.hold_facts.size() / 2, "hold_begin");
  for (int32_t f : spec.facts) require(f >= 0 && f < task.num_facts, "fact out of range");
  for (int32_t t : spec.templates) {
    require(t >= 0 && t < task.num_templates, "template out of range");
  }
  for (int32_t g : spec.groundings) {
    require(g >= 0 && g < task.num_groundings, "grounding out of range");
  }
  for (int32_t c : spec.costs) require(c >= 0 && c <= 2, "cost code out of range");
  for (size_t i = 0; i < spec.hold_facts.size(); i += 2) {
    require(spec.hold_facts[i] >= 0 && spec.hold_facts[i] < task.num_objects,
            "hold robot out of range");
    require(spec.hold_facts[i + 1] >= 0 && spec.hold_facts[i + 1] < task.num_facts,
            "hold fact out of range");
  }
  for (size_t p = 0; p < n; ++p) {
    require(spec.fact_begin[p + 1] - spec.fact_begin[p] <= kMaxFacts,
            "a projection has more than " + std::to_string(kMaxFacts) + " facts");
  }
  require(spec.arrivals.empty() || spec.arrivals.size() == spec.groundings.size(),
          "arrivals and groundings differ in size");
  for (int32_t a : spec.arrivals) {
    require(a >= 0 && a / kArrivalSlot < kMaxFacts, "arrival code out of range");
  }
  require(spec.hand_over_places.size() % 3 == 0, "hand_over_places holds triples");
  for (size_t k = 0; k < spec.hand_over_places.size(); k += 3) {
    HandOverPlace place{spec.hand_over_places[k], spec.hand_over_places[k + 1],
                        spec.hand_over_places[k + 2], -1};
    require(place.slot >= 0 && place.slot < kMaxFacts, "hand-over robot slot out of range");
    for (int32_t f : {place.robot_at, place.container_at}) {
      require(f >= 0 && f < task.num_facts, "hand-over place fact out of range");
    }
    const TaskSpec& ts = task.spec;
    const auto at = static_cast<size_t>(place.robot_at) * static_cast<size_t>(ts.fact_args_width);
    require(at < ts.fact_args.size() && ts.fact_args[at] >= 0,
            "hand-over place: a robot position fact has no arguments");
    place.robot = ts.fact_args[at];
    hand_over_places_.push_back(place);
  }
  for (int32_t f : spec.free_hands) {
    require(f >= -1 && f < task.num_facts, "free-hand fact out of range");
  }
  require(spec.free_hands.size() <= static_cast<size_t>(kMaxFacts), "too many free-hand slots");
  free_hands_ = spec.free_hands;
  require(spec.clear_facts.empty() || spec.clear_facts.size() == n,
          "clear_facts has the wrong size");
  for (int32_t f : spec.clear_facts) {
    require(f >= -1 && f < task.num_facts, "clear fact out of range");
  }
  if (!spec.away_begin.empty()) check_csr(spec.away_begin, n, spec.away.size(), "away_begin");
  if (!spec.idle_begin.empty()) {
    check_csr(spec.idle_begin, n, spec.idle.size() / 4, "idle_begin");
    require(spec.idle.size() % 4 == 0, "idle holds quadruples");
    require(spec.idle_codes.size() == spec.groundings.size(),
            "idle_codes and groundings differ in size");
  }
  for (int32_t f : spec.idle) require(f >= 0 && f < task.num_facts, "idle fact out of range");
  for (int32_t c : spec.idle_codes) {
    require(c >= 0 && c <= (kIdleSets | kIdleBlocked), "idle code out of range");
  }
  if (!spec.colocated_begin.empty()) {
    check_csr(spec.colocated_begin, n, spec.colocated.size() / 3, "colocated_begin");
    require(spec.colocated.size() % 3 == 0, "colocated holds triples");
  }
  for (size_t k = 0; k < spec.colocated.size(); ++k) {
    const int32_t v = spec.colocated[k];
    require(k % 3 == 0 ? v >= 0 && v < kMaxFacts : v >= 0 && v < task.num_facts,
            "colocated entry out of range");
  }
  if (!spec.mutex_begin.empty()) {
    check_csr(spec.mutex_begin, spec.mutex_begin.size() - 1, spec.mutex_facts.size(),
              "mutex_begin");
  }
  if (!spec.merge_begin.empty()) {
    check_csr(spec.merge_begin, n, spec.merges.size() / 2, "merge_begin");
    require(spec.merges.size() % 2 == 0, "merges holds pairs");
    for (size_t p = 0; p < n; ++p) {
      const auto row_begin = spec.facts.begin() + spec.fact_begin[p];
      const auto row_end = spec.facts.begin() + spec.fact_begin[p + 1];
      IntVec merged_here;
      for (int32_t k = spec.merge_begin[p]; k < spec.merge_begin[p + 1]; ++k) {
        merged_here.push_back(spec.merges[2 * k]);
      }
      std::sort(merged_here.begin(), merged_here.end());
      require(std::adjacent_find(merged_here.begin(), merged_here.end()) == merged_here.end(),
              "a fact is merged twice");
      for (int32_t k = spec.merge_begin[p]; k < spec.merge_begin[p + 1]; ++k) {
        const int32_t fact = spec.merges[2 * k], rep = spec.merges[2 * k + 1];
        require(fact != rep && std::find(row_begin, row_end, fact) != row_end &&
                    std::find(row_begin, row_end, rep) != row_end &&
                    !std::binary_search(merged_here.begin(), merged_here.end(), rep),
                "a merge must pair two facts of its row, into a representative");
      }
    }
  }
  for (int32_t f : spec.mutex_facts) {
    require(f >= 0 && f < task.num_facts, "mutex fact out of range");
  }
  if (!spec.share.empty()) {
    require(spec.share.size() == n, "share has the wrong size");
    check_csr(spec.share_template_begin, n, spec.share_templates.size() / 2,
              "share_template_begin");
    require(spec.share_templates.size() % 2 == 0, "share_templates holds pairs");
    auto row_templates = [&](int32_t row) {
      IntVec t(spec.templates.begin() + spec.template_begin[row],
               spec.templates.begin() + spec.template_begin[row + 1]);
      std::sort(t.begin(), t.end());
      return t;
    };
    for (size_t j = 0; j < n; ++j) {
      const int32_t i = spec.share[j];
      require(i >= -1 && i < static_cast<int32_t>(j), "a row must share an earlier row");
      const int32_t pairs = spec.share_template_begin[j + 1] - spec.share_template_begin[j];
      if (i < 0) {
        require(pairs == 0, "a row that shares none maps no templates");
        continue;
      }
      require(spec.share[i] == -1 && spec.fallback[i] == spec.fallback[j] &&
                  spec.fact_begin[i + 1] - spec.fact_begin[i] ==
                      spec.fact_begin[j + 1] - spec.fact_begin[j],
              "a row must share a row like it that shares none");
      const IntVec mine = row_templates(static_cast<int32_t>(j)), theirs = row_templates(i);
      require(pairs == static_cast<int32_t>(mine.size()) && mine.size() == theirs.size(),
              "a sharing row maps each of its templates");
      IntVec seen;
      for (int32_t k = spec.share_template_begin[j]; k < spec.share_template_begin[j + 1]; ++k) {
        require(std::binary_search(mine.begin(), mine.end(), spec.share_templates[2 * k]) &&
                    std::binary_search(theirs.begin(), theirs.end(),
                                       spec.share_templates[2 * k + 1]),
                "a template pair must map a template of the row to one of the shared row");
        seen.push_back(spec.share_templates[2 * k]);
      }
      std::sort(seen.begin(), seen.end());
      require(seen == mine, "a sharing row maps each of its templates once");
    }
  }
  // Combinations of the key variables' candidates (distinct within a group), at most 4096.
  const TaskSpec& s = task.spec;
  const auto num_vars = static_cast<int32_t>(s.goal_var_group.size());
  if (!spec.robot_swap_fact_begin.empty()) {
    check_csr(spec.robot_swap_fact_begin, n, spec.robot_swap_facts.size() / 2,
              "robot_swap_fact_begin");
    check_csr(spec.robot_swap_template_begin, n, spec.robot_swap_templates.size() / 2,
              "robot_swap_template_begin");
    require(spec.robot_swap_facts.size() % 2 == 0 && spec.robot_swap_templates.size() % 2 == 0,
            "robot swap tables hold pairs");
    require(spec.robot_swap_facts.empty() ||
                (spec.robot_swap_slots.size() == 2 &&
                 spec.robot_swap_slots[0] != spec.robot_swap_slots[1] &&
                 std::all_of(spec.robot_swap_slots.begin(), spec.robot_swap_slots.end(),
                             [](int32_t k) { return k >= 0 && k < kMaxFacts; })),
            "a robot swap needs two distinct slots");
    // Per row, the pairs must be an involution of the row's facts (templates) without fixed
    // points, and a template's image must have its shape.
    auto involution = [&](const IntVec& begin, const IntVec& pairs, const IntVec& values_begin,
                          const IntVec& values, size_t row, bool templates) {
      std::map<int32_t, int32_t> image;
      const auto first = values.begin() + values_begin[row];
      const auto last = values.begin() + values_begin[row + 1];
      for (int32_t k = begin[row]; k < begin[row + 1]; ++k) {
        const int32_t a = pairs[2 * k], b = pairs[2 * k + 1];
        require(a != b && std::find(first, last, a) != last && std::find(first, last, b) != last,
                "a robot swap pair must map an entry of its row to another");
        require(!templates || task.spec.template_count[a] == task.spec.template_count[b],
                "a robot swap must map a template to one of its shape");
        require(image.emplace(a, b).second, "a robot swap maps an entry twice");
      }
      for (const auto& [a, b] : image) {
        const auto back = image.find(b);
        require(back != image.end() && back->second == a, "a robot swap must be an involution");
      }
    };
    for (size_t p = 0; p < n; ++p) {
      involution(spec.robot_swap_fact_begin, spec.robot_swap_facts, spec.fact_begin, spec.facts,
                 p, false);
      involution(spec.robot_swap_template_begin, spec.robot_swap_templates, spec.template_begin,
                 spec.templates, p, true);
    }
  }
  for (int32_t v : spec.key_vars) {
    require(v >= 0 && v < num_vars, "key variable out of range");
    require(s.goal_cand_begin[v + 1] > s.goal_cand_begin[v], "key variable has no candidate");
  }
  const auto keys = static_cast<int32_t>(spec.key_vars.size());
  IntVec pick(static_cast<size_t>(keys), 0);
  num_combos_ = 0;
  for (bool more = true; more;) {
    bool distinct = true;
    for (int32_t a = 0; a < keys; ++a) {
      for (int32_t b = 0; b < a; ++b) {
        const int32_t va = spec.key_vars[a], vb = spec.key_vars[b];
        distinct = distinct && !(s.goal_var_group[va] == s.goal_var_group[vb] &&
                                 s.goal_candidates[s.goal_cand_begin[va] + pick[a]] ==
                                     s.goal_candidates[s.goal_cand_begin[vb] + pick[b]]);
      }
    }
    if (distinct) {
      for (int32_t k = 0; k < keys; ++k) {
        combos_.push_back(s.goal_candidates[s.goal_cand_begin[spec.key_vars[k]] + pick[k]]);
      }
      require(++num_combos_ <= 4096, "more than 4096 key combinations");
    }
    int32_t k = 0;
    while (k < keys) {
      const int32_t v = spec.key_vars[k];
      if (++pick[k] < s.goal_cand_begin[v + 1] - s.goal_cand_begin[v]) break;
      pick[k++] = 0;
    }
    more = k < keys;
  }
  key_vars_ = spec.key_vars;
  assign_roles(spec);
  read_variants(spec);
  read_lifts(spec);
  read_clearing(spec);
  link_parks();
  // An object with two rows (the second its fallback, without the robots' positions) builds
  // the fallback first, and the full row only where its predicted size (the fallback's states
  // times size_factor) fits the caps and the distance tables' room: a failed attempt costs
  // about as much as a success. A built full row replaces its fallback (it keeps more facts, so it
  // bounds no lower). Full rows over the first caps but within the upgrade caps are built
  // afterwards, smallest first, while limits allow (ProjectionLimits); an upgrade cut short
  // keeps its fallback. Under a time limit, rows that fail under the first caps with nothing to
  // fall back on get one more try after them, under the upgrade caps.
  auto replace = [&](size_t fallback) {  // by the projection just built or shared
    if (!projections_[fallback].shared) abstract_states_ -= projections_[fallback].states;
    distance_entries_ -= projections_[fallback].entries();
    projections_[fallback] = std::move(projections_.back());
    projections_.pop_back();
  };
  // Whether `states` of the row are predicted to fit the distance tables' room, once its
  // fallback is gone: the full row has the fallback's goal atoms, so about its columns.
  // `reserved`: entries that builds in flight are predicted to add.
  auto entries_fit = [&](int64_t states, size_t fallback, int64_t reserved) {
    const Projection& f = projections_[fallback];
    const int64_t columns = f.entries() / std::max<int64_t>(1, f.states);
    return states * columns <= max_distance_entries_ - distance_entries_ - reserved + f.entries();
  };
  struct Upgrade {
    int64_t predicted;
    size_t row, fallback;  // the full row; its fallback's index in projections_
    bool retry = false;    // a row that failed under the first caps (no fallback to replace)
    double per_state = 0;  // a retry's seconds per state in its failed build
    bool sink_first = false;  // built with its repeated timers led to the sink from the start
  };
  std::deque<Upgrade> upgrades;  // (jobs point into it while it grows)
  const int64_t max_states = limits.max_states, max_total = limits.max_total_states;
  // A full row that repeats timers is built with a sink when predicted larger than this
  // without: the upgrade cap, and under caps grown with a long time limit still the cap before
  // growing (sink_states keeps it). On multi_agent/8 seed 84 a chicken's row, tried without the
  // sink under caps grown 6 times, did not fit and left its fallback: the start bound fell from
  // 48 (the default caps) to 42 at 30 s; seed 336 from 47 to 42.
  const int64_t sink_above = limits.sink_states >= 0   ? limits.sink_states
                             : limits.retry_states >= 0 ? std::min(limits.retry_states,
                                                                   limits.upgrade_states)
                                                        : limits.upgrade_states;
  auto seconds = [&]() { return std::chrono::duration<double>(clock::now() - started).count(); };
  // Rows are built on builders (copies of this heuristic's construction state without its
  // rows: build() writes only the builder's scratch, counters and rows), up to limits.threads
  // at once. This thread alone decides what to build, keeps or drops each row under the caps as
  // they stand when it is committed, and calls `stop` (it may call back into Python); builders
  // on other threads read `halted`, which it sets.
  const auto workers = static_cast<size_t>(std::max<int32_t>(1, limits.threads));
  const bool timed = limits.upgrade_seconds > 0;
  std::atomic<bool> halted{false};
  const std::function<bool()> halt_build = [&]() {
    return halted.load(std::memory_order_relaxed);
  };
  // Upgrades start within the upgrade share only; one still running at its end is dropped only
  // kUpgradeGrace of it later.
  const std::function<bool()> halt_upgrade = [&]() {
    return halt_build() ||
           (timed && seconds() > limits.upgrade_seconds * (1 + kUpgradeGrace));
  };
  auto past_share = [&]() { return timed && seconds() > limits.upgrade_seconds; };
  const std::function<bool()> halting_build = [&]() {  // this thread only
    if (!halt_build() && stop && stop()) halted.store(true);
    return halt_build();
  };
  const std::function<bool()> halting_upgrade = [&]() {  // this thread only
    return halting_build() || halt_upgrade();
  };
  struct Job {
    size_t row = 0;
    size_t full = kNoRow;      // first pass: the object's full row, when `row` is its fallback
    size_t fallback = kNoRow;  // a full row or upgrade: its fallback's index in projections_
    int64_t predicted = 0;
    bool sink_first = false;  // built with a sink (projection.h, "Repeated timers")
    const Upgrade* upgrade = nullptr;
    int64_t reserved_entries = 0;  // an upgrade's predicted distance entries
    // First pass: a full row started before its fallback's turn (see below); one its turn
    // did not want is cancelled and dropped.
    bool ahead_of_fallback = false, full_started = false;
    std::atomic<bool> cancelled{false};
    std::function<bool()> halt;  // a full row's, started ahead: also reads `cancelled`
    std::unique_ptr<ProjectionHeuristic> builder;
    int32_t helpers = 0;  // threads that help build it (build_row)
    bool started = false, reaped = false, built = false;
    bool done = false;  // under finished_mutex
    double seconds = 0;
    std::exception_ptr error;
    std::thread thread;
  };
  std::list<Job> jobs;  // a list: a running builder's Job never moves
  std::mutex finished_mutex;
  std::condition_variable finished;
  size_t running = 0;  // jobs started on a thread and not reaped yet
  // Every path out of this scope (an exception included) stops and joins the builders.
  struct JoinAll {
    std::list<Job>& jobs;
    std::atomic<bool>& halted;
    ~JoinAll() {
      halted.store(true);
      for (Job& job : jobs) {
        if (job.thread.joinable()) job.thread.join();
      }
    }
  } join_all{jobs, halted};
  // Seconds spent building (each build's own time: with several at once, wall time would make
  // the next one look faster than it is).
  double busy = 0;
  std::exception_ptr error;
  // Per row, whether a build of it ended without the row (not cancelled; see `live_share`).
  std::vector<uint8_t> failed(n, 0);
  auto reap = [&](Job& job) {  // once the job is done
    if (job.reaped) return;
    job.reaped = true;
    if (!job.built && !job.cancelled.load()) failed[job.row] = 1;
    if (job.thread.joinable()) {
      job.thread.join();
      --running;
    }
    busy += job.seconds * (1 + kHelperGain * job.helpers);
    enumerated_states_ += job.builder->enumerated_states_;
    if (job.error && !error) error = job.error;
  };
  auto pending = [&](const Job& j) { return j.started && !j.reaped; };
  // Reaps every started job whose build has ended; returns how many.
  auto reap_ended = [&]() {
    std::vector<Job*> ended;
    {
      const std::lock_guard lock(finished_mutex);
      for (Job& j : jobs) {
        if (pending(j) && j.done) ended.push_back(&j);
      }
    }
    for (Job* j : ended) reap(*j);
    return ended.size();
  };
  // Waits until some started job's build ends (none running: at once) and reaps it, polling
  // `stop` meanwhile.
  auto wait_any = [&]() {
    while (std::any_of(jobs.begin(), jobs.end(), pending) && reap_ended() == 0) {
      {
        std::unique_lock lock(finished_mutex);
        finished.wait_for(lock, std::chrono::milliseconds(5), [&]() {
          return std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) {
            return pending(j) && j.done;
          });
        });
      }
      halting_build();
    }
  };
  // Starts `job`'s build under `cap`: on a thread (reading `worker_halt`), waiting for one to
  // be free, or here on one thread (polling `halt`).
  auto start = [&](Job& job, int64_t cap, const std::function<bool()>& worker_halt,
                   const std::function<bool()>& halt) {
    while (workers > 1 && running >= workers) wait_any();
    job.started = true;
    job.builder = builder();
    job.builder->row_helpers_ = job.helpers;
    for (const Job& other : jobs) {
      if (&other != &job && other.started && !other.reaped) {
        job.builder->distance_entries_ += other.reserved_entries;
      }
    }
    Job* const at = &job;
    auto work = [&spec, &seconds, at, words, counters, cap](const std::function<bool()>& halt) {
      const double begin = seconds();
      try {
        at->built = cap > 0 && at->builder->build(spec, static_cast<int32_t>(at->row), words,
                                                  counters, cap, halt, at->sink_first);
      } catch (...) {
        at->error = std::current_exception();
      }
      at->seconds = seconds() - begin;
    };
    if (workers > 1) {
      try {
        job.thread = std::thread([&worker_halt, &finished_mutex, &finished, at, work]() {
          work(worker_halt);
          {
            const std::lock_guard lock(finished_mutex);
            at->done = true;
          }
          finished.notify_all();
        });
        ++running;
        return;
      } catch (const std::system_error&) {
        // No thread to be had: build it here.
      }
    }
    work(halt);
    const std::lock_guard lock(finished_mutex);
    job.done = true;
  };
  // Keeps a reaped job's row if it fits the caps as they stand now (those build() applied,
  // with what was committed since it started); `room`: states its fallback gives back.
  auto keep = [&](Job& job, int64_t total_cap, int64_t room) {
    if (!job.built) return false;
    Projection& row = job.builder->projections_.back();
    if (row.states > total_cap - abstract_states_ + room ||
        distance_entries_ + row.entries() > max_distance_entries_) {
      return false;
    }
    abstract_states_ += row.states;
    distance_entries_ += row.entries();
    row.with_sink = job.builder->built_with_sink_;
    projections_.push_back(std::move(row));
    return true;
  };
  // First pass. Rows are committed in the order one thread would build them (an object's
  // fallback, then its full row when it is predicted to fit), so the same rows are kept;
  // further threads start, ahead of their turn, the rows that do not share another row's
  // tables and have no fallback, or are one (each is built unless construction stops), and a
  // full row (sharing none) as soon as its fallback is built and predicts it within the row
  // cap (its turn may still not want it: then it is cancelled). Those run under the row cap
  // alone; the total is checked when they are committed in their turn.
  for (size_t row = 0; row < n; ++row) {
    if (spec.fallback[row]) continue;  // built with the row before it
    Job& job = jobs.emplace_back();
    const bool has_fallback = row + 1 < n && spec.fallback[row + 1] != 0;
    job.row = has_fallback ? row + 1 : row;
    job.full = has_fallback ? row : kNoRow;
  }
  auto shares = [&](size_t row) { return !spec.share.empty() && spec.share[row] >= 0; };
  // Whether `row` may still share its row's tables in this pass: not once that row's build
  // failed (it is built again only among the upgrades).
  auto live_share = [&](size_t row) {
    return shares(row) && failed[static_cast<size_t>(spec.share[row])] == 0;
  };
  // A row whose shared row failed in this pass is not built in it either where the upgrade
  // pass tries it again (a full row is queued as an upgrade; under a time limit any row gets a
  // retry): it is about as large (its shared row's enumeration starts from its start state
  // too), and there it waits for its shared row, whose tables it then shares at no cost. It
  // counts as failed as its shared row did (the same rate and size predict its retry). On the
  // original multi_agent/10 the three twins of the pots' rows that failed took 1.2 s of the
  // first pass's 1.6 s on two threads, and failed too.
  auto deferred_twin = [&](size_t row, bool full_row) {
    return (full_row || timed) && shares(row) && !live_share(row);
  };
  struct Failure {
    bool with_sink = false;  // its build ended with a sink
    int64_t over_cap = 0;    // states it expanded when it went over the cap
    double seconds = 0;
  };
  std::vector<Failure> failures(n);  // per row, its failed first-pass build
  auto predict_full = [&](size_t full, int64_t coarse) {
    return coarse * size_factor(task_, spec, full, full + 1);
  };
  while (!jobs.empty()) {
    reap_ended();
    for (auto it = jobs.begin(); workers > 1 && it != jobs.end(); ++it) {
      if (it == jobs.begin() || it->full == kNoRow || !it->reaped || !it->built ||
          it->full_started || shares(it->full)) {
        continue;
      }
      it->full_started = true;
      const int64_t predicted = predict_full(it->full, it->builder->projections_.back().states);
      if (predicted > max_states) continue;
      Job& full = *jobs.emplace(std::next(it));
      full.row = it->full;
      full.ahead_of_fallback = true;
      full.predicted = predicted;
      full.halt = [&halted, at = &full]() {
        return halted.load(std::memory_order_relaxed) ||
               at->cancelled.load(std::memory_order_relaxed);
      };
    }
    for (Job& ahead : jobs) {
      if (workers == 1 || running >= workers) break;
      if (!ahead.started && ahead.ahead_of_fallback && !ahead.cancelled.load()) {
        start(ahead, max_states, ahead.halt, halting_build);
      } else if (!ahead.started && ahead.fallback == kNoRow && !ahead.ahead_of_fallback &&
                 !live_share(ahead.row) && !deferred_twin(ahead.row, false)) {
        start(ahead, max_states, halt_build, halting_build);
      }
    }
    Job& job = jobs.front();
    if (job.cancelled.load()) {  // dropped
      if (pending(job)) {
        wait_any();
      } else {
        jobs.pop_front();
      }
      continue;
    }
    const bool full_row = job.fallback != kNoRow;
    const int64_t room = full_row ? projections_[job.fallback].states : 0;
    bool kept = false;
    const bool deferred = !job.started && deferred_twin(job.row, full_row);
    if (!job.started && !full_row && share_row(spec, job.row)) {
      kept = true;
    } else if (deferred) {
      failed[job.row] = 1;
    } else {
      if (!job.started) {
        start(job, std::min(max_states, max_total - abstract_states_ + room), halt_build,
              halting_build);
      }
      if (!job.reaped) {  // wait for some build to end, then look again
        wait_any();
        continue;
      }
      kept = keep(job, max_total, room);
    }
    const size_t row = job.row, full = job.full, fallback = job.fallback;
    const int64_t predicted = job.predicted;
    const bool sink_first = job.sink_first;
    // Whether its build (failed or not) ended with a sink.
    Failure& failure = failures[row];
    failure = deferred ? failures[static_cast<size_t>(spec.share[row])]
                       : Failure{job.builder && job.builder->built_with_sink_,
                                 job.built || !job.builder ? 0 : job.builder->over_cap_expanded_,
                                 job.seconds};
    const bool with_sink = failure.with_sink;
    const int64_t over_cap = failure.over_cap;
    const double build_seconds = failure.seconds;
    jobs.pop_front();
    // The full row started ahead of this fallback, if any (now at the front).
    Job* const ahead =
        !jobs.empty() && jobs.front().ahead_of_fallback && jobs.front().row == full
            ? &jobs.front()
            : nullptr;
    auto drop_ahead = [&]() {
      if (ahead == nullptr) return;
      ahead->cancelled.store(true);
    };
    if (full_row) {
      if (kept) {
        replace(fallback);
      } else if (halting_build()) {
        break;
      } else {
        // Larger than predicted (the arrival bits, say): the upgrade pass tries it again.
        upgrades.push_back({std::max(predicted, max_states + 1), row, fallback, false, 0,
                            sink_first});
      }
      continue;
    }
    if (!kept) {
      drop_ahead();
      if (halting_build()) break;
      // A row without a fallback, or a fallback, is tried again under the upgrade caps after
      // the upgrades, only under a time limit, which the failed build's rate lets the retry
      // respect; without one a retry could spend seconds on a row that fails again (small
      // random tasks do). A fallback that failed leaves its full row out (it has at least as
      // many states). One that failed with a sink too was predicted to exceed the upgrade caps
      // without it (build()) and does not get one more try with it: that prediction, from how
      // far the build got, is too rough to spend the upgrade pass's seconds on.
      if (timed && !with_sink) {
        upgrades.push_back({retry_size(max_states, over_cap, limits.upgrade_states), row, 0,
                            true, build_seconds / static_cast<double>(max_states)});
      }
      continue;
    }
    if (full == kNoRow) continue;
    const size_t built_fallback = projections_.size() - 1;
    if (share_row(spec, full)) {
      drop_ahead();
      replace(built_fallback);
      continue;
    }
    const int64_t coarse = projections_[built_fallback].states;
    int64_t full_predicted = predict_full(full, coarse);
    auto too_large = [&](int64_t states) {
      return states > std::min(max_states, max_total - abstract_states_ + coarse) ||
             !entries_fit(states, built_fallback, 0);
    };
    // Too large even for the upgrade caps, it can only be built with a sink (see "Repeated
    // timers"), if it repeats timers: then its size is predicted from its fallback built with
    // the sink too (a few thousand states, built here and dropped). A fallback that needed the
    // sink itself (build()) already predicts its full row with one, which needs it too.
    bool full_sink = false;
    if (with_sink && repeats_timers(spec, full)) {
      full_sink = true;
    } else if (too_large(full_predicted) && full_predicted > sink_above &&
               timer_sinks_ && repeats_timers(spec, full)) {
      const auto sized = builder();
      if (sized->build(spec, static_cast<int32_t>(row), words, counters, max_states,
                       halting_build, true)) {
        full_sink = true;
        full_predicted = predict_full(full, sized->projections_.back().states);
      }
      enumerated_states_ += sized->enumerated_states_;
    }
    if (too_large(full_predicted)) {
      drop_ahead();
      upgrades.push_back({full_predicted, full, built_fallback, false, 0, full_sink});
      continue;
    }
    if (full_sink) drop_ahead();
    // Committed before the rows queued after it. (A builder may be reading the row of the
    // one started ahead: only what it does not read is written.)
    Job& next = ahead != nullptr && !full_sink ? *ahead : jobs.emplace_front();
    if (&next != ahead) next.row = full;
    next.fallback = built_fallback;
    next.predicted = full_predicted;
    next.sink_first = full_sink;
  }
  // Rows started ahead of a stop: wait for them and drop them.
  if (!jobs.empty()) halted.store(true);
  while (std::any_of(jobs.begin(), jobs.end(), pending)) wait_any();
  jobs.clear();

  // Upgrade pass: upgrades are launched in order of predicted size, retries after the others,
  // and committed as they end; a launch also counts against the caps what the upgrades in
  // flight are predicted to add. A retry's size is predicted from a failed enumeration and may
  // be far too small (multi_agent/10 seed 126: 506,766 states predicted, over 2.9M found): one
  // that fails again runs to the end of the share, so it comes after the upgrades whose
  // predictions come from built rows.
  std::stable_sort(upgrades.begin(), upgrades.end(), [](const Upgrade& a, const Upgrade& b) {
    return std::pair(a.retry, a.predicted) < std::pair(b.retry, b.predicted);
  });
  // A fallback that failed under the first caps and was built as a retry (the last row kept)
  // gets its full row as an upgrade too, predicted from it, after those queued. One built with
  // the sink predicts its full row with the sink, so that row is built with it from the start,
  // as in the first pass: without it, the row is far larger than predicted (multi_agent/10
  // seeds 84 and 126 under a 30 s search's caps: it failed after 1.8M and 1.3M states, 6-7 s
  // each; with the sink it has 752,000 and 373,000).
  auto follow_up = [&](size_t row) {
    if (spec.fallback[row] == 0) return;
    const size_t built = projections_.size() - 1;
    const bool sink = projections_[built].with_sink && repeats_timers(spec, row - 1);
    upgrades.push_back(
        {predict_full(row - 1, projections_[built].states), row - 1, built, false, 0, sink});
  };
  auto commit_ended = [&]() {  // the upgrades whose builds ended
    for (auto it = jobs.begin(); it != jobs.end();) {
      if (!it->reaped) {
        ++it;
        continue;
      }
      const Upgrade& u = *it->upgrade;
      if (keep(*it, limits.upgrade_total_states,
               u.retry ? 0 : projections_[u.fallback].states)) {
        if (u.retry) {
          follow_up(u.row);
        } else {
          replace(u.fallback);
        }
      }
      it = jobs.erase(it);
    }
  };
  auto wait_and_commit = [&]() {
    wait_any();
    commit_ended();
  };
  size_t next = 0;  // the first upgrade not yet taken up
  // A row that shares one still to come waits for it (sharing its tables costs nothing) while
  // the upgrades after it start: on multi_agent/10 every large row has such a twin, and waiting
  // in line for each ran the upgrades one at a time on two threads (with a 60 s limit its
  // largest row started at 3.5-4.0 s instead of 2.9 s). Still to come: in flight, queued after
  // it, or the follow-up of its fallback's retry in flight or queued. A twin that built itself
  // instead, ahead of its shared row (its fallback's retry ended first), took the caps' room,
  // so one of the two was dropped: multi_agent/10 seed 420 then started at 50, not 54, under a
  // 30-minute search's caps, depending on which retry ended first.
  auto source_to_come = [&](const Upgrade& u) {
    if (!shares(u.row)) return false;
    const auto source = static_cast<size_t>(spec.share[u.row]);
    auto comes_from = [&](size_t row, bool retry) {
      return row == source ||
             (retry && row == source + 1 && source + 1 < n && spec.fallback[source + 1] != 0);
    };
    return std::any_of(jobs.begin(), jobs.end(),
                       [&](const Job& j) { return comes_from(j.row, j.upgrade->retry); }) ||
           std::any_of(upgrades.begin() + static_cast<std::ptrdiff_t>(next), upgrades.end(),
                       [&](const Upgrade& w) { return comes_from(w.row, w.retry); });
  };
  std::deque<const Upgrade*> waiting;  // in the order they came up
  for (; next < upgrades.size() || !jobs.empty() || !waiting.empty();) {
    const auto ready = std::find_if(waiting.begin(), waiting.end(),
                                    [&](const Upgrade* w) { return !source_to_come(*w); });
    if (ready == waiting.end() && next == upgrades.size()) {
      wait_and_commit();  // the rest may queue follow-ups, or free a waiting row
      continue;
    }
    const Upgrade& u = ready != waiting.end() ? **ready : upgrades[next++];
    if (ready != waiting.end()) waiting.erase(ready);
    if (halting_build()) break;
    if (source_to_come(u)) {
      waiting.push_back(&u);
      continue;
    }
    // Its shared row got built: no cost, so also once the upgrades' time is up (on the
    // original multi_agent/10 under a 10 s limit the pots' row for both waters ended just
    // before it, and pot 2's twin of it was left out).
    if (share_row(spec, u.row)) {
      if (u.retry) {
        follow_up(u.row);
      } else {
        replace(u.fallback);
      }
      continue;
    }
    if (past_share()) continue;  // no more builds
    while (workers > 1 && running >= workers) wait_and_commit();
    const int64_t coarse = u.retry ? 0 : projections_[u.fallback].states;
    int64_t reserved_states = 0, reserved_entries = 0;
    for (const Job& j : jobs) {
      reserved_states +=
          j.upgrade->predicted - (j.upgrade->retry ? 0 : projections_[j.fallback].states);
      reserved_entries += j.reserved_entries;
    }
    // The seconds per state enumerated so far (in every build: kept, replaced or failed)
    // predict the upgrade's time.
    const double per_state =
        u.retry ? u.per_state
                : busy / static_cast<double>(std::max<int64_t>(enumerated_states_, 1));
    // The last upgrade to build, started while nothing else is built (those queued after it
    // only share rows), gets the idle threads as helpers: on the original multi_agent/10 that
    // is the pots' row for both waters (1.1M states), built alone on one of two threads for
    // 4.3-4.8 s.
    const bool last = std::all_of(upgrades.begin() + static_cast<std::ptrdiff_t>(next),
                                  upgrades.end(), [&](const Upgrade& w) { return shares(w.row); });
    const int32_t helpers =
        workers > 1 && running == 0 && jobs.empty() && last ? static_cast<int32_t>(workers) - 1
                                                            : 0;
    const double expected = seconds() + per_state * static_cast<double>(u.predicted) /
                                             (1 + kHelperGain * helpers);
    const int64_t row_cap =
        u.retry && limits.retry_states >= 0 ? limits.retry_states : limits.upgrade_states;
    const int64_t cap = std::min(
        row_cap, limits.upgrade_total_states - abstract_states_ - reserved_states + coarse);
    // Too slow or too large now; a later entry may still fit (retries have their own rates).
    if ((timed && expected > limits.upgrade_seconds) || u.predicted > cap) continue;
    int64_t entries = 0;
    if (!u.retry) {
      if (!entries_fit(u.predicted, u.fallback, reserved_entries)) continue;
      const Projection& f = projections_[u.fallback];
      entries = u.predicted * (f.entries() / std::max<int64_t>(1, f.states));
    }
    Job& job = jobs.emplace_back();
    job.row = u.row;
    job.fallback = u.retry ? kNoRow : u.fallback;
    job.upgrade = &u;
    job.sink_first = u.sink_first;
    job.reserved_entries = entries;
    job.helpers = helpers;
    start(job, cap, halt_upgrade, halting_upgrade);
    if (workers == 1) wait_and_commit();
  }
  while (!jobs.empty()) wait_and_commit();
  if (error) std::rethrow_exception(error);
  coarse_rows_ = static_cast<int32_t>(std::count(spec.fallback.begin(), spec.fallback.end(), 0));
  for (const Projection& p : projections_) {
    if (p.row < 0 || spec.fallback[static_cast<size_t>(p.row)] != 0) continue;
    --coarse_rows_;
    if (p.with_sink) ++sink_rows_;
  }
  // Members of each group; a variable is free when some candidate of it is not a member.
  for (size_t i = 0; i < projections_.size(); ++i) {
    const Projection& p = projections_[i];
    if (p.variant_group >= 0) {  // summed per creator group (see "Creators")
      CreatorGroup& g = creator_groups_[static_cast<size_t>(p.variant_group)];
      g.row_of[static_cast<size_t>((p.variant_creator << g.made) + p.variant_mask)] =
          static_cast<int32_t>(i);
      continue;
    }
    (p.group >= 0 ? groups_[p.group].members : ungrouped_).push_back(static_cast<int32_t>(i));
  }
  for (RoleGroup& g : groups_) {
    for (size_t j = 0; j < g.vars.size(); ++j) {
      const int32_t v = g.vars[j];
      for (int32_t k = s.goal_cand_begin[v]; k < s.goal_cand_begin[v + 1]; ++k) {
        const bool member = std::any_of(g.members.begin(), g.members.end(), [&](int32_t m) {
          return projections_[m].object == s.goal_candidates[k];
        });
        if (!member) g.free_vars |= uint32_t{1} << j;
      }
    }
    // Combinations that give every member's every role the same columns (and lifted roles
    // the same value of K) always match at the same cost: match() computes one per class.
    std::map<IntVec, int32_t> class_of;
    IntVec signature;
    for (int32_t c = 0; c < num_combos_; ++c) {
      signature.clear();
      for (int32_t m : g.members) {
        const Projection& p = projections_[m];
        for (size_t r = 0; r < p.roles.size(); ++r) {
          const size_t at = static_cast<size_t>(c) * p.width + r;
          signature.push_back(p.column_of[at]);
          if (p.via.empty()) continue;
          signature.push_back(p.via_column_of[at]);
          const int32_t e = p.lift_of_role[r];
          signature.push_back(e < 0 ? -1 : lifts_[e].value_of_combo[c]);
        }
      }
      const auto [it, fresh] =
          class_of.emplace(signature, static_cast<int32_t>(g.class_combos.size()));
      if (fresh) g.class_combos.push_back(c);
      g.combo_class.push_back(it->second);
    }
    for (int32_t m : g.members) {
      const Projection& p = projections_[m];
      g.role_begin.push_back(static_cast<int32_t>(g.role_columns.size()));
      for (size_t r = 0; r < p.roles.size(); ++r) {
        const int32_t e = p.via.empty() ? -1 : p.lift_of_role[r];
        for (const int32_t c : g.class_combos) {
          const auto at = static_cast<size_t>(c) * p.width + r;
          const bool liftable = e >= 0 && p.via_column_of[at] >= 0;
          const auto park_begin = static_cast<int32_t>(g.park_refs.size());
          for (size_t t = 0; t < p.parks.size() && liftable; ++t) {
            const ParkLink& link = park_links_[static_cast<size_t>(p.parks[t].link)];
            if (link.lift != e) continue;
            g.park_refs.emplace_back(static_cast<int32_t>(t),
                                     link.flag_begin + lifts_[e].value_of_combo[c]);
          }
          g.role_columns.push_back(
              {p.column_of[at], liftable ? p.via_column_of[at] : -1,
               liftable ? lift_flag(lifts_[e], p.object, lifts_[e].value_of_combo[c]) : -1,
               park_begin, static_cast<int32_t>(g.park_refs.size())});
        }
      }
    }
    for (size_t k = 0; k < g.members.size(); ++k) {
      const int32_t object = projections_[g.members[k]].object;
      for (size_t st = 0; st < clearing_stations_.size(); ++st) {
        const IntVec& covers = clearing_stations_[st].covers;
        for (size_t c = 0; c < covers.size(); c += 2) {
          if (covers[c] != object) continue;
          g.covers.push_back(
              {static_cast<int32_t>(k), static_cast<int32_t>(st), covers[c + 1]});
        }
      }
    }
    std::map<int32_t, uint64_t> cover_words;
    for (const RoleGroup::Cover& cover : g.covers) {
      cover_words[cover.at / 64] |= uint64_t{1} << (cover.at % 64);
    }
    for (const auto& [word, mask] : cover_words) g.cover_masks.push_back({word, mask});
    g.skip.assign(g.covers.empty() ? 0 : g.members.size(), 0);
    // The entries of missing_ that its matching reads, kept in its key as bits.
    for (const RoleGroup::RoleColumn& rc : g.role_columns) {
      if (rc.missing >= 0) g.flags.push_back(rc.missing);
    }
    for (const auto& [table, flag] : g.park_refs) g.flags.push_back(flag);
    std::sort(g.flags.begin(), g.flags.end());
    g.flags.erase(std::unique(g.flags.begin(), g.flags.end()), g.flags.end());
    const size_t key_bytes = 4 * g.members.size() + (g.flags.size() + 7) / 8 + g.skip.size();
    g.key_units = (key_bytes + 1) / 2;
    g.stride = g.key_units + static_cast<size_t>(num_combos_);
    g.key.assign(g.key_units, 0);
  }
  for (Projection& p : projections_) {
    std::map<int32_t, uint64_t> masks;  // by word, in order
    for (int32_t f : p.facts) masks[f / 64] |= uint64_t{1} << (f % 64);
    for (const auto& [bit, f] : p.merged) masks[f / 64] |= uint64_t{1} << (f % 64);
    // find() also reads, outside F, where hand-overs can happen and the robot's hand where
    // the row has idling.
    IntVec outside;
    if (p.picked_bit >= 0) {
      for (const HandOverPlace& at : hand_over_places_) {
        outside.insert(outside.end(), {at.robot_at, at.container_at});
      }
    }
    if (p.idle_bit >= 0) outside.push_back(p.idle_free);
    if (p.covered >= 0) outside.push_back(p.covered);
    for (int32_t f : outside) masks[f / 64] |= uint64_t{1} << (f % 64);
    for (const auto& [word, mask] : masks) p.watched.push_back({word, mask});
    // The placed away robots' positions, per watched word (every one is a fact of F).
    std::map<int32_t, Projection::WordPositions> positions;
    for (size_t k = 0; k < p.away_slots.size(); ++k) {
      if (!p.away_slots[k].placed) continue;
      for (int32_t bit = 0; bit < kMaxFacts; ++bit) {
        if (!p.away_slots[k].positions.test(bit)) continue;
        const int32_t f = p.facts[static_cast<size_t>(bit)];
        Projection::WordPositions& word = positions[f / 64];
        word.mask |= uint64_t{1} << (f % 64);
        word.at[static_cast<size_t>(f % 64)] = {static_cast<int16_t>(k), static_cast<int16_t>(bit)};
      }
    }
    if (!positions.empty()) {
      for (const FactMask& m : p.watched) p.watched_positions.push_back(positions[m.word]);
    }
  }
  // The hands matter only to a row where a robot stands at its object (see find()).
  std::map<int32_t, uint64_t> hand_masks;
  for (int32_t f : free_hands_) {
    if (f >= 0) hand_masks[f / 64] |= uint64_t{1} << (f % 64);
  }
  for (const auto& [word, mask] : hand_masks) hand_masks_.push_back({word, mask});
  hand_read_.assign(projections_.size(), 0);
  row_bits_.assign(projections_.size(), Bits{});
  row_away_.assign(projections_.size(), 0);
  ids_.assign(projections_.size(), -1);
  id_changed_.assign(projections_.size(), 0);
  rows_ = std::make_shared<const std::vector<Projection>>(std::move(projections_));
  projections_.clear();
}

void ProjectionHeuristic::read_clearing(const ProjectionSpec& spec) {
  const IntVec& e = spec.clearing;
  if (e.empty()) return;
  size_t i = 0;
  auto next = [&]() {
    require(i < e.size(), "the clearing entries are cut short");
    return e[i++];
  };
  auto count = [&]() {
    const int32_t n = next();
    require(n >= 0 && static_cast<size_t>(n) <= e.size() - i, "the clearing entries are cut short");
    return n;
  };
  auto fact = [&]() {
    const int32_t f = next();
    require(f >= 0 && f < task_.num_facts, "clearing fact out of range");
    return f;
  };
  // A count, then that many (object, fact) pairs.
  auto object_facts = [&](IntVec& pairs) {
    const int32_t n = count();
    for (int32_t k = 0; k < n; ++k) {
      const int32_t object = next();
      require(object >= 0 && object < task_.num_objects, "clearing object out of range");
      pairs.push_back(object);
      pairs.push_back(fact());
    }
  };
  clearing_mode_ = next();
  require(clearing_mode_ >= kClearPicks && clearing_mode_ <= kClearFollowUps,
          "unknown clearing mode");
  const int32_t stations = count();
  for (int32_t s = 0; s < stations; ++s) {
    ClearingStation station;
    const int32_t pairs = count();
    for (int32_t k = 0; k < 2 * pairs; ++k) station.ready.push_back(fact());
    const int32_t items = count();
    for (int32_t k = 0; k < items; ++k) {
      ClearingItem item;
      item.at = fact();
      const int32_t blocks = count();
      for (int32_t b = 0; b < blocks; ++b) item.blocks.push_back(fact());
      station.items.push_back(std::move(item));
    }
    object_facts(station.covers);
    clearing_stations_.push_back(std::move(station));
  }
  const int32_t requirements = count();
  int32_t groups = 0;
  for (int32_t r = 0; r < requirements; ++r) {
    ClearingRequirement requirement;
    requirement.group = next();
    require(requirement.group >= 0 && requirement.group < requirements,
            "clearing group out of range");
    groups = std::max(groups, requirement.group + 1);
    const int32_t facts = count();
    for (int32_t k = 0; k < facts; ++k) requirement.void_facts.push_back(fact());
    const int32_t templates = count();
    for (int32_t k = 0; k < templates; ++k) {
      const int32_t t = next();
      require(t >= 0 && t < task_.num_templates, "clearing template out of range");
      requirement.void_templates.push_back(t);
    }
    const int32_t at = count();
    require(at > 0, "a clearing requirement needs a station");
    for (int32_t k = 0; k < at; ++k) {
      const int32_t station = next();
      require(station >= 0 && station < stations, "clearing station out of range");
      requirement.stations.push_back(station);
    }
    if (at == 1) {
      clearing_stations_[static_cast<size_t>(requirement.stations[0])].alone.push_back(r);
    }
    clearing_requirements_.push_back(std::move(requirement));
  }
  const int32_t parks = count();
  const auto num_vars = static_cast<int32_t>(task_.spec.goal_var_group.size());
  for (int32_t k = 0; k < parks; ++k) {
    Park park;
    park.requirement = next();
    require(park.requirement >= 0 && park.requirement < requirements,
            "park requirement out of range");
    require(clearing_requirements_[static_cast<size_t>(park.requirement)].stations.size() == 1,
            "a park's requirement must have one station");
    park.variable = next();
    require(park.variable >= 0 && park.variable < num_vars, "park variable out of range");
    object_facts(park.robots);
    object_facts(park.at);
    parks_.push_back(std::move(park));
  }
  require(i == e.size(), "the clearing entries run on past their parks");
  station_costs_.assign(clearing_stations_.size(), -1);
  group_costs_.assign(static_cast<size_t>(groups), 0);
  requirement_open_.assign(clearing_requirements_.size(), 0);
}

void ProjectionHeuristic::link_parks() {
  for (size_t k = 0; k < parks_.size(); ++k) {
    for (size_t e = 0; e < lifts_.size(); ++e) {
      const IntVec& vars = lifts_[e].companion_vars;
      for (size_t j = 0; j < vars.size(); ++j) {
        if (vars[j] != parks_[k].variable) continue;
        park_links_.push_back({static_cast<int32_t>(k), static_cast<int32_t>(e),
                               static_cast<int32_t>(j), static_cast<int32_t>(missing_.size())});
        missing_.resize(missing_.size() + lifts_[e].companions.size(), 0);
      }
    }
  }
}

void ProjectionHeuristic::open_requirements(const uint64_t* words, const int32_t* counters) {
  const int32_t listed = counters[1];
  const int32_t* active = counters + 2;
  for (size_t r = 0; r < clearing_requirements_.size(); ++r) {
    const ClearingRequirement& requirement = clearing_requirements_[r];
    const bool met = std::any_of(requirement.void_facts.begin(), requirement.void_facts.end(),
                                 [&](int32_t f) { return test_bit(words, f); });
    const bool running =
        std::any_of(active, active + listed, [&](int32_t t) {
          return std::find(requirement.void_templates.begin(), requirement.void_templates.end(),
                           t) != requirement.void_templates.end();
        });
    requirement_open_[r] = met || running ? 0 : 1;
  }
}

bool ProjectionHeuristic::ready_at(const ClearingStation& station, const uint64_t* words) {
  for (size_t k = 0; k < station.ready.size(); k += 2) {
    if (test_bit(words, station.ready[k]) && test_bit(words, station.ready[k + 1])) return true;
  }
  return false;
}

bool ProjectionHeuristic::skip_costs(const uint64_t* words) {
  bool changed = false;
  for (RoleGroup& group : groups_) {
    if (group.covers.empty()) continue;
    // Mostly no member stands at a station it covers: nothing to look up then.
    const bool some_at = std::any_of(
        group.cover_masks.begin(), group.cover_masks.end(),
        [&](const FactMask& m) { return (words[m.word] & m.mask) != 0; });
    if (!some_at && !group.skipping) continue;
    skip_before_.assign(group.skip.begin(), group.skip.end());
    std::fill(group.skip.begin(), group.skip.end(), 0);
    for (const RoleGroup::Cover& cover : group.covers) {
      if (!test_bit(words, cover.at)) continue;
      const ClearingStation& station = clearing_stations_[static_cast<size_t>(cover.station)];
      const bool open = std::any_of(station.alone.begin(), station.alone.end(), [&](int32_t r) {
        return requirement_open_[static_cast<size_t>(r)] != 0;
      });
      if (!open) continue;
      int32_t cost = 1;  // its pick
      if (clearing_mode_ >= kClearArrivals && !ready_at(station, words)) ++cost;
      if (clearing_mode_ >= kClearFollowUps) ++cost;
      uint8_t& skip = group.skip[static_cast<size_t>(cover.member)];
      skip = std::max(skip, static_cast<uint8_t>(cost));
    }
    group.skipping = std::any_of(group.skip.begin(), group.skip.end(),
                                 [](uint8_t cost) { return cost != 0; });
    changed = changed || group.skip != skip_before_;
  }
  return changed;
}

int32_t ProjectionHeuristic::clearing(const uint64_t* words) {
  if (clearing_requirements_.empty()) return 0;
  std::fill(station_costs_.begin(), station_costs_.end(), -1);
  std::fill(group_costs_.begin(), group_costs_.end(), 0);
  auto station_cost = [&](int32_t index) {
    int32_t& cost = station_costs_[static_cast<size_t>(index)];
    if (cost >= 0) return cost;
    const ClearingStation& station = clearing_stations_[static_cast<size_t>(index)];
    int32_t items = 0;
    for (const ClearingItem& item : station.items) {
      if (!test_bit(words, item.at)) continue;
      const bool blocked = std::any_of(item.blocks.begin(), item.blocks.end(),
                                       [&](int32_t f) { return test_bit(words, f); });
      items += blocked ? 0 : 1;
    }
    cost = items;
    if (items > 0 && clearing_mode_ >= kClearArrivals) {
      cost += items - (ready_at(station, words) ? 1 : 0);
      if (clearing_mode_ >= kClearFollowUps) cost += items;
    }
    return cost;
  };
  for (size_t r = 0; r < clearing_requirements_.size(); ++r) {
    if (requirement_open_[r] == 0) continue;
    const ClearingRequirement& requirement = clearing_requirements_[r];
    int32_t least = std::numeric_limits<int32_t>::max();
    for (int32_t s : requirement.stations) least = std::min(least, station_cost(s));
    int32_t& group = group_costs_[static_cast<size_t>(requirement.group)];
    group = std::max(group, least);
  }
  int32_t total = 0;
  for (int32_t cost : group_costs_) total += cost;
  return total;
}

std::unique_ptr<ProjectionHeuristic> ProjectionHeuristic::clone() const {
  return std::unique_ptr<ProjectionHeuristic>(new ProjectionHeuristic(*this));
}

std::unique_ptr<ProjectionHeuristic> ProjectionHeuristic::builder() {
  std::vector<Projection> rows;
  rows.swap(projections_);  // not copied: a builder starts without rows
  std::unique_ptr<ProjectionHeuristic> copy;
  try {
    copy.reset(new ProjectionHeuristic(*this));
  } catch (...) {
    rows.swap(projections_);
    throw;
  }
  rows.swap(projections_);
  copy->enumerated_states_ = 0;
  copy->over_cap_expanded_ = 0;
  return copy;
}

void ProjectionHeuristic::read_variants(const ProjectionSpec& spec) {
  const size_t n = spec.objects.size();
  if (spec.variants.empty()) {
    require(spec.forbid_begin.empty() && spec.forbid.empty() && spec.appear_begin.empty() &&
                spec.appear.empty(),
            "forbidden and appearing facts need creator variants");
    return;
  }
  require(spec.variants.size() == 3 * n, "variants has the wrong size");
  check_csr(spec.forbid_begin, n, spec.forbid.size(), "forbid_begin");
  check_csr(spec.appear_begin, n, spec.appear.size(), "appear_begin");
  for (int32_t f : spec.forbid) {
    require(f >= 0 && f < task_.num_facts, "forbidden fact out of range");
  }
  std::set<std::tuple<int32_t, int32_t, int32_t>> seen;
  for (size_t r = 0; r < n; ++r) {
    const int32_t group = spec.variants[3 * r], creator = spec.variants[3 * r + 1],
                  mask = spec.variants[3 * r + 2];
    const int32_t first = spec.forbid_begin[r], last = spec.forbid_begin[r + 1];
    if (group < 0) {
      require(group == -1 && creator == -1 && mask == 0 && first == last &&
                  spec.appear_begin[r] == spec.appear_begin[r + 1],
              "a row that is no creator variant has (-1, -1, 0), no forbidden and no appearing "
              "facts");
      continue;
    }
    require(creator >= 0 && creator < kMaxCreators && mask > 0 && mask < (1 << kMaxMade),
            "creator variant out of range");
    require(object_roles_.at(spec.objects[r]).first < 0, "a creator variant's object has roles");
    // Forbidden facts are read from the real state only; appearing facts are bits of their
    // own (facts of the row that no merge names).
    const auto facts_begin = spec.facts.begin() + spec.fact_begin[r];
    const auto facts_end = spec.facts.begin() + spec.fact_begin[r + 1];
    for (int32_t k = first; k < last; ++k) {
      require(std::find(facts_begin, facts_end, spec.forbid[k]) == facts_end,
              "a forbidden fact must not be a fact of its row");
    }
    for (int32_t k = spec.appear_begin[r]; k < spec.appear_begin[r + 1]; ++k) {
      const int32_t f = spec.appear[k];
      bool merged = false;
      for (int32_t j = spec.merge_begin.empty() ? 0 : spec.merge_begin[r];
           !spec.merge_begin.empty() && j < spec.merge_begin[r + 1]; ++j) {
        merged = merged || spec.merges[2 * j] == f || spec.merges[2 * j + 1] == f;
      }
      require(std::find(facts_begin, facts_end, f) != facts_end && !merged,
              "an appearing fact must be an unmerged fact of its row");
    }
    if (spec.fallback[r]) {
      require(std::equal(spec.variants.begin() + 3 * static_cast<ptrdiff_t>(r - 1),
                         spec.variants.begin() + 3 * static_cast<ptrdiff_t>(r),
                         spec.variants.begin() + 3 * static_cast<ptrdiff_t>(r)),
              "a fallback row repeats its row's creator variant");
      continue;
    }
    require(seen.emplace(group, creator, mask).second, "a creator variant appears twice");
    if (static_cast<size_t>(group) >= creator_groups_.size()) {
      creator_groups_.resize(static_cast<size_t>(group) + 1);
    }
    CreatorGroup& g = creator_groups_[static_cast<size_t>(group)];
    g.creators = std::max(g.creators, creator + 1);
    g.made = std::max(g.made, static_cast<int32_t>(std::bit_width(static_cast<uint32_t>(mask))));
  }
  for (size_t k = 0; k < creator_groups_.size(); ++k) {
    CreatorGroup& g = creator_groups_[k];
    const int32_t masks = 1 << g.made;
    int64_t listed = 0;
    for (const auto& entry : seen) listed += std::get<0>(entry) == static_cast<int32_t>(k);
    require(g.creators > 0 && listed == static_cast<int64_t>(g.creators) * (masks - 1),
            "a creator group must list every creator with every nonempty mask once");
    g.row_of.assign(static_cast<size_t>(g.creators * masks), -1);
    // Every function from made objects to creators, as one mask per creator.
    IntVec owner(static_cast<size_t>(g.made), 0);
    for (bool more = true; more;) {
      const size_t at = g.assignments.size();
      g.assignments.resize(at + static_cast<size_t>(g.creators), 0);
      for (int32_t m = 0; m < g.made; ++m) g.assignments[at + owner[m]] |= 1 << m;
      int32_t m = 0;
      while (m < g.made && ++owner[m] == g.creators) owner[m++] = 0;
      more = m < g.made;
    }
  }
}

void ProjectionHeuristic::add_creator_costs(const uint64_t* words) {
  const std::vector<Projection>& rows = *rows_;
  const auto combos = static_cast<size_t>(num_combos_);
  for (const CreatorGroup& g : creator_groups_) {
    const size_t masks = size_t{1} << g.made;
    // Per creator and mask, its row's cost under each combination: 0 for the empty mask or a
    // row not built or a state not reached (0 is safe), kUnreached where a forbidden fact
    // holds (no assignment a real plan can have).
    variant_costs_.assign(g.row_of.size() * combos, 0);
    for (size_t k = 0; k < g.row_of.size(); ++k) {
      const int32_t i = g.row_of[k];
      if (i < 0) continue;
      const Projection& p = rows[static_cast<size_t>(i)];
      const bool forbidden =
          std::any_of(p.forbidden_words.begin(), p.forbidden_words.end(),
                      [&](const FactMask& m) { return (words[m.word] & m.mask) != 0; });
      int32_t* costs = variant_costs_.data() + k * combos;
      if (forbidden) {
        std::fill(costs, costs + combos, kUnreached);
      } else if (ids_[i] >= 0) {
        const uint16_t* row = p.distance.data() + static_cast<size_t>(ids_[i]) * p.columns;
        for (size_t c = 0; c < combos; ++c) costs[c] = row[p.column_of[c]];
      }
    }
    // Every set reads the most of its own row and its subsets' rows: a real plan under an
    // assignment that gives this creator a set maps into the row of each subset too (the
    // objects left out are then its own creations, the row's goal is part). A set's row, where
    // built, may still read less than a subset's: it may be a coarser fallback, or a state it
    // never reached reads 0.
    for (size_t k = 0; k < g.row_of.size(); ++k) {
      const size_t mask = k & (masks - 1);
      if (mask == 0) continue;
      int32_t* costs = variant_costs_.data() + k * combos;
      for (size_t sub = (mask - 1) & mask; sub != 0; sub = (sub - 1) & mask) {
        const int32_t* of_sub = variant_costs_.data() + (k - mask + sub) * combos;
        for (size_t c = 0; c < combos; ++c) costs[c] = std::max(costs[c], of_sub[c]);
      }
    }
    const auto creators = static_cast<size_t>(g.creators);
    for (size_t c = 0; c < combos; ++c) {
      int32_t best = kUnreached;
      for (size_t a = 0; a < g.assignments.size(); a += creators) {
        int32_t sum = 0;
        for (size_t k = 0; k < creators; ++k) {
          sum += variant_costs_[(k * masks + static_cast<size_t>(g.assignments[a + k])) * combos +
                                c];
        }
        best = std::min(best, sum);
      }
      sums_[c] = std::min<int32_t>(sums_[c] + best, kUnreached);
    }
  }
}

void ProjectionHeuristic::assign_roles(const ProjectionSpec& spec) {
  const TaskSpec& s = task_.spec;
  const auto num_vars = static_cast<int32_t>(s.goal_var_group.size());
  std::vector<bool> key(static_cast<size_t>(num_vars), false);
  for (int32_t v : spec.key_vars) key[v] = true;
  // Per variable group, its non-key variables.
  std::unordered_map<int32_t, IntVec> group_vars;
  for (int32_t v = 0; v < num_vars; ++v) {
    if (!key[v]) group_vars[s.goal_var_group[v]].push_back(v);
  }
  auto is_candidate = [&](int32_t v, int32_t object) {
    const auto first = s.goal_candidates.begin() + s.goal_cand_begin[v];
    const auto last = s.goal_candidates.begin() + s.goal_cand_begin[v + 1];
    return std::find(first, last, object) != last;
  };
  std::unordered_map<int32_t, int32_t> group_index;  // variable group -> index into groups_
  for (int32_t object : spec.objects) {
    if (object_roles_.count(object)) continue;
    int32_t group = -1;
    bool single = true;
    for (int32_t v = 0; v < num_vars && single; ++v) {
      if (key[v] || !is_candidate(v, object)) continue;
      single = group < 0 || group == s.goal_var_group[v];
      group = s.goal_var_group[v];
    }
    auto& [index, roles] = object_roles_[object];
    index = -1;
    if (!single || group < 0 || group_vars[group].size() > kMaxRoleVars) continue;
    const auto [it, fresh] = group_index.emplace(group, static_cast<int32_t>(groups_.size()));
    if (fresh) {
      groups_.emplace_back();
      groups_.back().vars = group_vars[group];
    }
    index = it->second;
    const IntVec& vars = groups_[index].vars;
    for (size_t j = 0; j < vars.size(); ++j) {
      if (is_candidate(vars[j], object)) roles.push_back(static_cast<int32_t>(j));
    }
  }
}

void ProjectionHeuristic::read_lifts(const ProjectionSpec& spec) {
  const TaskSpec& s = task_.spec;
  const auto num_vars = static_cast<int32_t>(s.goal_var_group.size());
  const auto num_atoms = static_cast<int32_t>(s.goal_atom_base.size());
  const auto keys = static_cast<int32_t>(key_vars_.size());
  const auto width = static_cast<size_t>(s.fact_args_width);
  // The atom's argument k: (is a variable, its variable or object).
  auto arg = [&](int32_t atom, int32_t k) {
    const int32_t* a = &s.goal_atom_args[4 * static_cast<size_t>(s.goal_atom_arg_begin[atom] + k)];
    return std::pair<bool, int32_t>(a[0] != 0, a[1]);
  };
  auto two_variables = [&](int32_t atom) {
    return atom >= 0 && atom < num_atoms &&
           s.goal_atom_arg_begin[atom + 1] - s.goal_atom_arg_begin[atom] == 2 &&
           arg(atom, 0).first && arg(atom, 1).first;
  };
  IntVec assign(static_cast<size_t>(num_vars), -1), facts;
  for (size_t i = 0; i < spec.lifts.size();) {
    require(i + 3 <= spec.lifts.size(), "a lift entry is cut short");
    Lift lift;
    lift.var = spec.lifts[i];
    lift.atom = spec.lifts[i + 1];
    const int32_t n = spec.lifts[i + 2];
    require(n >= 0 && i + 3 + static_cast<size_t>(n) <= spec.lifts.size(),
            "a lift entry is cut short");
    require(lift.var >= 0 && lift.var < num_vars, "lift variable out of range");
    require(two_variables(lift.atom) && arg(lift.atom, 0).second == lift.var,
            "a lift's atom must name its variable and then a key variable");
    lift.station = arg(lift.atom, 1).second;
    lift.key = static_cast<int32_t>(
        std::find(key_vars_.begin(), key_vars_.end(), lift.station) - key_vars_.begin());
    require(lift.key < keys, "a lift's station must be a key variable");
    IntVec companions(spec.lifts.begin() + static_cast<std::ptrdiff_t>(i) + 3,
                      spec.lifts.begin() + static_cast<std::ptrdiff_t>(i) + 3 + n);
    for (int32_t a : companions) {
      require(two_variables(a) && arg(a, 1).second == lift.station && arg(a, 0).second != lift.var,
              "a companion atom must name another variable and then the lift's station");
    }
    IntVec values;  // K's distinct values, in the order of their first combination
    for (int32_t c = 0; c < num_combos_; ++c) {
      const int32_t value = combos_[c * keys + lift.key];
      const auto seen = std::find(values.begin(), values.end(), value);
      lift.value_of_combo.push_back(static_cast<int32_t>(seen - values.begin()));
      if (seen != values.end()) continue;
      values.push_back(value);
      assign[lift.station] = value;
      std::vector<FactMask> per_value;
      IntVec objects;
      for (int32_t a : companions) {
        lift.companion_begin.push_back(static_cast<int32_t>(per_value.size()));
        require(task_.atom_facts_under(a, assign.data(), 1 << 16, facts),
                "a companion variable has too many candidates");
        std::sort(facts.begin(), facts.end());
        for (int32_t f : facts) {
          const int32_t word = f / 64;
          if (per_value.empty() || per_value.back().word != word) per_value.push_back({word, 0});
          per_value.back().mask |= uint64_t{1} << (f % 64);
          objects.insert(objects.end(), {f, s.fact_args[static_cast<size_t>(f) * width]});
        }
        per_value.push_back({-1, 0});
        objects.insert(objects.end(), {-1, -1});
      }
      lift.companions.push_back(std::move(per_value));
      lift.companion_objects.push_back(std::move(objects));
    }
    assign[lift.station] = -1;
    for (int32_t a : companions) lift.companion_vars.push_back(arg(a, 0).second);
    for (const std::vector<FactMask>& per_value : lift.companions) {
      for (const FactMask& m : per_value) {
        if (m.word < 0) continue;
        const auto at = std::find_if(lift_words_.begin(), lift_words_.end(),
                                     [&](const FactMask& w) { return w.word == m.word; });
        if (at == lift_words_.end()) {
          lift_words_.push_back(m);
        } else {
          at->mask |= m.mask;
        }
      }
    }
    lift.missing_begin = static_cast<int32_t>(missing_.size());
    missing_.resize(missing_.size() + lift.companions.size(), 0);
    if (!spec.lift_stacks.empty()) {
      // Each candidate's fact "at K" per value, for its buried entries.
      for (int32_t k = s.goal_cand_begin[lift.var]; k < s.goal_cand_begin[lift.var + 1]; ++k) {
        lift.buried_objects.push_back(s.goal_candidates[k]);
        assign[lift.var] = s.goal_candidates[k];
        for (const int32_t value : values) {
          assign[lift.station] = value;
          const bool one = task_.atom_facts_under(lift.atom, assign.data(), 2, facts) &&
                           facts.size() == 1;
          lift.buried_at.push_back(one ? facts[0] : -1);
        }
      }
      assign[lift.var] = assign[lift.station] = -1;
      lift.buried_begin = static_cast<int32_t>(missing_.size());
      missing_.resize(missing_.size() + lift.buried_at.size(), 0);
    }
    lifts_.push_back(std::move(lift));
    i += 3 + static_cast<size_t>(n);
  }
  require(spec.lift_stacks.size() % 3 == 0, "lift_stacks must be triples");
  atop_of_.assign(spec.lift_stacks.empty() ? 0 : static_cast<size_t>(s.num_objects), {});
  for (size_t k = 0; k < spec.lift_stacks.size(); k += 3) {
    const int32_t fact = spec.lift_stacks[k], upper = spec.lift_stacks[k + 1],
                  lower = spec.lift_stacks[k + 2];
    require(fact >= 0 && fact < s.num_facts && upper >= 0 && upper < s.num_objects &&
                lower >= 0 && lower < s.num_objects,
            "a lift_stacks triple is out of range");
    atop_of_[static_cast<size_t>(upper)].emplace_back(fact, lower);
  }
  // What bury() reads: the companions' facts, the candidates' facts at K and the stacks.
  std::map<int32_t, uint64_t> masks;
  for (const FactMask& m : lift_words_) masks[m.word] |= m.mask;
  auto add = [&](int32_t f) { masks[f / 64] |= uint64_t{1} << (f % 64); };
  for (const Lift& lift : lifts_) {
    for (const int32_t f : lift.buried_at) {
      if (f >= 0) add(f);
    }
  }
  for (size_t k = 0; k < spec.lift_stacks.size(); k += 3) add(spec.lift_stacks[k]);
  for (const auto& [word, mask] : masks) bury_words_.push_back({word, mask});
}

int32_t ProjectionHeuristic::lift_flag(const Lift& lift, int32_t object, int32_t value) const {
  const auto at = std::find(lift.buried_objects.begin(), lift.buried_objects.end(), object);
  if (at == lift.buried_objects.end()) return lift.missing_begin + value;
  const auto values = static_cast<int32_t>(lift.companions.size());
  return lift.buried_begin + static_cast<int32_t>(at - lift.buried_objects.begin()) * values +
         value;
}

bool ProjectionHeuristic::buried(const Lift& lift, size_t value, int32_t object,
                                 const uint64_t* words) {
  // The chain below the object: each item lies atop at most one other (one stack per station).
  below_.clear();
  for (int32_t item = object; below_.size() < atop_of_.size();) {
    const auto& pairs = atop_of_[static_cast<size_t>(item)];
    const auto on = std::find_if(pairs.begin(), pairs.end(),
                                 [&](const auto& pair) { return test_bit(words, pair.first); });
    if (on == pairs.end()) break;
    item = on->second;
    below_.push_back(item);
  }
  // Some companion atom with no candidate (other than the object) at K below it.
  const IntVec& objects = lift.companion_objects[value];
  bool below_some = false;
  for (size_t k = 0; k < objects.size(); k += 2) {
    if (objects[k] < 0) {
      if (!below_some) return true;
      below_some = false;
    } else if (!below_some && objects[k + 1] != object && test_bit(words, objects[k])) {
      below_some = std::find(below_.begin(), below_.end(), objects[k + 1]) != below_.end();
    }
  }
  return false;
}

void ProjectionHeuristic::bury(const uint64_t* words) {
  for (const Lift& lift : lifts_) {
    const size_t values = lift.companions.size();
    for (size_t j = 0; j < lift.buried_objects.size(); ++j) {
      for (size_t v = 0; v < values; ++v) {
        const int32_t at = lift.buried_at[j * values + v];
        missing_[static_cast<size_t>(lift.buried_begin) + j * values + v] =
            missing_[static_cast<size_t>(lift.missing_begin) + v] != 0 ||
                    (at >= 0 && test_bit(words, at) &&
                     buried(lift, v, lift.buried_objects[j], words))
                ? 1
                : 0;
      }
    }
  }
}

bool ProjectionHeuristic::build_via(Projection& p, const ProjectionSpec& spec, int32_t index,
                                    const std::vector<Bits>& bits, int32_t sink,
                                    const std::vector<int16_t>& bit_of,
                                    const IntVec& reverse_begin, const IntVec& reverse_source,
                                    const std::vector<uint8_t>& reverse_cost, int64_t room) {
  const TaskSpec& s = task_.spec;
  const auto count = static_cast<int32_t>(bits.size());
  const auto num_keys = static_cast<int32_t>(key_vars_.size());
  // Per robot: its bit "holds the object", by robot object. The via states must include every
  // abstract state a real plan can be in at that step, so what F cannot tell counts as "does
  // not hold" and "stands at K".
  const std::map<int32_t, int32_t> hold_bit = hold_bits(spec, index, bit_of);
  auto holds = [&](const Bits& b, int32_t robot) {
    const auto it = hold_bit.find(robot);
    return it != hold_bit.end() && it->second >= 0 && b.test(it->second);
  };
  // The robot whose position fact is F's bit `b` (its first argument).
  auto robot_of = [&](int32_t b) {
    const auto at = static_cast<size_t>(p.facts[b]) * static_cast<size_t>(s.fact_args_width);
    return at < s.fact_args.size() ? s.fact_args[at] : -1;
  };
  // Columns whose distances, "at K" bit and robots' "at K" bits agree have the same via
  // distances (most combinations differ only in key variables that other roles name): one
  // via column each, keyed (column of p.distance, at K bit, (robot at K bit, robot) pairs).
  using ViaKey = std::tuple<int32_t, int32_t, IntVec>;
  std::map<ViaKey, int32_t> via_column_of_key;
  std::vector<ViaKey> via_keys;
  IntVec assign(s.goal_var_group.size(), -1), facts;
  p.via_column_of.assign(p.column_of.size(), -1);
  for (size_t r = 0; r < p.roles.size(); ++r) {
    if (p.lift_of_role[r] < 0) continue;
    const Lift& lift = lifts_[p.lift_of_role[r]];
    for (int32_t c = 0; c < num_combos_; ++c) {
      // The object's "at K" fact under c; without it in F the via states are unknown and the
      // plain distances stand (no via column).
      assign[lift.var] = p.object;
      assign[lift.station] = combos_[c * num_keys + lift.key];
      const bool one = task_.atom_facts_under(lift.atom, assign.data(), 1, facts) &&
                       facts.size() == 1 && bit_of[facts[0]] >= 0;
      assign[lift.var] = assign[lift.station] = -1;
      if (!one) continue;
      const int32_t at = bit_of[facts[0]];
      // The robots' "at K" bits, where F has them: the step that needs the via state acts at K.
      IntVec robot_at;  // (bit, robot) pairs
      for (const auto& [slot, robot_bit, object_bit] : p.colocated) {
        if (object_bit == at) robot_at.insert(robot_at.end(), {robot_bit, robot_of(robot_bit)});
      }
      const size_t column = static_cast<size_t>(c) * p.width + r;
      ViaKey key(p.column_of[column], at, std::move(robot_at));
      const auto [it, fresh] =
          via_column_of_key.emplace(key, static_cast<int32_t>(via_keys.size()));
      if (fresh) via_keys.push_back(std::move(key));
      p.via_column_of[column] = it->second;
    }
  }
  p.via_columns = static_cast<int32_t>(via_keys.size());
  if (static_cast<int64_t>(count) * p.via_columns > room) return false;
  p.via.assign(static_cast<size_t>(count) * p.via_columns, kUnreached);
  // Some robot (at K, where known) does not hold the object: the one acting there. And none
  // that stands at K (where known) holds it: one robot per station (see "Lifts"). An away
  // robot may stand at K (see "Away robots").
  auto acting = [&](const Bits& b, const IntVec& robot_at) {
    if (robot_at.empty()) {
      return hold_bit.empty() ||
             std::any_of(hold_bit.begin(), hold_bit.end(),
                         [&](const auto& rb) { return !holds(b, rb.first); });
    }
    const Bits away = away_now(p, b);
    bool free_at = false;
    for (size_t k = 0; k < robot_at.size(); k += 2) {
      if (!b.test(robot_at[k])) {
        free_at = free_at || p.is_away(away, robot_at[k + 1]);
        continue;
      }
      if (holds(b, robot_at[k + 1])) return false;
      free_at = true;
    }
    return free_at;
  };
  // Seeded with the goal distances of the via states.
  return distances_through(
      p.via, p.via_columns, count, sink, reverse_begin, reverse_source, reverse_cost,
      [&](LayeredSeeds& seeds, int32_t id, int32_t first, int32_t width) {
        for (int32_t k = 0; k < width; ++k) {
          const auto& [column, at, robot_at] = via_keys[first + k];
          const uint16_t d = p.distance[static_cast<size_t>(id) * p.columns + column];
          if (!bits[id].test(at) && d < kUnreached && acting(bits[id], robot_at)) {
            add_seed(seeds, id, uint64_t{1} << k, d);
          }
        }
      });
}

bool ProjectionHeuristic::build_parks(Projection& p, const ProjectionSpec& spec, int32_t index,
                                      const std::vector<Bits>& bits, int32_t sink,
                                      const std::vector<int16_t>& bit_of,
                                      const IntVec& reverse_begin, const IntVec& reverse_source,
                                      const std::vector<uint8_t>& reverse_cost, int64_t room) {
  p.parks.clear();
  if (p.via_columns == 0) return true;
  const auto count = static_cast<int64_t>(bits.size());
  const std::map<int32_t, int32_t> hold_bit = hold_bits(spec, index, bit_of);
  // A bit of F, or -1 where F does not keep the fact (or merges it with others).
  auto known = [&](int32_t b) { return b >= 0 && !p.merged_bits.test(b) ? b : -1; };
  for (size_t l = 0; l < park_links_.size(); ++l) {
    const ParkLink& link = park_links_[l];
    if (std::find(p.lift_of_role.begin(), p.lift_of_role.end(), link.lift) ==
        p.lift_of_role.end()) {
      continue;
    }
    const Park& park = parks_[static_cast<size_t>(link.park)];
    int32_t at = -1;  // the object's "at s" bit; outside F the park is unknown: no table
    for (size_t k = 0; k < park.at.size(); k += 2) {
      if (park.at[k] == p.object) at = bit_of[park.at[k + 1]];
    }
    // A merged bit stands for several facts: "not at s" cannot be read from it.
    if (at < 0 || p.merged_bits.test(at) || park.robots.empty()) continue;
    // Per robot that may stand at s, its bits "stands at s" and "holds the object" (-1: F does
    // not tell, so it may stand there, and does not hold it).
    IntVec robots;
    for (size_t k = 0; k < park.robots.size(); k += 2) {
      const auto held = hold_bit.find(park.robots[k]);
      robots.insert(robots.end(), {known(bit_of[park.robots[k + 1]]),
                                   held == hold_bit.end() ? -1 : known(held->second)});
    }
    const int64_t size = count * p.via_columns;
    if (size > room) continue;
    room -= size;
    Projection::ParkTable table{static_cast<int32_t>(l),
                                std::vector<uint16_t>(static_cast<size_t>(size), kUnreached)};
    // Seeded with the via distances of the states where the object is not at s, some robot
    // stands at s without holding it, and none stands there holding it (one robot per station).
    // An away robot may stand at s (see "Away robots").
    const bool built = distances_through(
        table.distance, p.via_columns, static_cast<int32_t>(count), sink, reverse_begin,
        reverse_source, reverse_cost,
        [&](LayeredSeeds& seeds, int32_t id, int32_t first, int32_t width) {
          const Bits& b = bits[static_cast<size_t>(id)];
          const Bits away = away_now(p, b);
          bool free_robot_at = false, holder_at = false;
          for (size_t k = 0; k < robots.size(); k += 2) {
            const bool there = robots[k] < 0 || b.test(robots[k]) ||
                               p.is_away(away, park.robots[k]);
            const bool holds = robots[k + 1] >= 0 && b.test(robots[k + 1]);
            free_robot_at = free_robot_at || (there && !holds);
            holder_at = holder_at || (robots[k] >= 0 && b.test(robots[k]) && holds);
          }
          if (b.test(at) || !free_robot_at || holder_at) return;
          const uint16_t* via = p.via.data() + static_cast<size_t>(id) * p.via_columns + first;
          for (int32_t k = 0; k < width; ++k) {
            if (via[k] < kUnreached) add_seed(seeds, id, uint64_t{1} << k, via[k]);
          }
        });
    if (!built) return false;
    p.parks.push_back(std::move(table));
  }
  return true;
}

void ProjectionHeuristic::project(const Projection& p, const uint64_t* words,
                                  const int32_t* counters) {
  Bits bits;
  for (const Projection::FactRun& r : p.runs) {
    or_bits(bits.w, r.bit, r.length, get_bits(words, r.fact, r.length));
  }
  for (const auto& [bit, fact] : p.merged) {
    if (test_bit(words, fact)) bits.set(bit);
  }
  key_.assign(reinterpret_cast<const char*>(bits.w), p.key_bytes);
  if (p.templates.empty()) return;
  listed_.clear();  // (the template's id in keys, the template)
  for (int32_t i = 0; i < counters[1]; ++i) {
    const int32_t t = counters[2 + i];
    const auto at = std::lower_bound(p.templates.begin(), p.templates.end(), t);
    if (at == p.templates.end() || *at != t) continue;
    listed_.emplace_back(p.key_templates.empty() ? t : p.key_templates[at - p.templates.begin()],
                         t);
  }
  if (p.sorted_timers) std::sort(listed_.begin(), listed_.end());
  for (const auto& [key_id, t] : listed_) {
    const int32_t first = task_.spec.template_first[t];
    const int32_t count = task_.spec.template_count[t];
    // The template's id and node words, written in place (one resize, not an append each).
    size_t at = key_.size();
    key_.resize(at + 4 + 4 * static_cast<size_t>(count));
    std::memcpy(key_.data() + at, &key_id, 4);
    for (int32_t node = first; node < first + count; ++node) {
      int32_t word = counters[task_.node_offset + node];
      // Coarse timers (see "Timers"): a running timer's progress as 0 or "1 or more".
      if (p.coarse_timers && task_.spec.node_type[node] == kDelayedNode &&
          !(word & kCompleted) && (word & kProgressMask) > 1) {
        word = (word & ~kProgressMask) | 1;
      }
      at += 4;
      std::memcpy(key_.data() + at, &word, 4);
    }
  }
}

void ProjectionHeuristic::read_robot_swap(const ProjectionSpec& spec, int32_t index,
                                          const std::vector<int16_t>& bit_of,
                                          Projection& p) const {
  if (!has_robot_swap(spec, static_cast<size_t>(index))) return;
  // The bit permutation: merged facts map through their representatives' bits, so every pair
  // of a bit's facts must agree on its image.
  std::vector<int16_t> image(static_cast<size_t>(kMaxFacts), -1);
  auto pair_bits = [&](int32_t a, int32_t b) {
    require(a >= 0 && b >= 0, "a robot swap pair must map facts the row keeps");
    require((image[a] < 0 || image[a] == b) && (image[b] < 0 || image[b] == a),
            "a robot swap must map each bit to one bit");
    image[a] = static_cast<int16_t>(b);
    image[b] = static_cast<int16_t>(a);
  };
  for (int32_t k = spec.robot_swap_fact_begin[index]; k < spec.robot_swap_fact_begin[index + 1];
       ++k) {
    pair_bits(bit_of[spec.robot_swap_facts[2 * k]], bit_of[spec.robot_swap_facts[2 * k + 1]]);
  }
  const int32_t slot_a = spec.robot_swap_slots[0], slot_b = spec.robot_swap_slots[1];
  if (p.arrival_bit >= 0 && slot_a < p.arrival_slots && slot_b < p.arrival_slots) {
    pair_bits(p.arrival_bit + slot_a, p.arrival_bit + slot_b);
    if (p.picked_bit >= 0) pair_bits(p.picked_bit + slot_a, p.picked_bit + slot_b);
    if (p.stays_bit >= 0) pair_bits(p.stays_bit + slot_a, p.stays_bit + slot_b);
  }
  // Group the pairs (a < b) by their words and distance: one masked exchange per group.
  std::map<std::tuple<int32_t, int32_t, int32_t>, uint64_t> groups;
  for (int32_t a = 0; a < kMaxFacts; ++a) {
    const int32_t b = image[a];
    if (b <= a) continue;
    groups[{a / 64, b / 64, b % 64 - a % 64}] |= uint64_t{1} << (a % 64);
  }
  for (const auto& [where, mask] : groups) {
    const auto& [from, to, shift] = where;
    p.swap_groups.push_back({from, to, shift, mask, shift >= 0 ? mask << shift : mask >> -shift});
  }
  for (int32_t k = spec.robot_swap_template_begin[index];
       k < spec.robot_swap_template_begin[index + 1]; ++k) {
    p.swap_templates.emplace_back(spec.robot_swap_templates[2 * k],
                                  spec.robot_swap_templates[2 * k + 1]);
  }
  std::sort(p.swap_templates.begin(), p.swap_templates.end());
}

void ProjectionHeuristic::canonical_robots(const Projection& p, std::string& key) {
  if (p.swap_groups.empty()) return;
  Bits bits = read_bits(key, p.key_bytes);
  Bits image = bits;
  auto shifted = [](uint64_t x, int32_t by) { return by >= 0 ? x << by : x >> -by; };
  // Every bit is in at most one pair, so each group clears and refills only its own bits.
  for (const Projection::SwapGroup& g : p.swap_groups) {
    image.w[g.from] = (image.w[g.from] & ~g.mask) | shifted(bits.w[g.to] & g.to_mask, -g.shift);
    image.w[g.to] = (image.w[g.to] & ~g.to_mask) | shifted(bits.w[g.from] & g.mask, g.shift);
  }
  if (key.size() == p.key_bytes) {  // no timers
    if (image < bits) {
      write_bits(key, image, p.key_bytes);
    }
    return;
  }
  // Keys compare bytewise, so where the image's bits differ they alone decide: a larger image
  // leaves the key as it is without listing its templates.
  int bits_order = 0;  // as memcmp orders their bytes (little-endian words)
  for (int32_t w = 0; w < kBitsWords && bits_order == 0; ++w) {
    if (image.w[w] != bits.w[w]) {
      bits_order = __builtin_bswap64(image.w[w]) < __builtin_bswap64(bits.w[w]) ? -1 : 1;
    }
  }
  if (bits_order > 0) return;
  // The listed templates renamed (their node words stay), sorted again where the key sorts.
  std::vector<std::pair<int32_t, size_t>>& listed = swapped_listed_;  // (image id, offset)
  listed.clear();
  for (size_t at = p.key_bytes; at < key.size();) {
    int32_t t;
    std::memcpy(&t, key.data() + at, 4);
    const auto it = std::lower_bound(p.swap_templates.begin(), p.swap_templates.end(),
                                     std::make_pair(t, std::numeric_limits<int32_t>::min()));
    listed.emplace_back(it != p.swap_templates.end() && it->first == t ? it->second : t, at);
    at += 4 + 4 * static_cast<size_t>(task_.spec.template_count[t]);
  }
  if (p.sorted_timers) {
    // Stable, by insertion: a key lists a few templates, and std::stable_sort would allocate
    // its buffer for every key (this runs for every step of construction).
    for (size_t i = 1; i < listed.size(); ++i) {
      const auto moving = listed[i];
      size_t j = i;
      for (; j > 0 && listed[j - 1].first > moving.first; --j) listed[j] = listed[j - 1];
      listed[j] = moving;
    }
  }
  swapped_key_.assign(reinterpret_cast<const char*>(image.w), p.key_bytes);
  for (const auto& [t, at] : listed) {
    swapped_key_.append(reinterpret_cast<const char*>(&t), 4);
    swapped_key_.append(key, at + 4, 4 * static_cast<size_t>(task_.spec.template_count[t]));
  }
  if (bits_order < 0 || swapped_key_ < key) key.swap(swapped_key_);
}

void ProjectionHeuristic::read_away(const ProjectionSpec& spec, int32_t index,
                                    const std::vector<int16_t>& bit_of, Projection& p) const {
  if (spec.away_begin.empty() || p.arrival_bit < 0) return;
  const int32_t begin = spec.away_begin[index], end = spec.away_begin[index + 1];
  if (begin == end) return;
  require((end - begin) % 3 == 1, "an away row must be a slot mask, then triples");
  const TaskSpec& s = task_.spec;
  std::vector<Projection::AwaySlot> slots(static_cast<size_t>(p.arrival_slots));
  for (size_t k = 0; k < slots.size(); ++k) {
    slots[k].placed = (spec.away[begin] >> k) & 1;
    slots[k].bit_at.fill(-1);
  }
  std::vector<int8_t> station_of(static_cast<size_t>(kMaxFacts), -1);
  std::map<int32_t, int32_t> station_index;  // in the order the triples first name them
  bool exact = false;  // a station the row cannot place a robot at: keep every position
  for (int32_t k = begin + 1; k < end; k += 3) {
    const int32_t slot = spec.away[k], fact = spec.away[k + 1], station = spec.away[k + 2];
    require(slot >= 0 && slot < p.arrival_slots, "an away triple must name a slot of the row");
    require(fact >= 0 && fact < task_.num_facts && station >= 0 && station < s.num_objects,
            "an away triple is out of range");
    const int32_t bit = bit_of[fact];
    require(bit >= 0, "an away triple must name a fact of the row");
    const auto at =
        station_index.emplace(station, static_cast<int32_t>(station_index.size())).first;
    Projection::AwaySlot& away = slots[static_cast<size_t>(slot)];
    const auto robot = static_cast<size_t>(fact) * static_cast<size_t>(s.fact_args_width);
    require(robot < s.fact_args.size() && (away.robot < 0 || away.robot == s.fact_args[robot]),
            "an away slot's positions must name one robot");
    away.robot = s.fact_args[robot];
    if (at->second >= 64 || p.merged_bits.test(bit) || station_of[bit] >= 0 ||
        away.bit_at[at->second] >= 0) {
      exact = true;
      continue;
    }
    station_of[bit] = static_cast<int8_t>(at->second);
    away.bit_at[at->second] = static_cast<int16_t>(bit);
    away.positions.set(bit);
    away.stations |= uint64_t{1} << at->second;
  }
  // Every hold fact of the slot's robot (hold_bits() keeps one per robot).
  for (int32_t k = spec.hold_begin[index]; k < spec.hold_begin[index + 1]; ++k) {
    const int32_t bit = bit_of[spec.hold_facts[2 * k + 1]];
    for (Projection::AwaySlot& away : slots) {
      if (bit >= 0 && away.robot == spec.hold_facts[2 * k]) away.holds.set(bit);
    }
  }
  // A robot swap needs both swapped robots placed, or neither: placing then commutes with it.
  if (!p.swap_groups.empty()) {
    const auto a = static_cast<size_t>(spec.robot_swap_slots[0]);
    const auto b = static_cast<size_t>(spec.robot_swap_slots[1]);
    exact = exact || (a < slots.size() && b < slots.size() && slots[a].placed != slots[b].placed);
  }
  Bits place_bits;
  std::vector<uint64_t> place_stations(static_cast<size_t>(kMaxFacts), 0);
  for (const auto& [slot, robot_at, object_at] : p.colocated) {
    exact = exact || station_of[robot_at] < 0;
    if (exact) break;
    place_bits.set(object_at);
    place_stations[object_at] |= uint64_t{1} << station_of[robot_at];
  }
  // Idling reads the robot's position beside the object: only at colocated places.
  for (const Projection::IdlePlace& idle : p.idle_places) {
    exact = exact || std::none_of(p.colocated.begin(), p.colocated.end(), [&](const auto& c) {
              return c.robot_at == idle.robot_at && c.object_at == idle.object_at;
            });
  }
  if (exact || std::none_of(slots.begin(), slots.end(), [](const auto& a) { return a.placed; })) {
    return;
  }
  p.away_slots = std::move(slots);
  p.station_of = std::move(station_of);
  p.place_bits = place_bits;
  p.place_stations = std::move(place_stations);
}

bool ProjectionHeuristic::share_row(const ProjectionSpec& spec, size_t row) {
  if (spec.share.empty() || spec.share[row] < 0) return false;
  const auto source = std::find_if(projections_.begin(), projections_.end(),
                                   [&](const Projection& p) { return p.row == spec.share[row]; });
  if (source == projections_.end() ||
      object_roles_.at(spec.objects[row]) != object_roles_.at(source->object) ||
      distance_entries_ + source->entries() > max_distance_entries_) {
    return false;
  }
  Projection view;
  std::vector<int16_t> bit_of;
  std::vector<uint8_t> merged;
  read_view(spec, static_cast<int32_t>(row), true, view, bit_of, merged);
  const Bits& bits = source->merged_bits;
  if (view.facts.size() != source->facts.size() || view.merged.size() != source->merged.size() ||
      !(view.merged_bits == bits)) {
    return false;
  }
  Projection p = *source;  // the tables, and how its bits and timers are laid out
  p.row = view.row;
  p.object = view.object;
  p.facts = std::move(view.facts);
  p.runs = std::move(view.runs);
  p.merged = std::move(view.merged);
  p.templates = std::move(view.templates);
  p.key_templates = std::move(view.key_templates);
  p.forbidden_words = std::move(view.forbidden_words);
  p.variant_group = view.variant_group;
  p.variant_creator = view.variant_creator;
  p.variant_mask = view.variant_mask;
  if (p.covered >= 0) p.covered = spec.clear_facts[row];  // its own object's
  p.shared = true;
  distance_entries_ += p.entries();
  projections_.push_back(std::move(p));
  return true;
}

void ProjectionHeuristic::read_view(const ProjectionSpec& spec, int32_t index, bool shared,
                                    Projection& p, std::vector<int16_t>& bit_of,
                                    std::vector<uint8_t>& merged) const {
  p.row = index;
  p.object = spec.objects[index];
  // Merged facts (projection.h) share their representative's bit; the others get one each.
  std::unordered_map<int32_t, int32_t> representative;
  for (int32_t k = spec.merge_begin.empty() ? 0 : spec.merge_begin[index];
       !spec.merge_begin.empty() && k < spec.merge_begin[index + 1]; ++k) {
    representative[spec.merges[2 * k]] = spec.merges[2 * k + 1];
  }
  for (int32_t i = spec.fact_begin[index]; i < spec.fact_begin[index + 1]; ++i) {
    if (!representative.contains(spec.facts[i])) p.facts.push_back(spec.facts[i]);
  }
  p.templates.assign(spec.templates.begin() + spec.template_begin[index],
                     spec.templates.begin() + spec.template_begin[index + 1]);
  std::sort(p.templates.begin(), p.templates.end());
  // A row read with its shared row's tables names that row's templates in its keys.
  if (shared) {
    p.key_templates.resize(p.templates.size());
    for (int32_t k = spec.share_template_begin[index]; k < spec.share_template_begin[index + 1];
         ++k) {
      const auto at = std::lower_bound(p.templates.begin(), p.templates.end(),
                                       spec.share_templates[2 * k]);
      p.key_templates[at - p.templates.begin()] = spec.share_templates[2 * k + 1];
    }
  }
  for (size_t i = 0; i < p.facts.size(); ++i) {
    const auto bit = static_cast<int32_t>(i);
    if (!p.runs.empty() && p.runs.back().length < 64 &&
        p.runs.back().fact + p.runs.back().length == p.facts[i]) {
      ++p.runs.back().length;
    } else {
      p.runs.push_back({p.facts[i], bit, 1});
    }
  }
  bit_of.assign(static_cast<size_t>(task_.num_facts), -1);
  for (size_t i = 0; i < p.facts.size(); ++i) bit_of[p.facts[i]] = static_cast<int16_t>(i);
  merged.assign(static_cast<size_t>(task_.num_facts), 0);
  for (const auto& [fact, rep] : representative) {
    bit_of[fact] = bit_of[rep];
    merged[fact] = merged[rep] = 1;
    p.merged.emplace_back(bit_of[rep], fact);
    p.merged_bits.set(bit_of[rep]);
  }
  std::sort(p.merged.begin(), p.merged.end());
  if (!spec.variants.empty()) {
    const auto at = 3 * static_cast<size_t>(index);
    p.variant_group = spec.variants[at];
    p.variant_creator = spec.variants[at + 1];
    p.variant_mask = spec.variants[at + 2];
  }
  std::map<int32_t, uint64_t> forbidden;  // by word, in order
  for (int32_t k = spec.forbid_begin.empty() ? 0 : spec.forbid_begin[index];
       !spec.forbid_begin.empty() && k < spec.forbid_begin[index + 1]; ++k) {
    const int32_t f = spec.forbid[k];
    forbidden[f / 64] |= uint64_t{1} << (f % 64);
  }
  for (const auto& [word, mask] : forbidden) p.forbidden_words.push_back({word, mask});
}

bool ProjectionHeuristic::repeats_timers(const ProjectionSpec& spec, size_t row) const {
  const IntVec templates(spec.templates.begin() + spec.template_begin[row],
                         spec.templates.begin() + spec.template_begin[row + 1]);
  IntVec families = timer_families(task_.spec, templates);
  std::sort(families.begin(), families.end());
  return std::adjacent_find(families.begin(), families.end()) != families.end();
}

bool ProjectionHeuristic::build(const ProjectionSpec& spec, int32_t index, const uint64_t* words,
                                const int32_t* counters, int64_t max_states,
                                const std::function<bool()>& stop, bool sink_repeats) {
  built_with_sink_ = sink_repeats;
  if (build_row(spec, index, words, counters, max_states, stop, sink_repeats)) return true;
  // Over the cap, and predicted from how far it got to exceed the upgrade caps as well: a row
  // that repeats timers can then only be built with a sink (see "Repeated timers").
  if (sink_repeats || !timer_sinks_ || over_cap_expanded_ == 0 ||
      retry_size(max_states, over_cap_expanded_, upgrade_states_) <= upgrade_states_ ||
      !repeats_timers(spec, static_cast<size_t>(index))) {
    return false;
  }
  built_with_sink_ = true;
  return build_row(spec, index, words, counters, max_states, stop, true);
}

bool ProjectionHeuristic::build_row(const ProjectionSpec& spec, int32_t index,
                                    const uint64_t* words, const int32_t* counters,
                                    int64_t max_states, const std::function<bool()>& stop,
                                    bool sink_repeats, SharedEnumeration* joined) {
  const TaskSpec& s = task_.spec;
  // With helpers, their threads (each on a builder of its own, from the start of this function
  // on: the preparation below is theirs too) and this one enumerate the row's states together,
  // through `shared`; a helper (`joined`) returns once they are enumerated.
  std::unique_ptr<SharedEnumeration> own_shared;
  if (joined == nullptr && row_helpers_ > 0) {
    own_shared = std::make_unique<SharedEnumeration>();
    own_shared->threads = static_cast<size_t>(row_helpers_) + 1;
  }
  SharedEnumeration* const shared = joined != nullptr ? joined : own_shared.get();
  // Every path out of this function stops the helpers and waits for them.
  std::vector<std::thread> helpers;
  struct JoinHelpers {
    SharedEnumeration* shared;
    std::vector<std::thread>& threads;
    ~JoinHelpers() {
      if (threads.empty()) return;
      {
        const std::lock_guard lock(shared->mutex);
        shared->ended = true;
        shared->more.notify_all();
      }
      for (std::thread& t : threads) t.join();
    }
  } join_helpers{shared, helpers};
  for (int32_t k = 0; own_shared != nullptr && k < row_helpers_; ++k) {
    std::shared_ptr<ProjectionHeuristic> helper = builder();
    helper->row_helpers_ = 0;
    try {
      helpers.emplace_back([=, &spec]() {
        try {
          helper->build_row(spec, index, words, counters, max_states, {}, sink_repeats, shared);
        } catch (...) {
          const std::lock_guard lock(shared->mutex);
          if (!shared->error) shared->error = std::current_exception();
          shared->failed = true;
          shared->more.notify_all();
        }
      });
    } catch (const std::system_error&) {
      break;  // no thread to be had: fewer helpers
    }
  }
  Projection p;
  p.coarse_timers = !exact_timers_;
  std::vector<int16_t> bit_of;
  std::vector<uint8_t> merged;
  read_view(spec, index, false, p, bit_of, merged);
  std::tie(p.group, p.roles) = object_roles_.at(p.object);
  p.width = std::max<int32_t>(1, static_cast<int32_t>(p.roles.size()));
  // The distance tables' room caps the states too (each needs one entry at least; checked
  // while enumerating, so that a projection too large for it fails early).
  max_states = std::min(max_states, max_distance_entries_ - distance_entries_);
  // Arrival bits (projection.h): one per robot slot, after F's bits, if they fit.
  // Then, with hand-overs, one fresh-pick bit per robot slot, and with hand-overs that keep
  // the object where it cannot be put down, one kept-hand-over bit per robot slot.
  int32_t robot_slots = 0;
  bool hand_overs = false, stays = false;
  for (int32_t j = spec.grounding_begin[index];
       !spec.arrivals.empty() && j < spec.grounding_begin[index + 1]; ++j) {
    const int32_t code = spec.arrivals[j];
    if (code != 0) robot_slots = std::max(robot_slots, code / kArrivalSlot + 1);
    hand_overs = hand_overs || (code & kArrivalHandOver) != 0;
    stays = stays || ((code & kArrivalStays) != 0 && (code & kArrivalHandOver) != 0);
  }
  const size_t history_bits =
      static_cast<size_t>(robot_slots) * (1 + (hand_overs ? 1 : 0) + (stays ? 1 : 0));
  const bool arrivals =
      robot_slots > 0 && p.facts.size() + history_bits <= static_cast<size_t>(kMaxFacts);
  if (arrivals) {
    if (!spec.clear_facts.empty()) p.covered = spec.clear_facts[index];
    p.arrival_bit = static_cast<int32_t>(p.facts.size());
    p.arrival_slots = robot_slots;
    if (hand_overs) p.picked_bit = p.arrival_bit + robot_slots;
    if (stays) p.stays_bit = p.picked_bit + robot_slots;
  }
  // Idling (projection.h): one more bit, where the row has idle places and it fits.
  for (int32_t k = spec.idle_begin.empty() ? 0 : spec.idle_begin[index];
       !spec.idle_begin.empty() && k < spec.idle_begin[index + 1]; ++k) {
    const int32_t* q = spec.idle.data() + 4 * static_cast<size_t>(k);
    if (bit_of[q[0]] >= 0 && bit_of[q[1]] >= 0 && bit_of[q[2]] >= 0) {
      p.idle_places.push_back({bit_of[q[0]], bit_of[q[1]], bit_of[q[2]]});
      p.idle_free = q[3];
    }
  }
  size_t used_bits = p.facts.size() + (arrivals ? history_bits : 0);
  // Idling charges a step in which the robot acts on nothing; joint steps count actions only.
  if (!p.idle_places.empty() && !tick_free_ && used_bits < static_cast<size_t>(kMaxFacts)) {
    p.idle_bit = static_cast<int32_t>(used_bits++);
  } else {
    p.idle_places.clear();
  }
  p.key_bytes = 8 * std::max<size_t>(1, (used_bits + 63) / 64);
  if (p.picked_bit >= 0) {
    p.slot_holds.assign(static_cast<size_t>(robot_slots), Bits{});
    for (int32_t k = spec.hold_begin[index]; k < spec.hold_begin[index + 1]; ++k) {
      const int32_t bit = bit_of[spec.hold_facts[2 * k + 1]];
      if (bit < 0) continue;
      // The slots of the holding robot, as the hand-over places name it.
      for (const HandOverPlace& place : hand_over_places_) {
        if (place.slot < robot_slots && place.robot == spec.hold_facts[2 * k]) {
          p.slot_holds[place.slot].set(bit);
        }
      }
    }
  }
  // Where robots could pick the object up: the arrivals' canonical bits and the lifts' via
  // states read them (the latter also without arrivals).
  for (int32_t k = spec.colocated_begin.empty() ? 0 : spec.colocated_begin[index];
       !spec.colocated_begin.empty() && k < spec.colocated_begin[index + 1]; ++k) {
    const int32_t slot = spec.colocated[3 * k];
    const int32_t a = bit_of[spec.colocated[3 * k + 1]], b = bit_of[spec.colocated[3 * k + 2]];
    if ((!arrivals || slot < robot_slots) && a >= 0 && b >= 0) {
      p.colocated.push_back({slot, a, b});
    }
  }
  read_robot_swap(spec, index, bit_of, p);
  if (arrivals) {
    p.slot_places.resize(static_cast<size_t>(robot_slots));
    p.objects_at.resize(static_cast<size_t>(kMaxFacts));
    for (const auto& [slot, robot_at, object_at] : p.colocated) {
      p.slot_places[slot].set(robot_at);
      p.objects_at[robot_at].set(object_at);
    }
    read_away(spec, index, bit_of, p);
  }

  std::vector<LocalAction> actions;
  for (int32_t j = spec.grounding_begin[index]; j < spec.grounding_begin[index + 1]; ++j) {
    LocalAction a;
    a.grounding = spec.groundings[j];
    a.cost = spec.costs[j];
    if (arrivals) {
      a.arrival = spec.arrivals[j] % kArrivalSlot;
      a.slot = spec.arrivals[j] / kArrivalSlot;
    }
    if (p.idle_bit >= 0) a.idle = spec.idle_codes[j];
    const int32_t g = a.grounding;
    for (int32_t k = s.pre_pos_begin[g]; k < s.pre_pos_begin[g + 1]; ++k) {
      if (bit_of[s.pre_pos[k]] >= 0) a.need_true.set(bit_of[s.pre_pos[k]]);
      // Created objects in order (projection.h): the pool objects before a needed one exist.
      for (int32_t i = implied_begin_[s.pre_pos[k]]; i < implied_begin_[s.pre_pos[k] + 1]; ++i) {
        if (bit_of[implied_[i]] >= 0) a.need_true.set(bit_of[implied_[i]]);
      }
    }
    for (int32_t k = s.pre_neg_begin[g]; k < s.pre_neg_begin[g + 1]; ++k) {
      // A merged fact's bit being set does not say that this fact is true.
      if (bit_of[s.pre_neg[k]] >= 0 && !merged[s.pre_neg[k]]) {
        a.need_false.set(bit_of[s.pre_neg[k]]);
      }
    }
    for (int32_t k = s.eff_begin[g]; k < s.eff_begin[g + 1]; ++k) {
      if (bit_of[s.eff_fact[k]] >= 0) {
        a.effects.emplace_back(bit_of[s.eff_fact[k]], s.eff_value[k] != 0);
      }
    }
    a.starts_template = false;
    for (int32_t k = s.sfx_begin[g]; k < s.sfx_begin[g + 1]; ++k) {
      a.starts_template = a.starts_template || std::binary_search(p.templates.begin(),
                                                                  p.templates.end(),
                                                                  s.sfx_template[k]);
    }
    if (a.cost == 2) {
      for (int32_t k = spec.hold_begin[index]; k < spec.hold_begin[index + 1]; ++k) {
        const int32_t robot = spec.hold_facts[2 * k], fact = spec.hold_facts[2 * k + 1];
        if (robot == s.owner[g] && bit_of[fact] >= 0) a.hold.set(bit_of[fact]);
      }
    }
    actions.push_back(std::move(a));
  }
  // Creators (projection.h): the other creators' creations, as steps of their own that make a
  // pool object exist (no grounding, no pass, cost 0).
  for (int32_t k = spec.appear_begin.empty() ? 0 : spec.appear_begin[index];
       !spec.appear_begin.empty() && k < spec.appear_begin[index + 1]; ++k) {
    LocalAction a;
    a.grounding = -1;
    a.cost = 0;
    a.starts_template = false;
    a.need_false.set(bit_of[spec.appear[k]]);
    a.effects.emplace_back(bit_of[spec.appear[k]], true);
    actions.push_back(std::move(a));
  }

  // Forward enumeration. Abstract states are keys (see project()); the engine runs on scratch
  // full states that are zero outside F and T.
  KeyArena own_keys;
  IdIndex own_index;
  int32_t own_sink = -1;
  KeyArena& keys_list = shared != nullptr ? shared->keys : own_keys;
  IdIndex& key_index = shared != nullptr ? shared->index : own_index;
  // Every build counts its states, however it ends (the upgrades' time estimate reads them);
  // a helper's are its owner's.
  struct CountStates {
    int64_t& total;
    const KeyArena& keys;
    bool counts;
    ~CountStates() {
      if (counts) total += static_cast<int64_t>(keys.size());
    }
  } count_states{enumerated_states_, keys_list, joined == nullptr};
  std::vector<Edge> edges;
  IntVec edge_begin{0};
  std::vector<uint64_t> work(static_cast<size_t>(task_.num_words));
  IntVec work_counters(static_cast<size_t>(task_.num_counters));
  auto intern_key = [&](std::string_view key, uint32_t hash) {  // (id, whether it is new)
    const auto [id, fresh] =
        key_index.find_or_insert(hash, static_cast<uint32_t>(keys_list.size()),
                                 [&](uint32_t k) { return keys_list.equals(k, key); });
    if (fresh) keys_list.push_back(key);
    return std::make_pair(static_cast<int32_t>(id), fresh);
  };
  // Interns key_, and with arrival bits also its canonical twin: the key a state's bound is
  // read with (see canonical_arrivals), so that every reachable state's is there. Both in
  // their robot swap's canonical form (see "Robot swap"). A state seen before has its twin
  // already (a twin is its own twin: the swap commutes with canonical_arrivals).
  std::string twin_key;
  // Repeated timers (projection.h): with sink_repeats, a step into a key that lists two
  // templates of one family leads to the sink instead, interned on first use.
  const IntVec families = sink_repeats ? timer_families(s, p.templates) : IntVec{};
  int32_t& sink = shared != nullptr ? shared->sink : own_sink;
  auto repeats_a_family = [&](std::string_view key) {
    // Families below 64 (a row has few templates); a list that repeats only a family above
    // that is kept as without a sink: admissible either way, the row only stays larger.
    uint64_t seen = 0;
    for (size_t at = p.key_bytes; at < key.size();) {
      int32_t t;
      std::memcpy(&t, key.data() + at, 4);
      at += 4 + 4 * static_cast<size_t>(s.template_count[t]);
      const auto it = std::lower_bound(p.templates.begin(), p.templates.end(), t);
      if (it == p.templates.end() || *it != t) continue;
      const int32_t family = families[it - p.templates.begin()];
      if (family >= 64) continue;
      if (seen & (uint64_t{1} << family)) return true;
      seen |= uint64_t{1} << family;
    }
    return false;
  };
  // With idling, a state where the robot stands where it could idle at the object also gets
  // its twin with the idle bit set (and that twin's canonical twin): a real state is read with
  // the bit set where the robot idles there, whatever the steps before it were.
  //
  // A step's target is interned in two parts: canonical() puts key_ in its robot swap's
  // canonical form, or replaces it with the sink's key; intern_canonical() interns it, given
  // its hash. In between, the enumeration below gathers a state's targets and prefetches
  // their slots: each lookup is a cache miss in an index of up to millions of keys.
  auto canonical = [&]() {
    if (sink_repeats && key_.size() > p.key_bytes && repeats_a_family(key_)) {
      key_.assign(kSinkKey);
    } else {
      canonical_robots(p, key_);
    }
  };
  auto intern_canonical = [&](uint32_t hash) -> int32_t {
    if (key_ == kSinkKey) {
      if (sink < 0) sink = static_cast<int32_t>(intern_key(kSinkKey, hash).first);
      return sink;
    }
    const auto [id, fresh] = intern_key(key_, hash);
    if (!fresh) return id;
    Bits bits = read_bits(key_, p.key_bytes);
    auto intern_twin = [&](const Bits& twin) {
      if (twin == bits) return;
      twin_key.assign(key_);
      write_bits(twin_key, twin, p.key_bytes);
      canonical_robots(p, twin_key);
      intern_key(twin_key, key_hash(twin_key));
    };
    // (The twins differ only in history bits: the robots stand where they stood.)
    const Bits here = p.arrival_bit >= 0 ? colocated_slots(p, bits) : Bits{};
    if (p.arrival_bit >= 0) intern_twin(canonical_arrivals(p, bits, here));
    if (p.idle_bit >= 0 && !bits.test(p.idle_bit) && p.idle_place(bits)) {
      Bits idle = bits;
      idle.set(p.idle_bit);
      intern_twin(idle);
      if (p.arrival_bit >= 0) intern_twin(canonical_arrivals(p, idle, here));
    }
    return id;
  };
  auto intern = [&]() {
    canonical();
    return intern_canonical(key_hash(key_));
  };
  // The current state's targets so far (canonical keys), with their edges' costs.
  KeyArena targets;
  IntVec target_cost;
  std::vector<uint32_t> target_hash;
  // The same key before canonical() (the away robots' moves lead to few) keeps one target.
  // Raw target k is target raw_base + k (enumerating together, a batch's earlier states' targets
  // come first).
  KeyArena raw_targets;
  size_t raw_base = 0;
  auto add_target = [&](int32_t cost) {
    for (size_t k = 0; k < raw_targets.size(); ++k) {
      if (raw_targets.equals(k, key_)) {
        int32_t& least = target_cost[raw_base + k];
        least = std::min(least, cost);
        return;
      }
    }
    raw_targets.push_back(key_);
    canonical();
    targets.push_back(key_);
    target_cost.push_back(cost);
  };
  // Interns targets [begin, end) (their hashes in target_hash), reached from state `from`, and
  // adds their edges to `out` from `mine` on (none to itself).
  auto intern_range = [&](int32_t from, size_t begin, size_t end, std::vector<Edge>& out,
                          ptrdiff_t mine) {
    for (size_t k = begin; k < end; ++k) key_index.prefetch(target_hash[k]);
    for (size_t k = begin; k < end; ++k) {
      key_.assign(targets[k]);
      const int32_t to = intern_canonical(target_hash[k]);
      if (to == from) continue;
      // Several steps of a state often lead to one target (the away robots' moves): one edge,
      // at the least cost.
      const auto same = std::find_if(out.begin() + mine, out.end(),
                                     [&](const Edge& e) { return e.to == to; });
      if (same == out.end()) {
        out.push_back({to, target_cost[k]});
      } else {
        same->cost = std::min(same->cost, target_cost[k]);
      }
    }
  };
  auto hash_targets = [&]() {
    target_hash.resize(targets.size());
    for (size_t k = 0; k < targets.size(); ++k) target_hash[k] = key_hash(targets[k]);
  };
  // Interns the targets gathered from state `from` and adds their edges. Enumerating together,
  // they wait for the rest of the batch instead (see take_states): only the raw keys start over.
  auto intern_targets = [&](int32_t from) {
    raw_targets.clear();
    if (shared != nullptr) {
      raw_base = targets.size();
      return;
    }
    hash_targets();
    intern_range(from, 0, targets.size(), edges, edge_begin.back());
    targets.clear();
    target_cost.clear();
  };
  // Writes into key_ the history bits after a step from `bits` by `a` (waiting: a == nullptr),
  // given key_'s colocated slots `here` (from place(); the history bits change none of them):
  // a move sets its robot's arrival bit, putting the object down (or, for a container, freeing
  // the hand at its station) clears it; a pick sets its robot's fresh-pick bit, a move or
  // putting the object down clears it; the idle bit is set by the groundings after which the
  // robot idles at the object, kept by waiting and cleared by every other step.
  auto set_history = [&](const Bits& bits, const LocalAction* a, const Bits& here) {
    if (p.arrival_bit < 0 && p.idle_bit < 0) return;
    Bits next = read_bits(key_, p.key_bytes);
    if (p.idle_bit >= 0) {
      const bool idles = a == nullptr ? bits.test(p.idle_bit) : (a->idle & kIdleSets) != 0;
      next.assign(p.idle_bit, idles && p.idle_place(next));
    }
    for (int32_t k = 0; k < p.arrival_slots; ++k) {
      const int32_t acted = a != nullptr && a->slot == k ? a->arrival : 0;
      bool moved = bits.test(p.arrival_bit + k);
      if (acted & kArrivalMove) moved = true;
      if (acted & (kArrivalDrop | kArrivalFreed)) moved = false;
      next.assign(p.arrival_bit + k, moved);
      if (p.picked_bit < 0) continue;
      bool picked = bits.test(p.picked_bit + k);
      if (acted & kArrivalPick) picked = true;
      if (acted & (kArrivalMove | kArrivalDrop)) picked = false;
      next.assign(p.picked_bit + k, picked);
      if (p.stays_bit < 0) continue;
      bool stays_put = bits.test(p.stays_bit + k);
      if ((acted & kArrivalStays) && (acted & kArrivalHandOver)) stays_put = true;
      if (acted & (kArrivalMove | kArrivalDrop)) stays_put = false;
      next.assign(p.stays_bit + k, stays_put);
    }
    // Canonical history (projection.h): a robot away from the object moves before it next
    // picks it up, or puts it down first, so setting its bit now changes no pick's cost and
    // merges states that differ only there.
    for (int32_t k = 0; k < p.arrival_slots; ++k) {
      if (!here.test(k)) next.set(p.arrival_bit + k);
    }
    write_bits(key_, next, p.key_bytes);
  };
  // The scratch state stays zero between uses: clear() resets exactly what a step can have
  // written (fact words are few; in the counters, the list, the listed templates' node words
  // and the ranks), which matters when the task has thousands of templates.
  auto clear = [&]() {
    std::fill(work.begin(), work.end(), 0);
    for (int32_t i = 0; i < work_counters[1]; ++i) {
      const int32_t t = work_counters[2 + i];
      const int32_t first = task_.node_offset + s.template_first[t];
      std::fill(work_counters.begin() + first,
                work_counters.begin() + first + s.template_count[t], 0);
      work_counters[2 + i] = 0;
    }
    work_counters[0] = work_counters[1] = 0;
    std::fill(work_counters.begin() + task_.rank_offset, work_counters.end(), 0);
  };
  // Writes the merged bits of `from` into key_.
  auto keep_merged = [&](const Bits& from) {
    Bits out = read_bits(key_, p.key_bytes);
    for (int32_t w = 0; w < kBitsWords; ++w) {
      out.w[w] = (out.w[w] & ~p.merged_bits.w[w]) | (from.w[w] & p.merged_bits.w[w]);
    }
    write_bits(key_, out, p.key_bytes);
  };
  auto materialize = [&](std::string_view key) {
    Bits bits = read_bits(key, p.key_bytes);
    for (int32_t w = 0; w < kBitsWords; ++w) {
      for (uint64_t b = bits.w[w]; b; b &= b - 1) {
        const auto i = static_cast<size_t>(64 * w + std::countr_zero(b));
        if (i < p.facts.size()) set_bit(work.data(), p.facts[i], true);  // not arrival bits
      }
    }
    size_t at = p.key_bytes;
    int32_t length = 0;
    while (at < key.size()) {
      int32_t t;
      std::memcpy(&t, key.data() + at, 4);
      at += 4;
      work_counters[2 + length++] = t;
      const int32_t first = task_.node_offset + s.template_first[t];
      const auto bytes = 4 * static_cast<size_t>(s.template_count[t]);
      std::memcpy(work_counters.data() + first, key.data() + at, bytes);
      at += bytes;
    }
    work_counters[1] = length;
  };
  // The invariants with at least two facts in F, as masks (see "Invariants").
  std::vector<Bits> mutexes;
  for (size_t k = 0; k + 1 < spec.mutex_begin.size(); ++k) {
    Bits mask;
    int32_t inside = 0;
    for (int32_t i = spec.mutex_begin[k]; i < spec.mutex_begin[k + 1]; ++i) {
      const int32_t bit = bit_of[spec.mutex_facts[i]];
      if (bit >= 0 && !mask.test(bit)) {
        mask.set(bit);
        ++inside;
      }
    }
    if (inside >= 2) mutexes.push_back(mask);
  }
  // Places key_'s away robots (see "Away robots"), before its invariants are tested; counts
  // the keys where some away robot had nowhere to stand. Returns key_'s colocated slots, which
  // placing changes none of (set_history() reads them).
  int64_t unplaced = 0;
  auto place = [&]() {
    if (p.arrival_bit < 0) return Bits{};  // (no arrival bits: no away robots either)
    Bits bits = read_bits(key_, p.key_bytes);
    const Bits here = colocated_slots(p, bits);
    if (p.away_slots.empty()) return here;
    if (!place_away(p, bits, here)) ++unplaced;
    write_bits(key_, bits, p.key_bytes);
    return here;
  };
  auto violates = [&]() {  // whether key_'s facts break an invariant
    Bits bits = read_bits(key_, p.key_bytes);
    return std::any_of(mutexes.begin(), mutexes.end(), [&](const Bits& m) {
      return bits.common(m) > 1;
    });
  };
  // Per template of T, the bits of F it reads and writes (what it writes elsewhere is dropped);
  // timer_bits, all of them. An action that starts none of the templates and changes none of
  // these bits commutes with the end-of-step pass (see the loop below).
  std::vector<Footprint> footprints;
  std::vector<Bits> reads_in_f, writes_in_f;
  Bits timer_bits;
  auto bits_in_f = [&](const std::set<int32_t>& facts) {
    Bits out;
    for (int32_t fact : facts) {
      if (bit_of[fact] >= 0) out.set(bit_of[fact]);
    }
    return out;
  };
  for (int32_t t : p.templates) {
    footprints.push_back(footprint(task_, t));
    reads_in_f.push_back(bits_in_f(footprints.back().reads));
    writes_in_f.push_back(bits_in_f(footprints.back().writes));
    for (int32_t w = 0; w < kBitsWords; ++w) {
      timer_bits.w[w] |= reads_in_f.back().w[w] | writes_in_f.back().w[w];
    }
  }
  // Groundings that the row cannot tell apart: the same conditions and effects in F, the same
  // cost and codes, and no template of T started nor timer bit touched, so that a step by
  // either is the key with the effects on top (see the loop below). In a row without the
  // robots' positions every move of a robot is one such step; each class keeps one grounding,
  // so a state computes that step once, not once per pair of stations. The moves among them
  // that can leave a placed robot away are marked (LocalAction::away_move).
  {
    std::set<std::vector<uint64_t>> seen;
    std::vector<LocalAction> distinct;
    std::vector<uint64_t> signature;
    for (LocalAction& a : actions) {
      if (a.grounding < 0 || a.starts_template || a.touches(timer_bits)) {
        distinct.push_back(std::move(a));
        continue;
      }
      signature.assign(std::begin(a.need_true.w), std::end(a.need_true.w));
      signature.insert(signature.end(), std::begin(a.need_false.w), std::end(a.need_false.w));
      signature.insert(signature.end(), std::begin(a.hold.w), std::end(a.hold.w));
      for (const auto& [bit, value] : a.effects) {
        signature.push_back(static_cast<uint64_t>(bit) << 1 | (value ? 1 : 0));
      }
      signature.push_back(static_cast<uint64_t>(a.cost) << 48 |
                          static_cast<uint64_t>(a.arrival) << 32 |
                          static_cast<uint64_t>(a.slot) << 16 | static_cast<uint64_t>(a.idle));
      if (!seen.insert(signature).second) continue;
      if ((a.arrival & kArrivalMove) && static_cast<size_t>(a.slot) < p.away_slots.size() &&
          p.away_slots[a.slot].placed) {
        const Bits& positions = p.away_slots[a.slot].positions;
        a.away_move = std::any_of(a.effects.begin(), a.effects.end(), [&](const auto& e) {
          return e.second && positions.test(e.first);
        });
      }
      distinct.push_back(std::move(a));
    }
    actions.swap(distinct);
  }
  for (LocalAction& a : actions) a.set_masks();
  // Actions by the lowest bit they need true (bucket F.size(): none), so that a state visits
  // only the actions whose first condition it meets (moves from where the robot stands). Their
  // conditions in F lie side by side in that order: most visited actions fail them.
  const auto width = static_cast<int32_t>(p.facts.size());
  auto bucket_of = [&](const LocalAction& a) {
    for (int32_t w = 0; w < kBitsWords; ++w) {
      if (a.need_true.w[w]) return 64 * w + std::countr_zero(a.need_true.w[w]);
    }
    return width;
  };
  std::stable_sort(actions.begin(), actions.end(), [&](const auto& x, const auto& y) {
    return bucket_of(x) < bucket_of(y);
  });
  IntVec bucket_begin(static_cast<size_t>(width) + 2, 0);
  for (const LocalAction& a : actions) ++bucket_begin[bucket_of(a) + 1];
  for (int32_t b = 0; b <= width; ++b) bucket_begin[b + 1] += bucket_begin[b];
  std::vector<std::pair<Bits, Bits>> conditions;  // (need_true, need_false) per action
  for (const LocalAction& a : actions) conditions.emplace_back(a.need_true, a.need_false);
  std::set<int32_t> timer_writes;
  for (const Footprint& f : footprints) timer_writes.insert(f.writes.begin(), f.writes.end());
  // Per template of T, its root conditions that no template writes, as (fact, value): when one
  // fails once the step's action is applied, the template pauses in the pass, so its timers
  // do not tick.
  std::unordered_map<int32_t, std::vector<std::pair<int32_t, bool>>> fixed_gates;
  for (int32_t t : p.templates) {
    const int32_t root = s.template_first[t];
    if (s.node_type[root] != static_cast<int32_t>(EffectType::kConditional)) continue;
    for (int32_t l = s.node_cond_begin[root]; l < s.node_fx_begin[root + 1]; ++l) {
      if (s.lit_created_stride[l] == 0 && s.lit_guard_begin[l] == s.lit_guard_begin[l + 1] &&
          !timer_writes.contains(s.lit_fact[l])) {
        fixed_gates[t].emplace_back(s.lit_fact[l], s.lit_value[l] != 0);
      }
    }
  }
  // One step from abstract state `key` by `a` (nullptr: waiting) run by the engine on the
  // scratch state, once per way its coarse timers can tick (see "Timers"); each result is
  // projected into key_, its merged bits taken from `merged_from`, and handed to `emit`.
  struct TimerNode {
    int32_t node, template_id, progress, set;
    bool choice;  // whether the next tick can both complete it and leave it running
    bool paused;  // whether its template's root condition is known to fail in this step
  };
  std::vector<TimerNode> timer_nodes;
  KeyArena waits;    // the current state's results of waiting
  KeyArena results;  // engine_steps' distinct results so far
  auto engine_steps = [&](std::string_view key, const LocalAction* a, const Bits& merged_from,
                          const auto& emit) {
    timer_nodes.clear();
    results.clear();
    if (p.coarse_timers) {
      materialize(key);
      for (int32_t i = 0; i < work_counters[1]; ++i) {
        const int32_t t = work_counters[2 + i];
        for (int32_t node = s.template_first[t]; node < s.template_first[t] + s.template_count[t];
             ++node) {
          const int32_t word = work_counters[task_.node_offset + node];
          if (s.node_type[node] == kDelayedNode && !(word & kCompleted)) {
            timer_nodes.push_back({node, t, word & kProgressMask, 0, false, false});
          }
        }
      }
      if (a != nullptr && !timer_nodes.empty()) {
        apply_grounding(task_, work.data(), work_counters.data(), a->grounding);
      }
      for (TimerNode& t : timer_nodes) {
        const auto gates = fixed_gates.find(t.template_id);
        t.paused = gates != fixed_gates.end() &&
                   std::any_of(gates->second.begin(), gates->second.end(), [&](const auto& g) {
                     return test_bit(work.data(), g.first) != g.second;
                   });
      }
      clear();
    }
    // A coarse progress of 0 is exact; 1 stands for 1 .. goal - 1 ticks. So the next tick
    // completes the timer when the goal is 1, can complete it when progress is 1, and can
    // leave it running when progress + 1 < goal: only timers at 1 with a goal of 3 or more
    // have two ways to go.
    uint32_t open = 0;  // how many have
    for (TimerNode& t : timer_nodes) {
      const int32_t goal = s.node_goal[t.node];
      t.choice = t.progress == 1 && goal >= 3 && !t.paused;
      t.set = (t.progress == 1 || goal == 1) && !t.paused ? goal - 1 : t.progress;
      open += t.choice ? 1 : 0;
    }
    if (open > kMaxTimerChoices) return false;
    for (uint32_t fire = 0; fire < (uint32_t{1} << open); ++fire) {
      uint32_t k = 0;
      for (TimerNode& t : timer_nodes) {
        if (t.choice) t.set = (fire >> k++) & 1 ? s.node_goal[t.node] - 1 : t.progress;
      }
      materialize(key);
      for (const TimerNode& t : timer_nodes) {
        int32_t& word = work_counters[task_.node_offset + t.node];
        word = (word & ~kProgressMask) | t.set;
      }
      // Not step(): it would check the preconditions outside F, which are unknown here.
      if (a != nullptr) apply_grounding(task_, work.data(), work_counters.data(), a->grounding);
      end_step(task_, work.data(), work_counters.data());
      // Back to coarse progress: an untouched timer keeps its own, a ticked one has 1 or more
      // ticks. (A template that completed left the list; its words are zero again.)
      const int32_t* list_begin = work_counters.data() + 2;
      const int32_t* list_end = list_begin + work_counters[1];
      for (const TimerNode& t : timer_nodes) {
        int32_t& word = work_counters[task_.node_offset + t.node];
        if ((word & kCompleted) || std::find(list_begin, list_end, t.template_id) == list_end) {
          continue;
        }
        const int32_t progress = word & kProgressMask;
        word = (word & ~kProgressMask) | (progress == t.set ? t.progress : 1);
      }
      project(p, work.data(), work_counters.data());
      clear();
      keep_merged(merged_from);
      // Choices about timers that did not tick lead to the same state.
      if (results.contains(key_)) continue;
      results.push_back(key_);
      emit();
    }
    return true;
  };
  // The rows that will share this row's tables (see "Shared rows") project the start state in
  // their own way: those states, read in this row's terms, are roots of the enumeration too.
  std::vector<Projection> sharers;
  for (size_t j = static_cast<size_t>(index) + 1; j < spec.share.size(); ++j) {
    if (spec.share[j] != index) continue;
    std::vector<int16_t> unused_bits;
    std::vector<uint8_t> unused_merged;
    sharers.emplace_back();
    read_view(spec, static_cast<int32_t>(j), true, sharers.back(), unused_bits, unused_merged);
    sharers.back().coarse_timers = p.coarse_timers;
  }
  auto for_each_root = [&](const auto& visit_root) {  // each root's key in key_
    project(p, words, counters);
    visit_root();
    for (Projection& q : sharers) {
      q.sorted_timers = p.sorted_timers;
      q.key_bytes = p.key_bytes;
      project(q, words, counters);
      visit_root();
    }
  };
  for_each_root([&]() {
    if (violates()) mutexes.clear();
  });
  // Timers in any order (see "Timers"): when every two templates of T commute within an
  // end-of-step pass, their order in the list never changes a step's result.
  // Only what the templates of T read or write within F can make their order matter: they
  // read only facts of F, and what they write outside F is dropped.
  // Whether the root of template t writes a fact of F (which it negates on failing).
  auto root_writes_in_f = [&](int32_t t) {
    const int32_t root = s.template_first[t];
    for (int32_t l = s.node_fx_begin[root]; l < s.node_cond_begin[root]; ++l) {
      for (int32_t fact : task_.literal_facts(root, l)) {
        if (bit_of[fact] >= 0) return true;
      }
    }
    return false;
  };
  // The facts that the root condition of template t needs true and that no template writes,
  // when that root writes nothing in F on failing (no effects there to negate).
  auto gate_facts = [&](int32_t t) {
    IntVec out;
    const auto gates = fixed_gates.find(t);
    if (gates == fixed_gates.end() || root_writes_in_f(t)) return out;
    for (const auto& [fact, value] : gates->second) {
      if (value) out.push_back(fact);
    }
    return out;
  };
  auto in_one_invariant = [&](int32_t a, int32_t b) {
    for (size_t k = 0; !mutexes.empty() && k + 1 < spec.mutex_begin.size(); ++k) {
      const auto begin = spec.mutex_facts.begin() + spec.mutex_begin[k];
      const auto end = spec.mutex_facts.begin() + spec.mutex_begin[k + 1];
      if (std::find(begin, end, a) != end && std::find(begin, end, b) != end) return true;
    }
    return false;
  };
  auto commute = [&](size_t i, size_t j) {
    if (!writes_in_f[i].meets(reads_in_f[j]) && !writes_in_f[i].meets(writes_in_f[j]) &&
        !writes_in_f[j].meets(reads_in_f[i])) {
      return true;
    }
    // Exclusive: of two conditionals that write nothing when their condition fails, at most one
    // passes it in a pass when they need distinct facts of one invariant that no template writes.
    for (int32_t a : gate_facts(p.templates[i])) {
      for (int32_t b : gate_facts(p.templates[j])) {
        if (a != b && in_one_invariant(a, b)) return true;
      }
    }
    return false;
  };
  p.sorted_timers = p.coarse_timers;
  for (size_t i = 0; i < footprints.size() && p.sorted_timers; ++i) {
    for (size_t j = i + 1; j < footprints.size() && p.sorted_timers; ++j) {
      p.sorted_timers = commute(i, j);
    }
  }
  std::string current;  // the key of the state expanded (a copy: interning moves the arena)
  std::vector<const LocalAction*> away_move_taken;  // per state (see expand)
  // Expands state `id`, whose key is `current`, into its edges. False where the row fails (its
  // timers could tick in too many ways).
  auto expand = [&](int32_t id) {
    const std::string& key = current;
    Bits bits = read_bits(key, p.key_bytes);
    const bool timers = key.size() > p.key_bytes;
    // Waiting: one end-of-step pass (per way the timers can tick).
    waits.clear();
    bool too_many_choices = false;
    if (timers && !engine_steps(key, nullptr, bits, [&]() { waits.push_back(key_); })) {
      return false;
    }
    const bool idling = p.idle_bit >= 0 && bits.test(p.idle_bit);
    // Per robot slot, the first move this state took that left the robot away (see
    // LocalAction::away_move), or null. A later one with the same cost and codes would end in
    // the same target, so it is skipped.
    away_move_taken.assign(p.away_slots.size(), nullptr);
    // The step by `a` (whose conditions in F hold) into `next`, its effects applied, at `cost`.
    auto take = [&](const LocalAction& a, const Bits& next, int32_t cost) {
      auto add_edge = [&]() {
        const Bits here = place();
        if (violates()) return;
        set_history(bits, &a, here);
        add_target(cost);
      };
      if (a.grounding < 0) {  // another creator's creation: no real step of this row's
        key_ = key;
        write_bits(key_, next, p.key_bytes);
        const Bits here = place();
        if (violates()) return;
        set_history(bits, nullptr, here);
        add_target(0);
        return;
      }
      if (!a.starts_template && (!timers || (tick_free_ && !a.touches(timer_bits)))) {
        // No pass runs, or (joint steps) it is the waiting edge: the effects on top of the key.
        key_ = key;
        write_bits(key_, next, p.key_bytes);
        add_edge();
      } else if (tick_free_) {
        // The engine applies the action and leaves the end-of-step pass out. No timer ticks,
        // so the coarse progress stays as it is (an action never reads a delayed node's).
        materialize(key);
        apply_grounding(task_, work.data(), work_counters.data(), a.grounding);
        project(p, work.data(), work_counters.data());
        clear();
        keep_merged(next);
        add_edge();
      } else if (!a.starts_template && !a.touches(timer_bits)) {
        // The end-of-step pass neither reads nor writes what the action changes, so the step
        // ends where waiting ends, with the action's effects on top.
        for (size_t w = 0; w < waits.size(); ++w) {
          key_ = waits[w];
          write_bits(key_, a.applied_to(read_bits(key_, p.key_bytes)), p.key_bytes);
          add_edge();
        }
      } else {
        // Merged bits follow the effects (no template touches them); the scratch state held
        // only their representatives, so its projection can miss a deletion.
        too_many_choices = too_many_choices || !engine_steps(key, &a, next, add_edge);
      }
    };
    auto visit = [&](const LocalAction& a) {  // one whose conditions in F hold
      // A hand-over right after the pick, with no move between: impossible (projection.h).
      if ((a.arrival & kArrivalHandOver) && bits.test(p.picked_bit + a.slot)) return;
      // So is putting the object down right after a hand-over that kept it.
      if ((a.arrival & kArrivalDrop) && p.stays_bit >= 0 && bits.test(p.stays_bit + a.slot)) {
        return;
      }
      // Needs a full hand, or what the object rules out, while the robot idles: impossible.
      if ((a.idle & kIdleBlocked) && idling) return;
      const int32_t cost =
          (a.cost == 2 ? (bits.meets(a.hold) ? 1 : 0) : a.cost) +
          ((a.arrival & kArrivalPick) && bits.test(p.arrival_bit + a.slot) ? 1 : 0);
      const Bits next = a.applied_to(bits);
      if (!a.away_move || !slot_away(p, a.slot, next)) {
        take(a, next, cost);
        return;
      }
      const LocalAction* taken = away_move_taken[a.slot];
      if (taken == nullptr) {
        const int64_t unplaced_before = unplaced;
        take(a, next, cost);
        // Where placing failed, the robot stayed where it moved to: each move is a target.
        if (unplaced == unplaced_before) away_move_taken[a.slot] = &a;
      } else if (taken->cost != a.cost || taken->hold != a.hold ||
                 taken->arrival != a.arrival || taken->idle != a.idle) {
        take(a, next, cost);
      }
    };
    auto visit_bucket = [&](int32_t bucket) {
      // The conditions lie in F, within the key's words: a row of one word tests one, not
      // kBitsWords (this test runs for every action of every bucket a state visits).
      auto scan = [&]<int32_t words>() {
        for (int32_t i = bucket_begin[bucket]; i < bucket_begin[bucket + 1]; ++i) {
          const auto& [need_true, need_false] = conditions[i];
          bool hold = true;
          for (int32_t w = 0; w < words; ++w) {
            hold = hold && (bits.w[w] & need_true.w[w]) == need_true.w[w] &&
                   (bits.w[w] & need_false.w[w]) == 0;
          }
          if (hold) visit(actions[i]);
        }
      };
      switch (p.key_bytes) {
        case 8:
          scan.template operator()<1>();
          break;
        case 16:
          scan.template operator()<2>();
          break;
        default:
          scan.template operator()<kBitsWords>();
      }
    };
    for (int32_t w = 0; w < kBitsWords; ++w) {
      // F's bits only: the arrival bits after them have no bucket.
      const int32_t below = std::clamp(width - 64 * w, 0, 64);
      const uint64_t facts_mask = below == 64 ? ~uint64_t{0} : (uint64_t{1} << below) - 1;
      for (uint64_t b = bits.w[w] & facts_mask; b; b &= b - 1) {
        const int32_t bit = 64 * w + std::countr_zero(b);
        visit_bucket(bit);
      }
    }
    visit_bucket(width);
    intern_targets(static_cast<int32_t>(id));
    if (too_many_choices) return false;
    for (size_t w = 0; w < waits.size(); ++w) {
      key_ = waits[w];
      const Bits here = place();
      if (violates()) continue;  // (it never does: no template writes an invariant's fact)
      set_history(bits, nullptr, here);
      // Waiting while the robot idles at the object is a real step charged to nobody.
      add_target(idling ? 1 : 0);
    }
    intern_targets(id);
    return true;
  };
  // Enumerating together: takes batches of states to expand until none is left and none is
  // being expanded (it could find more), or the enumeration fails. A batch is expanded without
  // the lock and its targets interned under it at once (locking once per state, two threads
  // were no faster than one: each waited a third of its time for the lock). The owner alone
  // polls `stop`, and leaves only once no state is being expanded. False where the enumeration
  // failed.
  KeyArena batch_keys;
  IntVec batch;                    // the states of the batch
  std::vector<size_t> batch_end;   // ... and where their targets end
  std::vector<Edge> state_edges;
  auto take_states = [&]() {
    SharedEnumeration& t = *shared;
    std::unique_lock lock(t.mutex);
    int64_t taken = 0;
    while (!t.failed && !t.ended) {
      if (!t.started || t.next >= keys_list.size()) {
        if (t.started && t.busy == 0) {
          t.ended = true;
        } else {
          t.more.wait(lock);
        }
        continue;
      }
      if (static_cast<int64_t>(keys_list.size()) > max_states) {
        t.failed = true;
        t.over_cap = static_cast<int64_t>(t.next);
        break;
      }
      // A share of the states waiting, so that the other threads find some too.
      const size_t waiting = keys_list.size() - t.next;
      const size_t size = std::clamp<size_t>(waiting / t.threads, 1, kBatchStates);
      batch.clear();
      batch_keys.clear();
      for (; batch.size() < size && t.next < keys_list.size(); ++t.next) {
        if (static_cast<int32_t>(t.next) == sink) continue;  // no steps
        batch.push_back(static_cast<int32_t>(t.next));
        batch_keys.push_back(keys_list[t.next]);
      }
      if (batch.empty()) continue;
      ++t.busy;
      try {
        lock.unlock();
        bool expanded = true;
        batch_end.clear();
        for (size_t b = 0; b < batch.size() && expanded; ++b) {
          current.assign(batch_keys[b]);
          expanded = !(joined == nullptr && (++taken & 1023) == 0 && stop && stop()) &&
                     expand(batch[b]);
          batch_end.push_back(targets.size());
        }
        if (expanded) hash_targets();
        lock.lock();
        size_t begin = 0;
        for (size_t b = 0; b < batch.size() && expanded; ++b) {
          state_edges.clear();
          intern_range(batch[b], begin, batch_end[b], state_edges, 0);
          begin = batch_end[b];
          t.block_from.push_back(batch[b]);
          t.block_begin.push_back(t.edges.size());
          t.edges.insert(t.edges.end(), state_edges.begin(), state_edges.end());
        }
        t.failed = t.failed || !expanded;
      } catch (...) {  // (out of memory): the owner raises it
        if (!lock.owns_lock()) lock.lock();
        if (!t.error) t.error = std::current_exception();
        t.failed = true;
      }
      --t.busy;
      targets.clear();
      target_cost.clear();
      raw_base = 0;
      t.more.notify_all();
    }
    t.more.notify_all();
    if (joined == nullptr) t.more.wait(lock, [&]() { return t.busy == 0; });
    return !t.failed;
  };
  if (joined == nullptr) {
    // (Before `started`: no helper reads the keys yet.)
    for_each_root([&]() {
      place();
      intern();
    });
  }
  if (shared == nullptr) {
    for (size_t id = 0; id < keys_list.size(); ++id) {
      if (static_cast<int64_t>(keys_list.size()) > max_states) {
        over_cap_expanded_ = static_cast<int64_t>(id);
        return false;
      }
      if ((id & 1023) == 1023 && stop && stop()) return false;
      if (static_cast<int32_t>(id) != sink) {  // (the sink has no steps)
        current.assign(keys_list[id]);
        if (!expand(static_cast<int32_t>(id))) return false;
      }
      edge_begin.push_back(static_cast<int32_t>(edges.size()));
    }
  } else {
    if (joined == nullptr) {
      const std::lock_guard lock(shared->mutex);
      shared->started = true;
      shared->more.notify_all();
    }
    const bool enumerated = take_states();
    if (joined != nullptr) return false;  // the owner builds the row
    if (!enumerated) {
      if (shared->error) std::rethrow_exception(shared->error);
      over_cap_expanded_ = shared->over_cap;
      return false;
    }
    // The edges by state, in the order of their ids, as one thread lays them out.
    const size_t states = keys_list.size(), blocks = shared->block_from.size();
    std::vector<size_t>& block_begin = shared->block_begin;
    block_begin.push_back(shared->edges.size());
    edge_begin.assign(states + 1, 0);
    for (size_t b = 0; b < blocks; ++b) {
      edge_begin[static_cast<size_t>(shared->block_from[b]) + 1] =
          static_cast<int32_t>(block_begin[b + 1] - block_begin[b]);
    }
    for (size_t i = 0; i < states; ++i) edge_begin[i + 1] += edge_begin[i];
    edges.resize(shared->edges.size());
    for (size_t b = 0; b < blocks; ++b) {
      std::copy(shared->edges.begin() + static_cast<ptrdiff_t>(block_begin[b]),
                shared->edges.begin() + static_cast<ptrdiff_t>(block_begin[b + 1]),
                edges.begin() + edge_begin[static_cast<size_t>(shared->block_from[b])]);
    }
    std::vector<Edge>().swap(shared->edges);
  }

  // Backward searches from the abstract goal states, over the reverse edges: per state, the
  // sources and costs of the edges into it (CSR).
  const auto count = static_cast<int32_t>(keys_list.size());
  IntVec reverse_begin(static_cast<size_t>(count) + 1, 0), reverse_source(edges.size());
  std::vector<uint8_t> reverse_cost(edges.size());
  for (const Edge& e : edges) ++reverse_begin[e.to + 1];
  for (int32_t i = 0; i < count; ++i) reverse_begin[i + 1] += reverse_begin[i];
  {
    IntVec fill(reverse_begin.begin(), reverse_begin.end() - 1);
    for (int32_t from = 0; from < count; ++from) {
      for (int32_t e = edge_begin[from]; e < edge_begin[from + 1]; ++e) {
        const int32_t r = fill[edges[e].to]++;
        reverse_source[r] = from;
        reverse_cost[r] = static_cast<uint8_t>(edges[e].cost);
      }
    }
  }
  std::vector<Edge>().swap(edges);  // no longer needed: free it before the distance tables
  std::vector<uint64_t> optimistic(static_cast<size_t>(task_.num_words), ~uint64_t{0});
  if (task_.num_facts % 64 != 0) {
    optimistic.back() = (uint64_t{1} << (task_.num_facts % 64)) - 1;
  }
  // Goal tests depend only on the bits of F that some goal atom can name (not, e.g., on where
  // the robot stands), so they are computed once per distinct value of those bits: per
  // abstract state, a "goal class" with one flag per combination.
  Bits goal_mask;
  {
    IntVec atom_facts;
    const auto atoms = static_cast<int32_t>(task_.spec.goal_atom_base.size());
    for (int32_t a = 0; a < atoms; ++a) {
      if (!task_.atom_facts_under(a, nullptr, 1 << 16, atom_facts)) {
        for (uint64_t& w : goal_mask.w) w = ~uint64_t{0};
        break;
      }
      for (int32_t f : atom_facts) {
        if (bit_of[f] >= 0) goal_mask.set(bit_of[f]);
      }
    }
  }
  IntVec fixed(task_.spec.goal_var_group.size(), -1);
  // Classes by their masked bits, ids in order of first use; the sink has a class of its own
  // (its key's length is no real state's), a goal of every column, kept in class_bits as zeros
  // but never put in the index.
  IdIndex class_index;
  std::vector<Bits> class_bits;
  int32_t sink_class = -1;
  IntVec goal_class(static_cast<size_t>(count));
  const int64_t columns = static_cast<int64_t>(num_combos_) * p.width;  // (combination, role)
  std::vector<uint8_t> class_goal;  // [class * columns + c * width + role]
  const auto keys = static_cast<int32_t>(key_vars_.size());
  for (int32_t id = 0; id < count; ++id) {
    if ((id & 1023) == 1023 && stop && stop()) return false;
    Bits bits = read_bits(keys_list[id], p.key_bytes);
    bits &= goal_mask;
    const auto next_class = static_cast<uint32_t>(class_bits.size());
    bool fresh;
    if (id == sink) {
      fresh = sink_class < 0;
      if (fresh) sink_class = static_cast<int32_t>(next_class);
      goal_class[id] = sink_class;
    } else {
      const uint32_t hash =
          key_hash(std::string_view(reinterpret_cast<const char*>(bits.w), p.key_bytes));
      uint32_t found;
      std::tie(found, fresh) = class_index.find_or_insert(hash, next_class, [&](uint32_t k) {
        return class_bits[k] == bits;
      });
      goal_class[id] = static_cast<int32_t>(found);
    }
    if (!fresh) continue;
    class_bits.push_back(id == sink ? Bits{} : bits);
    if (id == sink) {
      class_goal.insert(class_goal.end(), static_cast<size_t>(num_combos_) * p.width, 1);
      continue;
    }
    for (size_t i = 0; i < p.facts.size(); ++i) {
      set_bit(optimistic.data(), p.facts[i], bits.test(static_cast<int32_t>(i)));
    }
    for (const auto& [bit, fact] : p.merged) set_bit(optimistic.data(), fact, bits.test(bit));
    for (int32_t c = 0; c < num_combos_; ++c) {
      for (int32_t k = 0; k < keys; ++k) fixed[key_vars_[k]] = combos_[c * keys + k];
      for (int32_t r = 0; r < p.width; ++r) {
        const int32_t role_var = p.roles.empty() ? -1 : groups_[p.group].vars[p.roles[r]];
        if (role_var >= 0) fixed[role_var] = p.object;
        class_goal.push_back(goal_reached_with(task_, optimistic.data(), fixed.data()) ? 1 : 0);
        if (role_var >= 0) fixed[role_var] = -1;
      }
    }
  }
  // Per column (combination x role), the distances backwards from its goal states
  // (layered_distances, 64 columns at a time). Columns with the same goal states (e.g. a role
  // whose atoms name no key variable, under every combination) share one column of p.distance.
  const size_t num_classes = class_bits.size();
  // The columns' goal classes are hashed in one pass over class_goal (by class), and a column
  // whose hash an earlier distinct column has is compared with it class by class.
  std::vector<uint64_t> column_hash(static_cast<size_t>(columns), 0xCBF29CE484222325ULL);
  for (size_t k = 0; k < num_classes; ++k) {
    const uint8_t* goals = class_goal.data() + k * columns;
    for (int64_t column = 0; column < columns; ++column) {
      column_hash[column] = (column_hash[column] ^ goals[column]) * 0x100000001B3ULL;
    }
  }
  IdIndex column_index;
  IntVec distinct_goals;  // per column of p.distance: the first column with its goal classes
  p.column_of.resize(static_cast<size_t>(columns));
  for (int32_t column = 0; column < columns; ++column) {
    const uint64_t h = column_hash[column];
    const auto next = static_cast<uint32_t>(distinct_goals.size());
    const auto [id, fresh] = column_index.find_or_insert(
        static_cast<uint32_t>(h ^ (h >> 32)), next, [&](uint32_t d) {
          const int32_t other = distinct_goals[d];
          for (size_t k = 0; k < num_classes; ++k) {
            if (class_goal[k * columns + other] != class_goal[k * columns + column]) return false;
          }
          return true;
        });
    if (fresh) distinct_goals.push_back(column);
    p.column_of[column] = static_cast<int32_t>(id);
  }
  p.columns = static_cast<int32_t>(distinct_goals.size());
  const int64_t entries = static_cast<int64_t>(count) * p.columns;
  if (distance_entries_ + entries > max_distance_entries_) return false;
  p.distance.assign(static_cast<size_t>(entries), kUnreached);
  LayeredSeeds seeds;
  std::vector<uint64_t> class_columns(num_classes);
  for (int32_t first = 0; first < p.columns; first += 64) {  // columns first, first + 1, ...
    const int32_t width = std::min<int32_t>(64, p.columns - first);
    for (size_t k = 0; k < num_classes; ++k) {
      class_columns[k] = 0;
      for (int32_t u = 0; u < width; ++u) {
        if (class_goal[k * columns + distinct_goals[first + u]]) {
          class_columns[k] |= uint64_t{1} << u;
        }
      }
    }
    seeds.assign(1, {});
    for (int32_t id = 0; id < count; ++id) {
      if (class_columns[goal_class[id]] != 0) {
        seeds[0].emplace_back(id, class_columns[goal_class[id]]);
      }
    }
    if (!distances_into(p.distance, p.columns, first, reverse_begin, reverse_source,
                        reverse_cost, seeds, stop)) {
      return false;
    }
  }
  // Lifted roles (see "Lifts"): distances through a state where the object is elsewhere.
  if (p.group >= 0 && !lifts_.empty()) {
    p.lift_of_role.assign(p.roles.size(), -1);
    bool lifted = false;
    for (size_t r = 0; r < p.roles.size(); ++r) {
      const int32_t var = groups_[p.group].vars[p.roles[r]];
      for (size_t e = 0; e < lifts_.size(); ++e) {
        if (lifts_[e].var != var) continue;
        p.lift_of_role[r] = static_cast<int32_t>(e);
        lifted = true;
      }
    }
    std::vector<Bits> bits(lifted ? static_cast<size_t>(count) : 0);
    for (size_t id = 0; id < bits.size(); ++id) {
      bits[id] = read_bits(keys_list[id], p.key_bytes);
    }
    if (lifted && !build_via(p, spec, index, bits, sink, bit_of, reverse_begin, reverse_source,
                             reverse_cost, max_distance_entries_ - distance_entries_ - entries)) {
      return false;
    }
    if (lifted && !park_links_.empty() &&
        !build_parks(p, spec, index, bits, sink, bit_of, reverse_begin, reverse_source,
                     reverse_cost,
                     max_distance_entries_ - distance_entries_ - entries -
                         static_cast<int64_t>(p.via.size()))) {
      return false;
    }
  }
  // Abstract states without running timers (most) get an open-addressing table on their bits'
  // words; the others stay in the string map.
  size_t plain = 0;
  for (int32_t id = 0; id < count; ++id) plain += keys_list[id].size() == p.key_bytes ? 1 : 0;
  const size_t key_words = p.key_bytes / 8;
  size_t slots = 16;
  while (slots < 2 * plain) slots *= 2;
  const size_t stride = key_words + 1;
  p.plain.assign(slots * stride, kEmptyPlain);
  p.plain_slots = slots;
  for (int32_t id = 0; id < count; ++id) {
    const std::string_view key = keys_list[id];
    if (key.size() != p.key_bytes) {
      // Every key is distinct: nothing to compare.
      p.timed_index.find_or_insert(key_hash(key), static_cast<uint32_t>(p.timed_ids.size()),
                                   [](uint32_t) { return false; });
      p.timed_keys.append(key);
      p.timed_end.push_back(p.timed_keys.size());
      p.timed_ids.push_back(id);
      continue;
    }
    Bits bits = read_bits(key, p.key_bytes);
    size_t i = plain_slot<kBitsWords>(bits.w, slots);
    while (p.plain[i * stride + key_words] != kEmptyPlain) i = (i + 1) & (slots - 1);
    std::copy(bits.w, bits.w + key_words, p.plain.begin() + static_cast<ptrdiff_t>(i * stride));
    p.plain[i * stride + key_words] = static_cast<uint64_t>(id);
  }
  p.states = count;
  abstract_states_ += count;
  distance_entries_ += p.entries();
  projections_.push_back(std::move(p));
  return true;
}

int32_t ProjectionHeuristic::find(const Projection& p, const uint64_t* words,
                                  const int32_t* counters, bool& hands_read) {
  hands_read = false;
  found_bits_ = Bits{};
  found_away_ = 0;
  project(p, words, counters);
  Bits bits;
  Bits unpaid;  // arrival bits set for a full hand or a covered object
  bool raised = false;  // a fresh-pick, unpaid arrival or the idle bit is set
  if (p.arrival_bit >= 0 || p.idle_bit >= 0) {
    bits = read_bits(key_, p.key_bytes);
    found_bits_ = bits;
    // Where robots stand beside the object: neither the history bits nor placing change it.
    const Bits here = p.arrival_bit >= 0 ? colocated_slots(p, bits) : Bits{};
    if (p.arrival_bit >= 0) bits = canonical_arrivals(p, bits, here);
    // Where a robot stands at the object with its hand full, or at a covered item, it must
    // move before it picks the object up (projection.h, "Arrivals"): its arrival is still to
    // pay.
    const auto hands = std::min<int32_t>(p.arrival_slots, static_cast<int32_t>(free_hands_.size()));
    for (int32_t slot = 0; slot < hands; ++slot) {
      const int32_t bit = p.arrival_bit + slot;
      if (free_hands_[slot] < 0 || bits.test(bit)) continue;
      hands_read = true;
      if (!test_bit(words, free_hands_[slot]) ||
          (p.covered >= 0 && !test_bit(words, p.covered))) {
        bits.set(bit);
        unpaid.set(bit);
        raised = true;
      }
    }
    for (int32_t slot = 0; p.picked_bit >= 0 && slot < p.arrival_slots; ++slot) {
      if (must_move_to_hand_over(p, slot, bits, words)) {
        bits.set(p.picked_bit + slot);
        raised = true;
      } else if (p.stays_bit >= 0 && bits.meets(p.slot_holds[slot])) {
        // It holds the object beside a container: it moves before it puts it down.
        bits.set(p.stays_bit + slot);
        raised = true;
      }
    }
    if (p.idle_bit >= 0 && test_bit(words, p.idle_free) && p.idle_place(bits)) {
      bits.set(p.idle_bit);
      raised = true;
    }
    Bits placed;
    if (!p.away_slots.empty() && place_away(p, bits, here, &placed)) found_away_ = placed.w[0];
    write_bits(key_, bits, p.key_bytes);
  }
  canonical_robots(p, key_);
  const int32_t id = lookup(p);
  if (id >= 0 || !raised) return id;
  // Never reached with those bits set: read them clear, which allows more. The key is
  // projected again, since canonical_robots() may have swapped it.
  project(p, words, counters);
  for (int32_t slot = 0; p.picked_bit >= 0 && slot < p.arrival_slots; ++slot) {
    bits.assign(p.picked_bit + slot, false);
    if (p.stays_bit >= 0) bits.assign(p.stays_bit + slot, false);
  }
  if (p.idle_bit >= 0) bits.assign(p.idle_bit, false);
  for (int32_t w = 0; w < kBitsWords; ++w) bits.w[w] &= ~unpaid.w[w];
  write_bits(key_, bits, p.key_bytes);  // (its away robots placed above)
  canonical_robots(p, key_);
  return lookup(p);
}

ProjectionHeuristic::Bits ProjectionHeuristic::away_now(const Projection& p, const Bits& bits) {
  return p.away_slots.empty() ? Bits{} : away_now(p, bits, colocated_slots(p, bits));
}

bool ProjectionHeuristic::place_away(const Projection& p, Bits& bits, const Bits& here,
                                     Bits* placed) {
  const Bits away = away_now(p, bits, here);
  if (placed != nullptr) *placed = away;
  if (!away.any()) return true;
  const Bits before = bits;
  // The stations where a colocated fact holds, or a robot that is not away stands.
  uint64_t taken = 0;
  for (int32_t w = 0; w < kBitsWords; ++w) {
    for (uint64_t b = bits.w[w] & p.place_bits.w[w]; b; b &= b - 1) {
      taken |= p.place_stations[static_cast<size_t>(64 * w + std::countr_zero(b))];
    }
  }
  for (size_t k = 0; k < p.away_slots.size(); ++k) {
    const Bits& positions = p.away_slots[k].positions;
    for (int32_t w = 0; w < kBitsWords; ++w) {
      for (uint64_t b = bits.w[w] & positions.w[w]; b; b &= b - 1) {
        const int32_t bit = 64 * w + std::countr_zero(b);
        if (away.test(static_cast<int32_t>(k))) {
          bits.assign(bit, false);
        } else {
          taken |= uint64_t{1} << p.station_of[static_cast<size_t>(bit)];
        }
      }
    }
  }
  for (size_t k = 0; k < p.away_slots.size(); ++k) {
    if (!away.test(static_cast<int32_t>(k))) continue;
    const uint64_t free = p.away_slots[k].stations & ~taken;
    if (free == 0) {  // nowhere to place it (no real state): the state stays as it was
      bits = before;
      return false;
    }
    bits.set(p.away_slots[k].bit_at[static_cast<size_t>(std::countr_zero(free))]);
    taken |= free & -free;
  }
  return true;
}

bool ProjectionHeuristic::moved_while_away(const Projection& p, size_t row,
                                           const uint64_t* words) {
  Bits now = row_bits_[row];
  uint64_t moved = 0;  // the slots whose robots moved
  for (const auto& [watched, diff] : moved_) {
    // Every fact that changed is a position of a placed away robot (evaluate() checked).
    const Projection::WordPositions& positions = p.watched_positions[static_cast<size_t>(watched)];
    const uint64_t now_there = words[p.watched[static_cast<size_t>(watched)].word];
    for (uint64_t left = diff; left != 0; left &= left - 1) {
      const int32_t k = std::countr_zero(left);
      const auto [slot, bit] = positions.at[static_cast<size_t>(k)];
      now.assign(bit, (now_there >> k) & 1);
      moved |= uint64_t{1} << slot;
    }
  }
  // Each moved robot was away and placed, and is away again (it holds nothing: no fact but
  // positions changed; it stands somewhere, and not where it could pick the object up), so
  // find() would erase where it stands and place it as before. No other input of find()
  // changed: the robot's arrival bit stays set (so its hand is not read), it has nothing to
  // hand over, and it idles nowhere (a row with away robots idles only at colocated places).
  if ((moved & ~row_away_[row]) != 0) return false;
  for (; moved != 0; moved &= moved - 1) {
    const int32_t slot = std::countr_zero(moved);
    if (!slot_away(p, slot, now) ||
        (p.picked_bit >= 0 && now.meets(p.slot_holds[static_cast<size_t>(slot)]))) {
      return false;
    }
  }
  row_bits_[row] = now;
  return true;
}

bool ProjectionHeuristic::must_move_to_hand_over(const Projection& p, int32_t slot,
                                                 const Bits& bits, const uint64_t* words) const {
  const Bits& holds = p.slot_holds[slot];
  if (!bits.meets(holds)) return false;
  return std::none_of(hand_over_places_.begin(), hand_over_places_.end(), [&](const auto& at) {
    return at.slot == slot && test_bit(words, at.robot_at) && test_bit(words, at.container_at);
  });
}

int32_t ProjectionHeuristic::lookup(const Projection& p) const {
  // A key without timers probes the open-addressing table, its width a constant.
  auto probe = [&]<size_t words>() -> int32_t {
    uint64_t key[words];
    std::memcpy(key, key_.data(), sizeof(key));
    const size_t mask = p.plain_slots - 1;
    for (size_t i = plain_slot<words>(key, p.plain_slots);; i = (i + 1) & mask) {
      const uint64_t* slot = p.plain.data() + i * (words + 1);
      if (slot[words] == kEmptyPlain) return -1;
      if (std::equal(key, key + words, slot)) return static_cast<int32_t>(slot[words]);
    }
  };
  if (key_.size() == p.key_bytes) {
    switch (p.key_bytes) {
      case 8:
        return probe.template operator()<1>();
      case 16:
        return probe.template operator()<2>();
      default:
        return probe.template operator()<kBitsWords>();
    }
  }
  const uint32_t found =
      p.timed_index.find(key_hash(key_), [&](uint32_t k) { return p.timed_key(k) == key_; });
  return found == IdIndex::kNotFound ? -1 : p.timed_ids[found];
}

void ProjectionHeuristic::match(const RoleGroup& group) {
  constexpr int32_t kInf = 1 << 28;
  const auto vars = static_cast<int32_t>(group.vars.size());
  const uint32_t all = (uint32_t{1} << vars) - 1;
  const size_t classes = group.class_combos.size();
  // dp_[mask * classes + k]: the cheapest way, for class k, that the members so far play
  // exactly the variables in mask (kInf: none). Classes are innermost so the updates run
  // over contiguous rows.
  dp_.assign((size_t{all} + 1) * classes, kInf);
  std::fill(dp_.begin(), dp_.begin() + static_cast<ptrdiff_t>(classes), 0);
  // The members' distance rows are mostly out of cache: ask for all their lines at once
  // rather than miss on them one member at a time.
  for (const int32_t m : group.members) {
    if (ids_[m] < 0) continue;
    const Projection& p = (*rows_)[m];
    const auto at = static_cast<size_t>(ids_[m]);
    const auto* row = reinterpret_cast<const char*>(p.distance.data() + at * p.columns);
    const size_t bytes = static_cast<size_t>(p.columns) * sizeof(uint16_t);
    for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b);
  }
  for (size_t i = 0; i < group.members.size(); ++i) {
    const Projection& p = (*rows_)[group.members[i]];
    const int32_t id = ids_[group.members[i]];
    const auto at = static_cast<size_t>(id);
    const auto roles = p.roles.size();
    role_costs_.resize(roles * classes);
    if (id < 0) {
      std::fill(role_costs_.begin(), role_costs_.end(), 0);  // a state never reached: 0 is safe
    } else {
      // This member's cost per role and class (kInf: it cannot play the role).
      const uint16_t* d = p.distance.data() + at * p.columns;
      const uint16_t* via = p.via.empty() ? nullptr : p.via.data() + at * p.via_columns;
      const RoleGroup::RoleColumn* columns = group.role_columns.data() + group.role_begin[i];
      for (size_t j = 0; j < roles * classes; ++j) {
        const RoleGroup::RoleColumn& rc = columns[j];
        int32_t cost = rc.missing >= 0 && missing_[static_cast<size_t>(rc.missing)] != 0
                           ? via[rc.via_column]
                           : d[rc.column];
        for (int32_t k = rc.park_begin; k < rc.park_end; ++k) {
          const auto& [table, flag] = group.park_refs[static_cast<size_t>(k)];
          if (missing_[static_cast<size_t>(flag)] == 0) continue;
          const std::vector<uint16_t>& park = p.parks[static_cast<size_t>(table)].distance;
          cost = std::max<int32_t>(cost, park[at * p.via_columns + rc.via_column]);
        }
        role_costs_[j] = cost < kUnreached ? cost : kInf;
      }
    }
    // Masks downwards: a mask only grows, so each member plays at most one role. The members
    // before this one fill at most i variables: larger masks are still kInf. A member that
    // plays no role costs its skip cost (see "Clearing"), added to a mask once the masks
    // above it have read it.
    const int32_t skip = group.skip.empty() ? 0 : group.skip[i];
    for (uint32_t mask = all + 1; mask-- > 0;) {
      if (static_cast<size_t>(std::popcount(mask)) > i) continue;
      int32_t* from = dp_.data() + size_t{mask} * classes;
      for (size_t r = 0; r < roles; ++r) {
        const uint32_t bit = uint32_t{1} << p.roles[r];
        if (mask & bit) continue;
        int32_t* to = dp_.data() + size_t{mask | bit} * classes;
        const int32_t* cost = role_costs_.data() + r * classes;
        for (size_t k = 0; k < classes; ++k) {
          to[k] = std::min(to[k], std::min(from[k] + cost[k], kInf));
        }
      }
      if (skip != 0) {
        for (size_t k = 0; k < classes; ++k) from[k] = std::min(from[k] + skip, kInf);
      }
    }
  }
  class_costs_.assign(classes, kInf);
  for (uint32_t mask = 0; mask <= all; ++mask) {
    if ((all & ~mask & ~group.free_vars) != 0) continue;
    const int32_t* row = dp_.data() + size_t{mask} * classes;
    for (size_t k = 0; k < classes; ++k) class_costs_[k] = std::min(class_costs_[k], row[k]);
  }
}

int32_t ProjectionHeuristic::evaluate(const uint64_t* words, const int32_t* counters) {
  const std::vector<Projection>& rows = *rows_;
  if (!clearing_requirements_.empty()) open_requirements(words, counters);
  if (rows.empty()) return clearing(words);
  const bool first = last_words_.empty();
  const auto num_words = static_cast<size_t>(task_.num_words);
  const auto num_counters = static_cast<size_t>(task_.num_counters);
  const bool counters_changed =
      first || !std::equal(counters, counters + num_counters, last_counters_.begin());
  // Whether some fact of `masks` differs from the state before.
  auto moves = [&](const std::vector<FactMask>& masks) {
    return first || std::any_of(masks.begin(), masks.end(), [&](const FactMask& m) {
             return ((words[m.word] ^ last_words_[m.word]) & m.mask) != 0;
           });
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const Projection& p = rows[i];
    // find() reads only the watched facts (F's, merged ones included, and the few outside F
    // it reads), and the counters when T is not empty. Most steps move a robot, and in most
    // rows that robot was away and stays away (it neither holds the object nor stands where
    // it could pick it up): find() would erase where it stands, so it would read the same.
    bool changed = first || (counters_changed && !p.templates.empty());
    moved_.clear();  // facts changed, all of them placed away robots' positions
    for (size_t k = 0; k < p.watched.size() && !changed; ++k) {
      const FactMask& m = p.watched[k];
      const uint64_t diff = (words[m.word] ^ last_words_[m.word]) & m.mask;
      changed = (diff & ~(p.watched_positions.empty() ? 0 : p.watched_positions[k].mask)) != 0;
      if (diff != 0) moved_.push_back({static_cast<int32_t>(k), diff});
    }
    if (!changed && hand_read_[i]) changed = moves(hand_masks_);
    if (!changed && !moved_.empty()) changed = !moved_while_away(p, i, words);
    bool hands_read = hand_read_[i] != 0;
    const int32_t id = changed ? find(p, words, counters, hands_read) : ids_[i];
    if (changed) {
      row_bits_[i] = found_bits_;
      row_away_[i] = found_away_;
    }
    hand_read_[i] = hands_read ? 1 : 0;
    id_changed_[i] = first || id != ids_[i];
    ids_[i] = id;
  }
  // Per lift and value of K: whether some companion variable has no candidate at K. Most
  // steps move none of the companions' candidates, and missing_ then stands.
  const bool companions_moved = moves(lift_words_);
  // Buried objects change only with the facts bury() reads (companions' among them).
  const bool stacks_moved = !atop_of_.empty() && moves(bury_words_);
  last_words_.assign(words, words + num_words);
  last_counters_.assign(counters, counters + num_counters);
  if (companions_moved) {
    for (const Lift& lift : lifts_) {
      for (size_t v = 0; v < lift.companions.size(); ++v) {
        bool some_at = false;
        missing_[lift.missing_begin + v] = 0;
        for (const FactMask& m : lift.companions[v]) {
          if (m.word >= 0) {
            some_at = some_at || (words[m.word] & m.mask) != 0;
          } else if (!some_at) {
            missing_[lift.missing_begin + v] = 1;
            break;
          } else {
            some_at = false;
          }
        }
      }
    }
  }
  // Parks apply where their companion is absent and their requirement open (see "Parks").
  for (const ParkLink& link : park_links_) {
    const Lift& lift = lifts_[static_cast<size_t>(link.lift)];
    const bool open = requirement_open_[static_cast<size_t>(
                          parks_[static_cast<size_t>(link.park)].requirement)] != 0;
    const size_t at = static_cast<size_t>(link.flag_begin);
    for (size_t v = 0; v < lift.companions.size(); ++v) {
      bool absent = open && missing_[lift.missing_begin + v] != 0;
      const FactMask* m = lift.companions[v].data() + lift.companion_begin[static_cast<size_t>(
                                                          v * lift.companion_vars.size() +
                                                          static_cast<size_t>(link.companion))];
      for (; absent && m->word >= 0; ++m) absent = (words[m->word] & m->mask) == 0;
      missing_[at + v] = absent ? 1 : 0;
    }
  }
  if (stacks_moved) bury(words);
  const bool lifted_changed = first || missing_ != last_missing_;
  last_missing_ = missing_;
  const bool skips_changed = skip_costs(words);
  const auto combos = static_cast<size_t>(num_combos_);
  // Two passes over the groups: the first writes the key of each group whose members changed
  // and fetches its first cache slot, the second probes; the groups' cache misses overlap.
  probed_.clear();
  for (size_t g = 0; g < groups_.size(); ++g) {
    RoleGroup& group = groups_[g];
    const bool kept =
        !(!group.flags.empty() && lifted_changed) && !(!group.covers.empty() && skips_changed) &&
        std::none_of(group.members.begin(), group.members.end(),
                     [&](int32_t m) { return id_changed_[m] != 0; });
    if (kept && group.last >= 0) continue;
    auto* key = reinterpret_cast<char*>(group.key.data());
    for (size_t k = 0; k < group.members.size(); ++k) {
      std::memcpy(key + 4 * k, &ids_[group.members[k]], 4);
    }
    size_t at = 4 * group.members.size();
    if (!group.flags.empty()) {
      const size_t bytes = (group.flags.size() + 7) / 8;
      std::memset(key + at, 0, bytes);
      for (size_t k = 0; k < group.flags.size(); ++k) {
        if (missing_[static_cast<size_t>(group.flags[k])] != 0) key[at + k / 8] |= 1 << (k % 8);
      }
      at += bytes;
    }
    if (!group.skip.empty()) std::memcpy(key + at, group.skip.data(), group.skip.size());
    group.hash = static_cast<uint32_t>(hash_bytes(reinterpret_cast<const uint8_t*>(key),
                                                  group.key_units * 2));
    group.cache.prefetch(group.hash);
    probed_.push_back(static_cast<int32_t>(g));
  }
  for (const int32_t g : probed_) {
    RoleGroup& group = groups_[static_cast<size_t>(g)];
    const size_t entries = group.cache.size();
    if (static_cast<int64_t>((entries + 1) * combos) > kMaxCachedCosts) {
      group.cache.clear();
      group.records.clear();
    }
    const auto [entry, fresh] = group.cache.find_or_insert(
        group.hash, static_cast<uint32_t>(group.cache.size()), [&](uint32_t e) {
          return std::equal(group.key.begin(), group.key.end(),
                            group.records.begin() + static_cast<ptrdiff_t>(e * group.stride));
        });
    if (fresh) {
      group.records.insert(group.records.end(), group.key.begin(), group.key.end());
      match(group);
      for (int32_t c = 0; c < num_combos_; ++c) {
        const int32_t cost = class_costs_[group.combo_class[c]];
        group.records.push_back(static_cast<uint16_t>(std::min<int32_t>(cost, kUnreached)));
      }
    }
    group.last = entry;
  }
  // Per combination, the sum of each ungrouped projection's distance (its column there) and
  // each group's matched cost, kept from the previous call: only the terms that changed are
  // replaced. No term exceeds kUnreached, so the sums fit, and one reaches it exactly where a
  // term does.
  const size_t terms = ungrouped_.size() + groups_.size();
  if (first || terms_.size() != terms * combos) {
    terms_.assign(terms * combos, 0);
    base_sums_.assign(combos, 0);
  }
  auto replace = [&](size_t term, auto&& value) {
    int32_t* old = terms_.data() + term * combos;
    for (size_t c = 0; c < combos; ++c) {
      const int32_t now = value(c);
      base_sums_[c] += now - old[c];
      old[c] = now;
    }
  };
  for (size_t k = 0; k < ungrouped_.size(); ++k) {
    const int32_t i = ungrouped_[k];
    if (!id_changed_[i]) continue;
    if (ids_[i] < 0) {  // not reached from the start state: 0 is safe
      replace(k, [](size_t) { return 0; });
      continue;
    }
    const Projection& p = rows[i];  // no roles: width 1
    const uint16_t* row = p.distance.data() + static_cast<size_t>(ids_[i]) * p.columns;
    replace(k, [&](size_t c) { return row[p.column_of[c]]; });
  }
  for (const int32_t g : probed_) {
    const RoleGroup& group = groups_[static_cast<size_t>(g)];
    const uint16_t* row =
        group.records.data() + static_cast<size_t>(group.last) * group.stride + group.key_units;
    replace(ungrouped_.size() + static_cast<size_t>(g), [&](size_t c) { return row[c]; });
  }
  sums_.assign(base_sums_.begin(), base_sums_.end());
  int32_t* sums = sums_.data();
  if (!creator_groups_.empty()) add_creator_costs(words);
  int32_t best = kDeadEnd;
  for (size_t c = 0; c < combos; ++c) {
    if (sums[c] < kUnreached) best = std::min(best, sums[c]);
  }
  return best == kDeadEnd ? best : best + clearing(words);
}

}  // namespace robotouille

#include "robotouille/search.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "robotouille/heuristic.h"
#include "robotouille/kernels.h"
#include "robotouille/id_index.h"
#include "table_checks.h"

namespace robotouille {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
// A* keeps each state's bound in a byte (in its StateInfo): bounds above kMax are kept as kMax
// (still a lower bound, so A* stays optimal; the tasks here have bounds below 150), and kDead
// marks a state the bound proved a dead end. An enum, so that it is not taken for the flags
// byte beside it.
enum class StoredBound : uint8_t { kMax = 0xFE, kDead = 0xFF };

StoredBound stored_h(int32_t h) {
  return static_cast<StoredBound>(std::min(h, static_cast<int32_t>(StoredBound::kMax)));
}
int32_t value(StoredBound h) { return static_cast<int32_t>(h); }

// Which facts can change: written by an action, an effect, a creation or a deletion.
std::vector<uint8_t> mutable_facts(const Task& task) {
  const TaskSpec& s = task.spec;
  std::vector<uint8_t> out(static_cast<size_t>(task.num_facts), 0);
  for (int32_t f : s.eff_fact) out[f] = 1;
  for (int32_t f : s.delete_facts) out[f] = 1;
  for (int32_t f : s.exists_fact) {
    if (f >= 0) out[f] = 1;
  }
  for (int32_t n = 0; n < task.num_nodes; ++n) {
    const bool creation = s.node_type[n] == static_cast<int32_t>(EffectType::kCreation);
    for (int32_t l = s.node_fx_begin[n]; l < s.node_cond_begin[n]; ++l) {
      if (s.lit_created_stride[l] == 0) {
        out[s.lit_fact[l]] = 1;
      } else if (creation) {
        const int32_t group = s.node_create_group[n];
        for (int32_t k = s.group_slot_begin[group]; k < s.group_slot_begin[group + 1]; ++k) {
          const int64_t f = s.lit_fact[l] +
                            int64_t{s.lit_created_stride[l]} * s.typepos[s.group_slots[k]];
          if (f >= 0 && f < task.num_facts) out[f] = 1;
        }
      }
    }
  }
  return out;
}

// Packs (words, counters) into fixed-width byte strings and back (see search.h).
class Packer {
 public:
  // `moved`: facts that symmetry reduction may exchange (kept even if no action changes them).
  // `group_begin` / `group_facts`: at-most-one fact sets, packed as an index (see search.h).
  Packer(const Task& task, const uint64_t* initial_words, bool keep_player, const IntVec& moved,
         const IntVec& group_begin, const IntVec& group_facts)
      : task_(task), keep_player_(keep_player) {
    std::vector<uint8_t> changes = mutable_facts(task);
    for (int32_t f : moved) {
      if (f >= 0 && f < task.num_facts) changes[f] = 1;  // others: the Canonicalizer rejects
    }
    read_groups(group_begin, group_facts, changes);
    int32_t out = 0;
    for (int32_t f = 0; f < task.num_facts;) {
      if (!changes[f]) {
        ++f;
        continue;
      }
      int32_t end = f;
      while (end < task.num_facts && changes[end]) ++end;
      runs_.push_back({f, out, end - f});
      out += end - f;
      f = end;
    }
    for (Group& g : groups_) {
      g.offset = out;
      out += g.bits;
    }
    fact_bytes_ = (out + 7) / 8;
    width_ = fact_bytes_ + 4;
    scratch_.assign(static_cast<size_t>(out / 64 + 2), 0);
    static_words_.assign(initial_words, initial_words + task.num_words);
    for (const Run& r : runs_) {
      for (int32_t f = r.src; f < r.src + r.len; ++f) set_bit(static_words_.data(), f, false);
    }
    for (const Group& g : groups_) {
      for (int32_t f : g.facts) set_bit(static_words_.data(), f, false);
    }
  }

  size_t width() const { return static_cast<size_t>(width_); }

  void pack(const uint64_t* words, const int32_t* counters, uint8_t* out) {
    std::fill(scratch_.begin(), scratch_.end(), 0);
    for (const Run& r : runs_) {
      for (int32_t done = 0; done < r.len; done += 64) {
        const int32_t len = std::min(64, r.len - done);
        or_bits(scratch_.data(), r.dst + done, len, get_bits(words, r.src + done, len));
      }
    }
    for (const Group& g : groups_) {
      uint64_t value = 0;
      int32_t count = 0;
      for (const auto& [w, mask] : g.masks) {
        const uint64_t bits = words[w] & mask;
        if (bits == 0) continue;
        count += std::popcount(bits);
        if (value == 0) {
          value = static_cast<uint64_t>(index_of_[w * 64 + std::countr_zero(bits)]) + 1;
        }
      }
      if (count > 1) throw std::logic_error("packing: a state has two facts of one invariant");
      or_bits(scratch_.data(), g.offset, g.bits, value);
    }
    std::memcpy(out, scratch_.data(), static_cast<size_t>(fact_bytes_));
    const uint32_t config = intern(counters);
    std::memcpy(out + fact_bytes_, &config, 4);
  }

  void unpack(const uint8_t* in, uint64_t* words, int32_t* counters) {
    std::fill(scratch_.begin(), scratch_.end(), 0);
    std::memcpy(scratch_.data(), in, static_cast<size_t>(fact_bytes_));
    std::memcpy(words, static_words_.data(), sizeof(uint64_t) * static_words_.size());
    for (const Run& r : runs_) {
      for (int32_t done = 0; done < r.len; done += 64) {
        const int32_t len = std::min(64, r.len - done);
        or_bits(words, r.src + done, len, get_bits(scratch_.data(), r.dst + done, len));
      }
    }
    for (const Group& g : groups_) {
      const uint64_t value = get_bits(scratch_.data(), g.offset, g.bits) & ((1ULL << g.bits) - 1);
      if (value != 0) set_bit(words, g.facts[value - 1], true);
    }
    uint32_t config;
    std::memcpy(&config, in + fact_bytes_, 4);
    const IntVec& key = configs_[config];
    std::fill(counters, counters + task_.num_counters, 0);
    size_t k = 0;
    counters[0] = key[k++];
    const int32_t length = key[k++];
    counters[1] = length;
    for (int32_t i = 0; i < length; ++i) {
      const int32_t t = key[k++];
      counters[2 + i] = t;
      const int32_t first = task_.node_offset + task_.spec.template_first[t];
      for (int32_t n = 0; n < task_.spec.template_count[t]; ++n) counters[first + n] = key[k++];
    }
    for (int32_t i = 0; i < task_.num_ranked; ++i) counters[task_.rank_offset + i] = key[k++];
  }

  int64_t bytes() const {
    int64_t total = config_ids_.bytes() + static_cast<int64_t>(configs_.size()) * 32;
    for (const IntVec& c : configs_) total += static_cast<int64_t>(c.capacity()) * 4;
    return total;
  }

 private:
  struct Run {
    int32_t src, dst, len;
  };
  // An at-most-one fact set, packed as 0 (none true) or 1 + the index of its true fact.
  struct Group {
    IntVec facts;
    std::vector<std::pair<int32_t, uint64_t>> masks;  // (word, the set's bits in it)
    int32_t offset = 0, bits = 0;                     // where its field lies, and its width
  };

  // Takes the sets that pay (at least three facts that change), whose facts are in no earlier
  // set; their facts leave `changes` (they are packed in the sets' fields instead).
  void read_groups(const IntVec& begin, const IntVec& facts, std::vector<uint8_t>& changes) {
    if (begin.empty() && facts.empty()) return;
    require_offsets("packing", begin, begin.empty() ? 0 : begin.size() - 1, facts.size(),
                    "group_begin");
    for (int32_t f : facts) {
      require_table(f >= 0 && f < task_.num_facts, "packing", "fact out of range");
    }
    index_of_.assign(static_cast<size_t>(task_.num_facts), -1);
    for (size_t k = 0; k + 1 < begin.size(); ++k) {
      Group g;  // the set's facts that change (the others stay as they start: static)
      std::copy_if(facts.begin() + begin[k], facts.begin() + begin[k + 1],
                   std::back_inserter(g.facts), [&](int32_t f) { return changes[f] != 0; });
      if (g.facts.size() < 3) continue;
      std::map<int32_t, uint64_t> masks;  // word -> the set's bits in it
      bool usable = true;
      for (int32_t f : g.facts) {
        uint64_t& mask = masks[f >> 6];
        const uint64_t bit = uint64_t{1} << (f & 63);
        usable = usable && index_of_[f] < 0 && (mask & bit) == 0;  // in no other set, once
        mask |= bit;
      }
      if (!usable) continue;
      for (size_t i = 0; i < g.facts.size(); ++i) {
        index_of_[g.facts[i]] = static_cast<int32_t>(i);
        changes[g.facts[i]] = 0;
      }
      g.masks.assign(masks.begin(), masks.end());
      g.bits = std::bit_width(static_cast<uint32_t>(g.facts.size()));
      groups_.push_back(std::move(g));
    }
  }

  // Interns the counters: player, active list, the listed templates' node words, ranks.
  uint32_t intern(const int32_t* counters) {
    // A state's successors mostly share their counters (one timer pass after each step).
    const auto n = static_cast<size_t>(task_.num_counters);
    if (last_counters_.size() == n && std::equal(counters, counters + n, last_counters_.begin())) {
      return last_config_;
    }
    last_counters_.assign(counters, counters + n);
    last_config_ = intern_key(counters);
    return last_config_;
  }

  uint32_t intern_key(const int32_t* counters) {
    key_.clear();
    key_.push_back(keep_player_ ? counters[0] : 0);
    const int32_t length = counters[1];
    key_.push_back(length);
    for (int32_t i = 0; i < length; ++i) {
      const int32_t t = counters[2 + i];
      key_.push_back(t);
      const int32_t first = task_.node_offset + task_.spec.template_first[t];
      key_.insert(key_.end(), counters + first, counters + first + task_.spec.template_count[t]);
    }
    key_.insert(key_.end(), counters + task_.rank_offset,
                counters + task_.rank_offset + task_.num_ranked);
    const auto hash = static_cast<uint32_t>(
        hash_bytes(reinterpret_cast<const uint8_t*>(key_.data()), key_.size() * 4));
    const auto [id, fresh] =
        config_ids_.find_or_insert(hash, static_cast<uint32_t>(configs_.size()),
                                   [&](uint32_t c) { return configs_[c] == key_; });
    if (fresh) configs_.push_back(key_);
    return id;
  }

  const Task& task_;
  bool keep_player_;
  std::vector<Run> runs_;
  std::vector<Group> groups_;
  IntVec index_of_;  // per fact: its index in its group, or -1
  int32_t fact_bytes_ = 0, width_ = 0;
  std::vector<uint64_t> scratch_, static_words_;
  IntVec key_;
  IntVec last_counters_;  // the counters intern() saw last, and their id
  uint32_t last_config_ = 0;
  IdIndex config_ids_;
  std::vector<IntVec> configs_;
};

// Append-only storage of entries of `width` values of T, in blocks of kBlockEntries entries.
// Growing allocates one more block and never moves what is stored: no doubled capacity and no
// second copy while a vector reallocates, so memory follows the size (within one block) and
// the search's memory budget measures what it holds.
template <typename T>
class BlockArray {
 public:
  explicit BlockArray(size_t width = 1) : width_(width) {}

  T* at(size_t i) { return blocks_[i >> kShift].get() + (i & kMask) * width_; }
  const T* at(size_t i) const { return blocks_[i >> kShift].get() + (i & kMask) * width_; }
  T& operator[](size_t i) { return *at(i); }
  T operator[](size_t i) const { return *at(i); }

  void append(const T* entry) {
    if (size_ == blocks_.size() << kShift) {
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlockEntries * width_));
    }
    std::copy(entry, entry + width_, at(size_++));
  }
  void push_back(T value) { append(&value); }  // width 1

  size_t size() const { return size_; }
  int64_t bytes() const {
    return static_cast<int64_t>(blocks_.size() * kBlockEntries * width_ * sizeof(T) +
                                blocks_.capacity() * sizeof(blocks_[0]));
  }

 private:
  static constexpr int kShift = 14;
  static constexpr size_t kBlockEntries = size_t{1} << kShift, kMask = kBlockEntries - 1;
  size_t width_;
  size_t size_ = 0;
  std::vector<std::unique_ptr<T[]>> blocks_;
};

// Stored states: fixed-width rows plus a CompactIdIndex of them (the visited set).
class StateStore {
 public:
  explicit StateStore(size_t width) : width_(width), rows_(width), index_(1 << 16) {}

  // Returns (id, inserted).
  std::pair<uint32_t, bool> insert(const uint8_t* row) {
    const auto found = index_.find_or_insert(
        hash_bytes(row, width_), static_cast<uint32_t>(size()),
        [&](uint32_t id) { return std::memcmp(at(id), row, width_) == 0; },
        [&](uint32_t id) { return hash_bytes(at(id), width_); });
    if (found.second) rows_.append(row);
    return found;
  }
  const uint8_t* at(uint32_t id) const { return rows_.at(id); }
  size_t size() const { return rows_.size(); }
  int64_t bytes() const { return rows_.bytes() + index_.bytes(); }

 private:
  size_t width_;
  BlockArray<uint8_t> rows_;
  CompactIdIndex index_;
};

template <typename T>
int64_t capacity_bytes(const std::vector<T>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

class Searcher {
 public:
  Searcher(const Task& task, const uint64_t* words, const int32_t* counters,
           const SearchOptions& options)
      : task_(task),
        options_(options),
        packer_(task, words, options.mode == PlanMode::kTurnBased,
                options.symmetry ? options.symmetry->pair_facts : IntVec{},
                options.pack_group_begin, options.pack_group_facts),
        store_(packer_.width()),
        row_(packer_.width()),
        words_(static_cast<size_t>(task.num_words)),
        counters_(static_cast<size_t>(task.num_counters)),
        next_words_(static_cast<size_t>(task.num_words)),
        next_counters_(static_cast<size_t>(task.num_counters)),
        mask_(static_cast<size_t>(task.mask_words)),
        start_(std::chrono::steady_clock::now()) {
    const auto players = static_cast<int32_t>(options.robots.size());
    if (options.mode != PlanMode::kCentralized && players == 0) {
      throw std::invalid_argument("turn_based and simultaneous planning need the robot list");
    }
    for (int32_t r : options.robots) {
      if (r < 0 || r >= task.num_objects) throw std::invalid_argument("robot id out of range");
    }
    if (options.weight < 1) throw std::invalid_argument("the A* weight must be at least 1");
    no_op_.resize(static_cast<size_t>(task.num_groundings));
    for (int32_t g = 0; g < task.num_groundings; ++g) {
      no_op_[g] = task.spec.eff_begin[g] == task.spec.eff_begin[g + 1] &&
                  task.spec.sfx_begin[g] == task.spec.sfx_begin[g + 1];
    }
    init_relocations();
    if (options.algorithm == Algorithm::kAstar) {
      heuristic_ = std::make_unique<DelayHeuristic>(
          task, options.mode == PlanMode::kSimultaneous ? players : 1, options.lmcut);
    }
    std::copy(words, words + task.num_words, words_.begin());
    std::copy(counters, counters + task.num_counters, counters_.begin());
    if (options.mode != PlanMode::kTurnBased) counters_[0] = 0;
    if (options.symmetry) {
      canon_ = std::make_unique<Canonicalizer>(task, *options.symmetry);
      if (canon_->empty()) canon_.reset();
    }
    root_words_ = words_;
    root_counters_ = counters_;
    if (canon_) canon_->canonicalize(words_.data(), counters_.data(), nullptr);
    if (heuristic_ && options.projections) {
      // Construction counts against the time limit and can be cancelled like the search.
      auto stop = [this]() {
        const SearchStatus status = clock_limits();
        cancelled_ = cancelled_ || status == SearchStatus::kCancelled;
        return status != SearchStatus::kSolved;
      };
      const Task& projected = options.projection_task ? *options.projection_task : task;
      if (projected.num_facts != task.num_facts || projected.num_words != task.num_words ||
          projected.num_groundings != task.num_groundings ||
          projected.num_templates != task.num_templates ||
          projected.num_nodes != task.num_nodes || projected.num_counters != task.num_counters) {
        throw std::invalid_argument("projection_task is not the searched task with another goal");
      }
      // Larger projections make a tighter bound but take seconds to build: under a time
      // limit, upgrades must end within 40% of it (by default).
      ProjectionLimits limits = options.projection_limits;
      if (limits.upgrade_seconds <= 0) limits.upgrade_seconds = 0.4 * options.time_limit;
      projection_ = std::make_unique<ProjectionHeuristic>(projected, *options.projections,
                                                          words_.data(), counters_.data(), stop,
                                                          limits);
      stats_.abstract_states = projection_->abstract_states();
      // The time bound (h_max of the relaxed task, delays counted) costs ~50 projection
      // lookups per state. Keep it only where it says more than the projections at the start:
      // without delayed effects it never does, and with them it does where an object the
      // projections miss carries the critical path (the pot of a soup). Both bounds are
      // admissible, so dropping one only weakens the bound. LM-cut, if asked for, stays.
      const bool delays =
          std::any_of(task.spec.node_type.begin(), task.spec.node_type.end(),
                      [](int32_t t) { return t == static_cast<int32_t>(EffectType::kDelayed); });
      delay_bound_ = options.lmcut ||
                     (delays && heuristic_->evaluate(words_.data(), counters_.data()) >
                                    projection_->evaluate(words_.data(), counters_.data()));
    }
  }

  SearchResult run() {
    SearchResult result;
    result.stats.state_bytes = static_cast<int64_t>(packer_.width());
    packer_.pack(words_.data(), counters_.data(), row_.data());
    const uint32_t root = store_.insert(row_.data()).first;
    parent_.push_back(kNone);
    info_.push_back({0, StoredBound{}, 0});
    if (goal_reached(task_, words_.data())) {
      result.status = SearchStatus::kSolved;
    } else if (options_.algorithm == Algorithm::kBfs) {
      result.status = bfs(result);
    } else {
      result.status = astar(root, result);
    }
    stats_.stored = static_cast<int64_t>(store_.size());
    stats_.bytes = memory();
    stats_.seconds = elapsed();
    result.stats = stats_;
    result.stats.state_bytes = static_cast<int64_t>(packer_.width());
    return result;
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  int64_t memory() const {
    int64_t total = store_.bytes() + packer_.bytes() + parent_.bytes() + info_.bytes();
    for (const auto& by_g : open_) {
      for (const auto& ids : by_g) total += capacity_bytes(ids);
    }
    return total;
  }

  // Relocation pruning (search.h): in centralized mode, after a step that moved robot r, r's
  // moves and the no-ops are not expanded. Codes robots 1, 2, ... for the flags' mover bits.
  void init_relocations() {
    code_robot_.assign(1, -1);
    robot_code_.assign(static_cast<size_t>(task_.num_objects), 0);
    const IntVec& relocated = options_.relocation_robot;
    if (relocated.empty()) return;
    if (static_cast<int32_t>(relocated.size()) != task_.num_groundings) {
      throw std::invalid_argument("relocation_robot needs one entry per grounding");
    }
    for (int32_t r : relocated) {
      if (r < -1 || r >= task_.num_objects) {
        throw std::invalid_argument("relocation_robot: object id out of range");
      }
      if (r < 0 || robot_code_[r] != 0) continue;
      if (static_cast<int32_t>(code_robot_.size()) > kMaxMovers) return;  // too many: no pruning
      robot_code_[r] = static_cast<int32_t>(code_robot_.size());
      code_robot_.push_back(r);
    }
    if (options_.mode == PlanMode::kCentralized) relocated_ = relocated;
  }

  // A step reaches a stored state at its depth: its pruning keeps only what both steps
  // into it skip (search.h). Returns whether that changed it.
  bool relax_mover(uint32_t id) {
    const uint8_t bits = info_[id].flags & kMoverMask;
    if (bits == 0 || bits == mover_bits_ || (info_[id].flags & kRestFlag)) return false;
    info_[id].flags &= static_cast<uint8_t>(~kMoverMask);
    return true;
  }

  // Checked between expansions; returns the status that stops the search, or kSolved for none.
  // Whether storing one more state would exceed max_states (then the search stops).
  bool full() {
    full_ = full_ || (options_.max_states > 0 &&
                      static_cast<int64_t>(store_.size()) >= options_.max_states);
    return full_;
  }

  SearchStatus check_limits() {
    if (full_) return SearchStatus::kStateLimit;
    if (cancelled_) return SearchStatus::kCancelled;
    if (++since_check_ < 128) return SearchStatus::kSolved;
    since_check_ = 0;
    if (options_.max_memory_bytes > 0 && memory() > options_.max_memory_bytes) {
      return SearchStatus::kMemoryLimit;
    }
    return clock_limits();
  }

  // The time limit and the poll callback (at most every 0.1 s); kSolved when neither stops.
  SearchStatus clock_limits() {
    const double now = elapsed();
    if (options_.time_limit > 0 && now > options_.time_limit) return SearchStatus::kTimeLimit;
    if (options_.poll && now >= next_poll_) {
      next_poll_ = now + 0.1;
      SearchStats so_far = stats_;
      so_far.stored = static_cast<int64_t>(store_.size());
      so_far.bytes = memory();
      so_far.state_bytes = static_cast<int64_t>(packer_.width());
      so_far.seconds = now;
      if (options_.poll(so_far)) return SearchStatus::kCancelled;
    }
    return SearchStatus::kSolved;
  }

  // Calls visit(step_groundings, n, status) for every successor of the unpacked state, with
  // the successor in next_words_ / next_counters_.
  template <typename Visit>
  void successors(Visit&& visit) {
    const bool simultaneous = options_.mode == PlanMode::kSimultaneous;
    int32_t player = -1;
    if (options_.mode == PlanMode::kTurnBased) player = options_.robots[counters_[0]];
    valid_mask(task_, words_.data(), mask_.data(), player);
    valid_.clear();
    for (int32_t w = 0; w < task_.mask_words; ++w) {
      for (uint64_t bits = mask_[w]; bits; bits &= bits - 1) {
        valid_.push_back(w * 64 + std::countr_zero(bits));
      }
    }
    auto apply = [&](const int32_t* groundings, int32_t n) {
      std::copy(words_.begin(), words_.end(), next_words_.begin());
      std::copy(counters_.begin(), counters_.end(), next_counters_.begin());
      applied_.assign(static_cast<size_t>(n), 0);
      int status = step(task_, next_words_.data(), next_counters_.data(), groundings, n,
                        applied_.data());
      for (int32_t k = 0; k < n; ++k) {
        // A step whose entry was no longer valid equals the step with -1 there (also visited).
        if (groundings[k] >= 0 && !applied_[k]) return;
      }
      if (options_.mode != PlanMode::kTurnBased) next_counters_[0] = 0;
      visit(groundings, n, status);
    };
    if (!simultaneous) {
      for (int32_t g : valid_) {
        // Relocation pruning (search.h): after robot r's move, neither r's moves nor a no-op.
        if (skip_robot_ >= 0 && (relocated_[g] == skip_robot_ || no_op_[g])) continue;
        if (only_robot_ >= 0 && relocated_[g] != only_robot_ && !no_op_[g]) continue;
        apply(&g, 1);
      }
      return;
    }
    // Joint actions: per robot, no action or one of its valid groundings, applied in robot
    // order. Env.step lets any robot take an unowned grounding (one without a player among its
    // arguments), so those are offered to every robot; an unowned grounding that changes
    // nothing (such as wait) equals no action and is offered to the first robot only. One owned
    // by a player that is not among the robots is refused in every slot.
    const auto players = static_cast<int32_t>(options_.robots.size());
    options_per_robot_.assign(static_cast<size_t>(players), IntVec{-1});
    const TaskSpec& spec = task_.spec;
    for (int32_t g : valid_) {
      const int32_t owner = spec.owner[g];
      int32_t slot = -1;
      for (int32_t r = 0; r < players; ++r) {
        if (options_.robots[r] == owner) slot = r;
      }
      if (slot < 0 && owner >= 0) continue;  // a player that is not a robot: Env.step refuses
      if (slot >= 0 || no_op_[g]) {
        options_per_robot_[std::max(slot, 0)].push_back(g);
      } else {
        for (int32_t r = 0; r < players; ++r) options_per_robot_[r].push_back(g);
      }
    }
    IntVec pick(static_cast<size_t>(players), 0), joint(static_cast<size_t>(players), -1);
    for (;;) {
      for (int32_t r = 0; r < players; ++r) joint[r] = options_per_robot_[r][pick[r]];
      apply(joint.data(), players);
      int32_t r = 0;
      while (r < players && ++pick[r] == static_cast<int32_t>(options_per_robot_[r].size())) {
        pick[r++] = 0;
      }
      if (r == players) break;
    }
  }

  // Stores the successor in next_words_ / next_counters_, reached by this step: (id, fresh),
  // or (kNone, false) when it is dropped (exhausted creation pool, or the state limit is
  // reached). Sets mover_bits_ to the bits of the step's mover.
  std::pair<uint32_t, bool> store_next(const int32_t* groundings, int32_t n, int status) {
    ++stats_.generated;
    if (status & kStatusPoolExhausted) {
      ++stats_.pruned;
      return {kNone, false};
    }
    if (full()) return {kNone, false};
    int32_t mover = n == 1 && !relocated_.empty() ? relocated_[groundings[0]] : -1;
    if (canon_) {
      // The stored state is the representative: the robot that moved is its image there.
      swaps_.clear();
      canon_->canonicalize(next_words_.data(), next_counters_.data(),
                           mover >= 0 ? &swaps_ : nullptr);
      for (const auto& [a, b] : swaps_) mover = mover == a ? b : mover == b ? a : mover;
    }
    mover_bits_ = mover >= 0 ? static_cast<uint8_t>(robot_code_[mover] << kMoverShift) : 0;
    packer_.pack(next_words_.data(), next_counters_.data(), row_.data());
    return store_.insert(row_.data());
  }

  // Whether next_words_ / next_counters_ (canonicalized as the search stores them) pack to
  // stored state `id` (for plan extraction).
  bool next_is(uint32_t id) {
    packer_.pack(next_words_.data(), next_counters_.data(), row_.data());
    return std::memcmp(row_.data(), store_.at(id), packer_.width()) == 0;
  }

  // A step from stored state `from` to stored state `to`, found again among from's successors
  // (the search keeps no step per state: 4 bytes each, and a joint step's width in
  // simultaneous mode). Any such step does: the plan only needs to reach the same states.
  std::vector<int32_t> step_between(uint32_t from, uint32_t to) {
    packer_.unpack(store_.at(from), words_.data(), counters_.data());
    skip_robot_ = only_robot_ = -1;
    std::vector<int32_t> found;
    successors([&](const int32_t* groundings, int32_t n, int status) {
      if (!found.empty() || (status & kStatusPoolExhausted)) return;
      if (canon_) canon_->canonicalize(next_words_.data(), next_counters_.data(), nullptr);
      if (next_is(to)) found.assign(groundings, groundings + n);
    });
    if (found.empty()) throw std::logic_error("plan extraction: no step between stored states");
    return found;
  }

  void extract(uint32_t goal, SearchResult& result) {
    std::vector<uint32_t> path;
    for (uint32_t id = goal; id != kNone; id = parent_[id]) path.push_back(id);
    std::reverse(path.begin(), path.end());
    std::vector<std::vector<int32_t>> plan;
    for (size_t i = 1; i < path.size(); ++i) plan.push_back(step_between(path[i - 1], path[i]));
    if (canon_) to_real_objects(path, plan);
    result.plan = std::move(plan);
  }

  // The plan's steps act on representatives; rewrites them to act on the real states. real =
  // inverse(M) of the permutation M with representative = M(real state), updated by the
  // transpositions of every canonicalization along the path.
  void to_real_objects(const std::vector<uint32_t>& path,
                       std::vector<std::vector<int32_t>>& plan) {
    IntVec real(static_cast<size_t>(task_.num_objects));
    std::iota(real.begin(), real.end(), 0);
    std::vector<std::pair<int32_t, int32_t>> swaps;
    auto follow = [&]() {
      for (const auto& [a, b] : swaps) std::swap(real[a], real[b]);
      swaps.clear();
    };
    std::copy(root_words_.begin(), root_words_.end(), next_words_.begin());
    std::copy(root_counters_.begin(), root_counters_.end(), next_counters_.begin());
    canon_->canonicalize(next_words_.data(), next_counters_.data(), &swaps);
    follow();
    const TaskSpec& s = task_.spec;
    const int32_t params = task_.max_params;
    if (grounding_ids_.empty()) {
      for (int32_t g = 0; g < task_.num_groundings; ++g) {
        IntVec key{s.action_of[g]};
        key.insert(key.end(), s.grounding_args.begin() + static_cast<ptrdiff_t>(g) * params,
                   s.grounding_args.begin() + static_cast<ptrdiff_t>(g + 1) * params);
        grounding_ids_.emplace(std::move(key), g);
      }
    }
    for (size_t i = 0; i < plan.size(); ++i) {
      // Replay the step on the representative it was found from, then canonicalize as the
      // search did; the result must be the stored successor.
      packer_.unpack(store_.at(path[i]), next_words_.data(), next_counters_.data());
      std::vector<int32_t>& groundings = plan[i];
      step(task_, next_words_.data(), next_counters_.data(), groundings.data(),
           static_cast<int32_t>(groundings.size()), nullptr);
      if (options_.mode != PlanMode::kTurnBased) next_counters_[0] = 0;
      for (int32_t& g : groundings) {
        if (g < 0) continue;
        IntVec key{s.action_of[g]};
        for (int32_t k = 0; k < params; ++k) {
          const int32_t o = s.grounding_args[static_cast<size_t>(g) * params + k];
          key.push_back(o < 0 ? o : real[o]);
        }
        const auto found = grounding_ids_.find(key);
        if (found == grounding_ids_.end()) {
          throw std::logic_error("symmetry: a plan step has no image among the groundings");
        }
        g = found->second;
      }
      canon_->canonicalize(next_words_.data(), next_counters_.data(), &swaps);
      if (!next_is(path[i + 1])) {
        throw std::logic_error("symmetry: replaying the plan left the stored path");
      }
      follow();
    }
  }

  SearchStatus bfs(SearchResult& result) {
    for (uint32_t id = 0; id < store_.size(); ++id) {
      const SearchStatus stop = check_limits();
      if (stop != SearchStatus::kSolved) return stop;
      if (info_[id].g >= kMaxSearchDepth) return SearchStatus::kDepthLimit;
      packer_.unpack(store_.at(id), words_.data(), counters_.data());
      stats_.bound = info_[id].g;
      ++stats_.expanded;
      skip_robot_ = code_robot_[info_[id].flags >> kMoverShift];
      only_robot_ = -1;
      uint32_t found = kNone;
      successors([&](const int32_t* groundings, int32_t n, int status) {
        if (found != kNone) return;
        const auto [child, fresh] = store_next(groundings, n, status);
        if (!fresh) {
          // Another step into a state of the next layer (not expanded yet).
          if (child != kNone && info_[child].g == info_[id].g + 1) relax_mover(child);
          return;
        }
        parent_.push_back(id);
        info_.push_back({static_cast<uint16_t>(info_[id].g + 1), StoredBound{}, mover_bits_});
        if (status & kStatusGoal) found = child;
      });
      if (found != kNone) {
        extract(found, result);
        return SearchStatus::kSolved;
      }
      if (full_) return SearchStatus::kStateLimit;
    }
    return SearchStatus::kUnsolvable;
  }

  // max(projection bound, DelayHeuristic); DelayHeuristic::kDeadEnd when either proves it.
  int32_t evaluate(const uint64_t* words, const int32_t* counters) {
    int32_t h = 0;
    if (projection_) {
      h = projection_->evaluate(words, counters);
      if (h == ProjectionHeuristic::kDeadEnd) return DelayHeuristic::kDeadEnd;
    }
    return delay_bound_ ? std::max(h, heuristic_->evaluate(words, counters)) : h;
  }

  // The bound of the successor in next_words_ / next_counters_. With the projection bound (a few
  // lookups) the DelayHeuristic (a relaxed-task pass, ~50x dearer) is deferred until the state
  // is popped: `pending` says so. Most generated states are never popped.
  int32_t evaluate_child(bool& pending) {
    if (!projection_) return heuristic_->evaluate(next_words_.data(), next_counters_.data());
    const int32_t h = projection_->evaluate(next_words_.data(), next_counters_.data());
    if (h == ProjectionHeuristic::kDeadEnd) return DelayHeuristic::kDeadEnd;
    pending = delay_bound_;
    return h;
  }

  void push_open(uint32_t id, int32_t g, int32_t f) {
    if (static_cast<size_t>(f) >= open_.size()) open_.resize(static_cast<size_t>(f) + 1);
    auto& by_g = open_[f];
    if (static_cast<size_t>(g) >= by_g.size()) by_g.resize(static_cast<size_t>(g) + 1);
    by_g[g].push_back(id);
  }

  SearchStatus astar(uint32_t root, SearchResult& result) {
    const int32_t h0 = evaluate(words_.data(), counters_.data());
    stats_.initial_h = h0 == DelayHeuristic::kDeadEnd ? -1 : h0;
    if (h0 == DelayHeuristic::kDeadEnd) return SearchStatus::kUnsolvable;
    const int32_t w = options_.weight;
    info_[root].h = stored_h(h0);
    push_open(root, 0, w * h0);
    for (size_t f = 0; f < open_.size(); ++f) {
      if (w == 1) stats_.bound = static_cast<int32_t>(f);
      for (;;) {
        // Highest g first within an f layer: deeper states are closer to a goal.
        auto& by_g = open_[f];
        while (!by_g.empty() && by_g.back().empty()) by_g.pop_back();
        if (by_g.empty()) break;
        const int32_t g = static_cast<int32_t>(by_g.size()) - 1;
        const uint32_t id = by_g.back().back();
        by_g.back().pop_back();
        // Stored states never move (BlockArray), so the reference outlives the appends below.
        StateInfo& info = info_[id];
        if (info.g != g) continue;  // re-opened with a smaller g since
        // A successor left out at the state limit could have had a smaller f than this goal
        // (which only matters for an optimal plan).
        if (full_ && w == 1) return SearchStatus::kStateLimit;
        if (info.flags & kGoalFlag) {
          extract(id, result);
          return SearchStatus::kSolved;
        }
        const SearchStatus stop = check_limits();
        if (stop != SearchStatus::kSolved) return stop;
        packer_.unpack(store_.at(id), words_.data(), counters_.data());
        if (info.flags & kPendingFlag) {
          // Deferred part of the bound (see evaluate_child): computed only for states that
          // reach the front; a larger value sends the state to its true f layer.
          info.flags &= ~kPendingFlag;
          const int32_t late = heuristic_->evaluate(words_.data(), counters_.data());
          if (late == DelayHeuristic::kDeadEnd) {
            info.h = StoredBound::kDead;
            ++stats_.pruned;
            continue;
          }
          if (late > value(info.h)) {
            info.h = stored_h(late);
            if (g + w * value(info.h) > static_cast<int32_t>(f)) {
              push_open(id, g, g + w * value(info.h));
              continue;
            }
          }
        }
        if (g >= kMaxSearchDepth) return SearchStatus::kDepthLimit;
        ++stats_.expanded;
        // A second expansion after relax_mover generates only what the first one skipped.
        const int32_t code = info.flags >> kMoverShift;
        const bool rest = (info.flags & kRestFlag) != 0;
        skip_robot_ = rest ? -1 : code_robot_[code];
        only_robot_ = rest ? code_robot_[code] : -1;
        info.flags = static_cast<uint8_t>(
            (rest ? info.flags & ~(kMoverMask | kRestFlag) : info.flags) | kExpandedFlag);
        const int32_t child_g = g + 1;
        successors([&](const int32_t* groundings, int32_t n, int status) {
          const auto [child, fresh] = store_next(groundings, n, status);
          if (child == kNone) return;
          if (fresh) {
            const bool goal = (status & kStatusGoal) != 0;
            bool pending = false;
            const int32_t h = goal ? 0 : evaluate_child(pending);
            parent_.push_back(id);
            const bool dead = h == DelayHeuristic::kDeadEnd;
            info_.push_back({static_cast<uint16_t>(child_g),
                             dead ? StoredBound::kDead : stored_h(h),
                             static_cast<uint8_t>((goal ? kGoalFlag : 0) |
                                                  (pending ? kPendingFlag : 0) | mover_bits_)});
            if (dead) {
              ++stats_.pruned;
              return;
            }
            // Pathmax: a child's f never drops below its parent's (h may be inconsistent),
            // so it is never pushed below the layer being expanded.
            push_open(child, child_g, std::max(child_g + w * h, static_cast<int32_t>(f)));
            return;
          }
          StateInfo& known = info_[child];
          if (known.h == StoredBound::kDead || child_g > known.g) return;
          const int32_t known_f = std::max(child_g + w * value(known.h), static_cast<int32_t>(f));
          if (child_g < known.g) {
            parent_[child] = id;
            known.g = static_cast<uint16_t>(child_g);
            // The pruning below this state follows its (new) parent step.
            known.flags = static_cast<uint8_t>(
                (known.flags & ~(kMoverMask | kExpandedFlag | kRestFlag)) | mover_bits_);
            push_open(child, child_g, known_f);
          } else {
            const uint8_t before = known.flags;
            if (relax_mover(child) && (before & kExpandedFlag)) {
              // Expanded with a pruning that this equally short step does not ask for: once
              // more, for the skipped successors only.
              known.flags = static_cast<uint8_t>((before & ~kExpandedFlag) | kRestFlag);
              push_open(child, child_g, known_f);
            }
          }
        });
      }
    }
    // Successors left out at the state limit may have led to the goal.
    return full_ ? SearchStatus::kStateLimit : SearchStatus::kUnsolvable;
  }

  const Task& task_;
  const SearchOptions& options_;
  Packer packer_;
  StateStore store_;
  std::vector<uint8_t> row_;
  std::vector<uint64_t> words_;
  std::vector<int32_t> counters_;
  std::vector<uint64_t> next_words_;
  std::vector<int32_t> next_counters_;
  std::vector<uint64_t> mask_;
  IntVec valid_;
  std::vector<uint8_t> applied_;
  std::vector<IntVec> options_per_robot_;
  std::unique_ptr<DelayHeuristic> heuristic_;
  std::unique_ptr<Canonicalizer> canon_;
  std::unique_ptr<ProjectionHeuristic> projection_;
  bool delay_bound_ = true;  // whether the DelayHeuristic is part of the bound
  std::vector<uint64_t> root_words_;  // the real start state (before canonicalization)
  std::vector<int32_t> root_counters_;
  std::map<IntVec, int32_t> grounding_ids_;  // (action, args) -> grounding, for extraction
  // Per stored state: its parent (the step between them is found again; see step_between).
  BlockArray<uint32_t> parent_;
  static constexpr uint8_t kGoalFlag = 1, kPendingFlag = 2, kExpandedFlag = 4, kRestFlag = 8;
  // The upper bits of a state's flags: the code of the robot whose moves and no-ops its
  // expansion skips (0: none; see relax_mover), or with kRestFlag, the only ones it generates.
  static constexpr int kMoverShift = 4;
  static constexpr uint8_t kMoverMask = static_cast<uint8_t>(0xFF << kMoverShift);
  static constexpr int32_t kMaxMovers = (0xFF >> kMoverShift);
  // Per stored state: its steps from the start, its bound (A*), and its flags: kGoalFlag,
  // kPendingFlag, kExpandedFlag and kRestFlag (A*), and the mover bits. Together: they are
  // read and written together, and 4 bytes instead of 5 with g and the bound apart.
  struct StateInfo {
    uint16_t g;
    StoredBound h;
    uint8_t flags;
  };
  static_assert(sizeof(StateInfo) == 4);
  BlockArray<StateInfo> info_;
  IntVec relocated_;    // per grounding: the robot it relocates, or -1 (empty: no pruning)
  std::vector<uint8_t> no_op_;  // per grounding: it has no effects (such as a wait)
  IntVec robot_code_;   // per object: its mover code (1, 2, ...), or 0
  IntVec code_robot_;   // per mover code: the robot (code 0: -1)
  int32_t skip_robot_ = -1;    // the expanded state's mover: its relocations are skipped
  int32_t only_robot_ = -1;    // or its relocations (and no-ops) are the only ones expanded
  uint8_t mover_bits_ = 0;     // the mover bits of the state store_next stored
  std::vector<std::pair<int32_t, int32_t>> swaps_;
  std::vector<std::vector<std::vector<uint32_t>>> open_;  // [f][g] -> ids
  SearchStats stats_;
  int32_t since_check_ = 0;
  bool full_ = false;
  bool cancelled_ = false;  // the poll asked to stop while the projections were built
  double next_poll_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

SearchResult search(const Task& task, const uint64_t* words, const int32_t* counters,
                    const SearchOptions& options) {
  Searcher searcher(task, words, counters, options);
  return searcher.run();
}

int32_t heuristic_value(const Task& task, const uint64_t* words, const int32_t* counters,
                        const SearchOptions& options) {
  const auto players = static_cast<int32_t>(options.robots.size());
  DelayHeuristic h(task, options.mode == PlanMode::kSimultaneous ? std::max(1, players) : 1,
                   options.lmcut);
  return h.evaluate(words, counters);
}

std::string status_name(SearchStatus status) {
  switch (status) {
    case SearchStatus::kSolved: return "solved";
    case SearchStatus::kUnsolvable: return "unsolvable";
    case SearchStatus::kStateLimit: return "max_states";
    case SearchStatus::kMemoryLimit: return "max_memory_bytes";
    case SearchStatus::kTimeLimit: return "time_limit";
    case SearchStatus::kCancelled: return "cancelled";
    case SearchStatus::kDepthLimit: return "max_depth";
  }
  return "unknown";
}

}  // namespace robotouille

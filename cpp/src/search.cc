#include "robotouille/search.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "robotouille/effect_order.h"
#include "robotouille/heuristic.h"
#include "robotouille/kernels.h"
#include "robotouille/id_index.h"
#include "robotouille/thread_pool.h"
#include "table_checks.h"

namespace robotouille {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
// Ids of the interned tables (counters, plain facts) stay below this: a thread that finds no
// id for what it packed writes kLocalKey + the index of its key in its own list, and the
// merge replaces it by the table's id (Searcher::expand, Searcher::merge).
constexpr uint32_t kLocalKey = 0x80000000u;
// The id indexes' finds report a missing key with their own constant; callers here test kNone.
static_assert(IdIndex::kNotFound == kNone && CompactIdIndex::kNotFound == kNone);
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
  // Allocates the blocks for `entries` entries in all now: appends up to there then allocate
  // nothing, so at() may run on other threads meanwhile (for entries stored before).
  void reserve(size_t entries) {
    while (blocks_.size() << kShift < entries) {
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlockEntries * width_));
    }
  }

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

// Stored states: fixed-width rows plus a CompactIdIndex of them (the visited set). find() only
// reads, so several threads may call it at once while nobody inserts, or while one thread
// inserts into the room reserve() made, with set_visible() hiding what it inserts meanwhile.
class StateStore {
 public:
  // `slots`: the visited set's first capacity (it grows as rows are added).
  explicit StateStore(size_t width, size_t slots = 1 << 16)
      : width_(width), rows_(width), index_(slots) {}

  uint64_t hash(const uint8_t* row) const { return hash_bytes(row, width_); }

  // Starts loading what find(row, hash) reads: the slot where its probe begins; or, once that
  // slot is loaded, the stored row of the first id whose hash tag matches there or after it.
  void prefetch_slot(uint64_t hash) const { index_.prefetch(hash); }
  void prefetch_row(uint64_t hash) const {
    const uint32_t id = index_.find(hash, [](uint32_t) { return true; });
    if (id != CompactIdIndex::kNotFound) __builtin_prefetch(at(id));
  }

  // The row's id, or kNone (also where its id is not below the visible limit).
  uint32_t find(const uint8_t* row, uint64_t hash) const {
    return index_.find(hash, [&](uint32_t id) {
      return id < visible_ && std::memcmp(at(id), row, width_) == 0;
    });
  }

  // Makes room for `rows` rows in all: until then, inserting neither grows the visited set nor
  // allocates a block of rows.
  void reserve(size_t rows) {
    index_.reserve(rows, [&](uint32_t id) { return hash_bytes(at(id), width_); });
    rows_.reserve(rows);
  }
  // find() reports only ids below `limit` (kNone: every id). Set while other threads find and
  // one inserts, to rows stored before: an id inserted meanwhile may precede its row.
  void set_visible(uint32_t limit) { visible_ = limit; }

  // Returns (id, inserted); `hash` is hash(row).
  std::pair<uint32_t, bool> insert(const uint8_t* row, uint64_t hash) {
    const auto found = index_.find_or_insert(
        hash, static_cast<uint32_t>(size()),
        [&](uint32_t id) { return std::memcmp(at(id), row, width_) == 0; },
        [&](uint32_t id) { return hash_bytes(at(id), width_); });
    if (found.second) {
      if (found.first >= kLocalKey) throw std::length_error("search: more than 2^31 rows");
      rows_.append(row);
    }
    return found;
  }
  std::pair<uint32_t, bool> insert(const uint8_t* row) { return insert(row, hash(row)); }
  const uint8_t* at(uint32_t id) const { return rows_.at(id); }
  size_t size() const { return rows_.size(); }
  int64_t bytes() const { return rows_.bytes() + index_.bytes(); }

 private:
  size_t width_;
  BlockArray<uint8_t> rows_;
  CompactIdIndex index_;
  uint32_t visible_ = kNone;
};

// The interned counters of the packed states (see search.h): every distinct value of what a
// packed state keeps of the counters (player, active list, the listed templates' node words,
// ranks) gets a dense id. find() only reads, so the threads of a search call it at once;
// intern() runs while they wait (see Searcher::merge), or, as for StateStore, into the room
// reserve() made while set_visible() hides the keys interned meanwhile (Searcher::bfs).
class CounterTable {
 public:
  CounterTable(const Task& task, bool keep_player) : task_(task), keep_player_(keep_player) {}

  // The key of the counters, into `key`.
  void key_of(const int32_t* counters, IntVec& key) const {
    key.clear();
    key.push_back(keep_player_ ? counters[0] : 0);
    const int32_t length = counters[1];
    key.push_back(length);
    for (int32_t i = 0; i < length; ++i) {
      const int32_t t = counters[2 + i];
      key.push_back(t);
      const int32_t first = task_.node_offset + task_.spec.template_first[t];
      key.insert(key.end(), counters + first, counters + first + task_.spec.template_count[t]);
    }
    key.insert(key.end(), counters + task_.rank_offset,
               counters + task_.rank_offset + task_.num_ranked);
  }

  static uint32_t hash(const IntVec& key) {
    return static_cast<uint32_t>(
        hash_bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size() * 4));
  }

  // The key's id, or kNone when it was never interned (or its id is not below the visible
  // limit).
  uint32_t find(const IntVec& key) const {
    return ids_.find(hash(key), [&](uint32_t c) { return c < visible_ && keys_[c] == key; });
  }

  // Makes room for `keys` keys in all (as StateStore::reserve), the key list's growing
  // geometrically.
  void reserve(size_t keys) {
    ids_.reserve(keys);
    if (keys > keys_.capacity()) keys_.reserve(std::max(keys, 2 * keys_.capacity()));
  }
  void set_visible(uint32_t limit) { visible_ = limit; }  // as StateStore::set_visible
  size_t size() const { return keys_.size(); }

  uint32_t intern(const IntVec& key) {
    const auto [id, fresh] =
        ids_.find_or_insert(hash(key), static_cast<uint32_t>(keys_.size()),
                            [&](uint32_t c) { return keys_[c] == key; });
    if (fresh) {
      if (id >= kLocalKey) throw std::length_error("search: more than 2^31 counter values");
      keys_.push_back(key);
    }
    return id;
  }

  // Writes the counters of key `id` (all others zero).
  void unpack(uint32_t id, int32_t* counters) const {
    const IntVec& key = keys_[id];
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
    int64_t total = ids_.bytes() + static_cast<int64_t>(keys_.size()) * 32;
    for (const IntVec& c : keys_) total += static_cast<int64_t>(c.capacity()) * 4;
    return total;
  }

 private:
  const Task& task_;
  bool keep_player_;
  IdIndex ids_;
  std::vector<IntVec> keys_;
  uint32_t visible_ = kNone;
};

// Packs (words, counters) into fixed-width byte strings and back (see search.h): the bytes of
// the at-most-one sets' fields, then the ids of the plain facts' parts, each in a table of its
// values (where the plain facts fill min_interned_bytes), then the counters' id in a
// CounterTable. Each thread of a search packs with its own copy (scratch), all sharing the
// tables.
class Packer {
 public:
  // What pack() found no id for (bits of its result): the counters, and part k of the plain
  // facts (kMissingPlain << k).
  static constexpr uint32_t kMissingCounters = 1, kMissingPlain = 2;

  // `moved`: facts that symmetry reduction may exchange (kept even if no action changes them).
  // `group_begin` / `group_facts`: at-most-one fact sets, packed as an index (see search.h).
  // `min_interned_bytes`: see SearchOptions.
  Packer(const Task& task, const uint64_t* initial_words, CounterTable* table,
         const IntVec& moved, const IntVec& group_begin, const IntVec& group_facts,
         int32_t min_interned_bytes)
      : task_(task), table_(table) {
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
    // The plain facts change little along a search (which items are cut, cooked, clear, where
    // stations are vacant), so they take far fewer values than the states, and parts of them
    // fewer still: stored once each, a part leaves a 4-byte id in the row. Measured on the
    // original multi_agent/10 (50 bytes of plain facts, 2.0M stored states): 503,212 values
    // whole, 110,334 and 190,116 for two halves; on multi_agent/10 seed 294 (75 bytes, 2.2M
    // states): 980,478 whole, 51,478, 96,841 and 187,327 for thirds. Their bytes end on a
    // byte boundary, where the sets' fields begin.
    if (min_interned_bytes > 0 && out >= 8 * min_interned_bytes) {
      plain_bytes_ = (out + 7) / 8;
      out = 8 * plain_bytes_;
      const int32_t count = std::min(kMaxPlainParts, (plain_bytes_ + kPlainPartBytes - 1) /
                                                         kPlainPartBytes);
      for (int32_t k = 0; k < count; ++k) {
        PlainPart part;
        part.offset = plain_bytes_ * k / count;
        part.bytes = plain_bytes_ * (k + 1) / count - part.offset;
        part.table = std::make_shared<StateStore>(static_cast<size_t>(part.bytes), 1 << 10);
        parts_.push_back(std::move(part));
      }
    }
    for (Group& g : groups_) {
      g.offset = out;
      out += g.bits;
    }
    field_of_.assign(static_cast<size_t>(task.num_facts), kNotPacked);
    for (const Run& r : runs_) {
      for (int32_t k = 0; k < r.len; ++k) field_of_[r.src + k] = r.dst + k;
    }
    for (size_t k = 0; k < groups_.size(); ++k) {
      for (int32_t f : groups_[k].facts) field_of_[f] = -2 - static_cast<int32_t>(k);
    }
    group_dirty_.assign(groups_.size(), 0);
    fact_bytes_ = (out + 7) / 8;
    width_ = fact_bytes_ - plain_bytes_ + 4 * static_cast<int32_t>(parts_.size()) + 4;
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

  // Packs the state with the ids of its counters and of its plain facts' parts. Returns what
  // the tables have no id for yet (kMissingCounters, kMissingPlain << k; 0: none), with kNone
  // in that id's place: key() and part(k) then hold what it would be the id of.
  uint32_t pack(const uint64_t* words, const int32_t* counters, uint8_t* out) {
    const uint32_t missing = pack_with_counters(words, counters, out, false);
    return missing | finish_parts(plain(), out, false);  // (after: it reads the packed facts)
  }

  // As pack(), interning what the tables lack (only while no other thread packs).
  void pack_interning(const uint64_t* words, const int32_t* counters, uint8_t* out) {
    pack_with_counters(words, counters, out, true);
    finish_parts(plain(), out, true);
  }

  // pack() or pack_interning() (`intern`) in two halves, for packing several states before
  // any of their parts' ids is looked up (the lookups' cache misses then overlap):
  // pack_deferred() packs the facts and the counters' id into `out` and copies the plain
  // facts' bytes to `plain_copy` (plain_bytes() of them), prefetching the table slot of each
  // part that differs from the base's; finish_parts() then writes the parts' ids. Each returns
  // what it found no id for, as pack() does (never anything when interning). States finished
  // in the order they were packed get the ids pack_interning() gives.
  size_t plain_bytes() const { return static_cast<size_t>(plain_bytes_); }
  uint32_t pack_deferred(const uint64_t* words, const int32_t* counters, uint8_t* out,
                         uint8_t* plain_copy, bool intern) {
    const uint32_t missing = pack_with_counters(words, counters, out, intern);
    if (parts_.empty()) return missing;
    std::memcpy(plain_copy, plain(), plain_bytes());
    for (const PlainPart& p : parts_) {
      const uint8_t* bytes = plain_copy + p.offset;
      const auto size = static_cast<size_t>(p.bytes);
      if (p.base_id == kNone || std::memcmp(bytes, p.base.data(), size) != 0) {
        p.table->prefetch_slot(p.table->hash(bytes));
      }
    }
    return missing;
  }
  uint32_t finish_parts(const uint8_t* plain_copy, uint8_t* out, bool intern) {
    uint32_t missing = 0;
    for (int32_t k = 0; k < parts(); ++k) {
      const uint8_t* bytes = plain_copy + parts_[k].offset;
      uint32_t part_id = find_part(k, bytes);
      if (part_id == kNone && intern) part_id = intern_part(k, bytes);
      set_part_id(out, k, part_id);
      if (part_id == kNone) missing |= kMissingPlain << k;
    }
    return missing;
  }
  // Where part k's bytes lie in a copy of the plain facts.
  size_t part_offset(int32_t k) const { return static_cast<size_t>(parts_[k].offset); }

  const IntVec& key() const { return key_; }
  // The plain facts' parts (0 where they are not interned); part k's bytes in the state
  // packed or unpacked last (part_bytes(k) of them).
  int32_t parts() const { return static_cast<int32_t>(parts_.size()); }
  const uint8_t* part(int32_t k) const { return plain() + parts_[k].offset; }
  size_t part_bytes(int32_t k) const { return static_cast<size_t>(parts_[k].bytes); }
  uint32_t intern_part(int32_t k, const uint8_t* bytes) {
    return parts_[k].table->insert(bytes).first;
  }
  // Makes room in each table of plain facts for `more` values (StateStore::reserve), and
  // hides from find() the values interned from now on, or (`hide` false) shows them again
  // (StateStore::set_visible).
  void reserve_parts(size_t more) const {
    for (const PlainPart& p : parts_) p.table->reserve(p.table->size() + more);
  }
  void hide_new_parts(bool hide) const {
    for (const PlainPart& p : parts_) {
      p.table->set_visible(hide ? static_cast<uint32_t>(p.table->size()) : kNone);
    }
  }
  // Memory of the tables of plain facts (the counters' table is the caller's).
  int64_t table_bytes() const {
    int64_t total = 0;
    for (const PlainPart& p : parts_) total += p.table->bytes();
    return total;
  }

  uint32_t id(const uint8_t* row) const { return read_id(row + width_ - 4); }
  void set_id(uint8_t* row, uint32_t id) const { std::memcpy(row + width_ - 4, &id, 4); }
  uint32_t part_id(const uint8_t* row, int32_t k) const { return read_id(row + part_at(k)); }
  void set_part_id(uint8_t* row, int32_t k, uint32_t id) const {
    std::memcpy(row + part_at(k), &id, 4);
  }
  // Whether all of the row's ids are the tables' (none a local key).
  bool complete(const uint8_t* row) const {
    if (id(row) >= kLocalKey) return false;
    for (int32_t k = 0; k < parts(); ++k) {
      if (part_id(row, k) >= kLocalKey) return false;
    }
    return true;
  }

  void unpack(const uint8_t* in, uint64_t* words, int32_t* counters) {
    std::fill(scratch_.begin(), scratch_.end(), 0);
    auto* bytes = reinterpret_cast<uint8_t*>(scratch_.data());
    for (int32_t k = 0; k < parts(); ++k) {
      const uint32_t part_id = this->part_id(in, k);
      PlainPart& p = parts_[k];
      std::memcpy(bytes + p.offset, p.table->at(part_id), part_bytes(k));
      p.base.assign(part(k), part(k) + p.bytes);
      p.base_id = part_id;
    }
    std::memcpy(bytes + plain_bytes_, in, static_cast<size_t>(fact_bytes_ - plain_bytes_));
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
    table_->unpack(id(in), counters);
    // The state just unpacked is the base its successors are packed against (pack_facts).
    base_words_.assign(words, words + task_.num_words);
    base_packed_ = scratch_;
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

  // Packs the facts and the counters' id (see counters_id) into `out`; returns
  // kMissingCounters where the table lacks them, else 0.
  uint32_t pack_with_counters(const uint64_t* words, const int32_t* counters, uint8_t* out,
                              bool intern) {
    pack_facts(words, out);
    const uint32_t id = counters_id(counters, intern);
    set_id(out, id);
    return id == kNone ? kMissingCounters : 0;
  }

  // The counters' id, interned where `intern`, else kNone where the table lacks it (key()
  // then holds their key). A state's successors mostly share their counters (one timer pass
  // after each step), and their plain facts with them or with their parent.
  uint32_t counters_id(const int32_t* counters, bool intern) {
    const auto n = static_cast<size_t>(task_.num_counters);
    if (last_counters_.size() == n && std::equal(counters, counters + n, last_counters_.begin())) {
      return last_id_;
    }
    table_->key_of(counters, key_);
    const uint32_t id = intern ? table_->intern(key_) : table_->find(key_);
    if (id != kNone) {
      last_counters_.assign(counters, counters + n);
      last_id_ = id;
    }
    return id;
  }

  // The id of part k's value `bytes`, or kNone where its table lacks it: mostly the base's
  // (the state last unpacked), or the one found last.
  uint32_t find_part(int32_t k, const uint8_t* bytes) {
    PlainPart& p = parts_[k];
    const size_t size = part_bytes(k);
    if (p.base_id != kNone && std::memcmp(bytes, p.base.data(), size) == 0) return p.base_id;
    if (p.last_id != kNone && std::memcmp(bytes, p.last.data(), size) == 0) return p.last_id;
    const uint32_t id = p.table->find(bytes, p.table->hash(bytes));
    if (id != kNone) {
      p.last.assign(bytes, bytes + size);
      p.last_id = id;
    }
    return id;
  }

  // Packs the facts of `words`. A successor differs from the state last unpacked (the base) in
  // a few facts: then the base's packed bits are copied and only those facts' places (a bit of
  // a run, or their set's field) written again. Either way the bytes are the same.
  void pack_facts(const uint64_t* words, uint8_t* out) {
    if (!base_words_.empty() && pack_delta(words)) {
      copy_fields(out);
      return;
    }
    std::fill(scratch_.begin(), scratch_.end(), 0);
    for (const Run& r : runs_) {
      for (int32_t done = 0; done < r.len; done += 64) {
        const int32_t len = std::min(64, r.len - done);
        or_bits(scratch_.data(), r.dst + done, len, get_bits(words, r.src + done, len));
      }
    }
    for (const Group& g : groups_) {
      or_bits(scratch_.data(), g.offset, g.bits, group_value(g, words));
    }
    copy_fields(out);
  }

  // The packed facts' bytes that the row keeps (the sets' fields; all where none are
  // interned), from scratch_ into the row.
  void copy_fields(uint8_t* out) const {
    std::memcpy(out, plain() + plain_bytes_, static_cast<size_t>(fact_bytes_ - plain_bytes_));
  }

  static uint32_t read_id(const uint8_t* at) {
    uint32_t id;
    std::memcpy(&id, at, 4);
    return id;
  }

  // The plain facts' bytes in scratch_ (where they are interned, they come first).
  const uint8_t* plain() const { return reinterpret_cast<const uint8_t*>(scratch_.data()); }
  // Where part k's id lies in a row: after the sets' fields.
  size_t part_at(int32_t k) const {
    return static_cast<size_t>(fact_bytes_ - plain_bytes_ + 4 * k);
  }

  // The field of at-most-one set g for `words`: 0, or 1 + the index of its true fact.
  uint64_t group_value(const Group& g, const uint64_t* words) const {
    uint64_t value = 0;
    int32_t count = 0;
    for (const auto& [w, mask] : g.masks) {
      const uint64_t bits = words[w] & mask;
      if (bits == 0) continue;
      count += std::popcount(bits);
      if (value == 0) value = static_cast<uint64_t>(index_of_[w * 64 + std::countr_zero(bits)]) + 1;
    }
    if (count > 1) throw std::logic_error("packing: a state has two facts of one invariant");
    return value;
  }

  // Packs `words` into scratch_ from the base's packed bits; false (scratch_ unspecified) when
  // they differ in more facts than that pays for.
  bool pack_delta(const uint64_t* words) {
    constexpr int32_t kMaxChanged = 32;
    int32_t changed = 0;
    for (int32_t w = 0; w < task_.num_words; ++w) {
      changed += std::popcount(words[w] ^ base_words_[w]);
    }
    if (changed > kMaxChanged) return false;
    std::copy(base_packed_.begin(), base_packed_.end(), scratch_.begin());
    dirty_.clear();
    for (int32_t w = 0; w < task_.num_words; ++w) {
      for (uint64_t diff = words[w] ^ base_words_[w]; diff != 0; diff &= diff - 1) {
        const int32_t field = field_of_[64 * w + std::countr_zero(diff)];
        if (field >= 0) {
          scratch_[field >> 6] ^= uint64_t{1} << (field & 63);
        } else if (field != kNotPacked && !group_dirty_[-2 - field]) {
          group_dirty_[-2 - field] = 1;
          dirty_.push_back(-2 - field);
        }
      }
    }
    for (const int32_t k : dirty_) {
      group_dirty_[k] = 0;
      const Group& g = groups_[k];
      // Clear the field, then write it.
      const int32_t idx = g.offset >> 6, sh = g.offset & 63;
      const uint64_t ones = (uint64_t{1} << g.bits) - 1;
      scratch_[idx] &= ~(ones << sh);
      if (sh + g.bits > 64) scratch_[idx + 1] &= ~(ones >> (64 - sh));
      or_bits(scratch_.data(), g.offset, g.bits, group_value(g, words));
    }
    return true;
  }

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

  const Task& task_;
  CounterTable* table_;
  std::vector<Run> runs_;
  std::vector<Group> groups_;
  IntVec index_of_;  // per fact: its index in its group, or -1
  // Per fact: its bit in the packed facts (a run's), -2 - its group, or kNotPacked (static).
  static constexpr int32_t kNotPacked = -1;
  IntVec field_of_;
  std::vector<uint64_t> base_words_, base_packed_;  // the state unpacked last, and its bits
  std::vector<uint8_t> group_dirty_;                 // scratch of pack_delta
  IntVec dirty_;
  // Plain facts are interned in parts of at most about this many bytes, and at most this many
  // parts. Larger parts take more values: on multi_agent/10 seed 294 one part of 75 bytes
  // held 36 bytes per stored state in its table, three 4 (and their ids 8 more); on
  // asynchronous/9 searched with the time bound alone, one part of 29 bytes took more than it
  // saved (66.8 bytes per stored state in all at 2M states, 62.0 without interning), two
  // saved (55.3 at 1M, 62.9 without). Smaller parts take more in ids than they save.
  static constexpr int32_t kPlainPartBytes = 24, kMaxPlainParts = 16;
  // A part of the plain facts: its bytes, the table of its values (shared by the packer's
  // copies), and two values with their ids that spare pack() a lookup: the state unpacked last
  // (a successor keeps most parts of its parent) and what pack() looked up last (siblings
  // often change a part alike).
  struct PlainPart {
    int32_t offset = 0, bytes = 0;
    std::shared_ptr<StateStore> table;
    std::vector<uint8_t> base, last;
    uint32_t base_id = kNone, last_id = kNone;
  };
  // fact_bytes_: all packed facts (the first plain_bytes_ of them interned, if any); width_:
  // the row.
  int32_t fact_bytes_ = 0, plain_bytes_ = 0, width_ = 0;
  std::vector<PlainPart> parts_;
  std::vector<uint64_t> scratch_, static_words_;
  IntVec key_;            // the key of the counters pack() looked up last
  IntVec last_counters_;  // the counters pack() found an id for last, and that id
  uint32_t last_id_ = kNone;
};

template <typename T>
int64_t capacity_bytes(const std::vector<T>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

// A successor found while expanding a batch (see Searcher::astar), for Searcher::merge.
struct Child {
  uint64_t hash;    // of the packed row (with the tables' ids, or local keys)
  uint32_t found;   // its stored id, where the visited set had it before the batch, or kNone
  int32_t sibling;  // an earlier successor of the same state with the same row, or -1
  int32_t h;        // the bound, for the others
  uint8_t flags;    // kGoalFlag, kPendingFlag and the mover bits of the step into it
};

// What one thread found in a batch (see Searcher::Expansion): the successors, their rows, and
// the local keys in them. In BFS, the successors of the state being expanded.
struct Found {
  std::vector<Child> children;
  std::vector<uint8_t> rows;  // the children's packed rows, one after another
  std::vector<IntVec> keys;   // counters the table did not have (local keys, see Packer)
  // Parts of plain facts their tables did not have (local keys, see Packer): per key its part
  // and where its bytes start in plain_data.
  std::vector<std::pair<int32_t, size_t>> plain_keys;
  std::vector<uint8_t> plain_data;
  void clear() {
    children.clear();
    rows.clear();
    keys.clear();
    plain_keys.clear();
    plain_data.clear();
  }
};

// What one thread of a search needs to expand states: the state being expanded and its
// successor, packing scratch, and its own copies of the canonicalizer and the bounds (each
// keeps per-call scratch). Thread 0's also serves the serial parts (storing, plan extraction).
struct alignas(64) Expander {
  explicit Expander(Packer p) : packer(std::move(p)) {}

  Packer packer;
  std::unique_ptr<Canonicalizer> canon;
  std::unique_ptr<DelayHeuristic> delay;
  std::unique_ptr<ProjectionHeuristic> projection;
  std::vector<uint64_t> words, next_words, mask;
  std::vector<int32_t> counters, next_counters;
  IntVec valid, pick, joint;
  std::vector<uint8_t> applied;
  std::vector<IntVec> options_per_robot;
  std::vector<std::pair<int32_t, int32_t>> swaps;
  std::vector<uint8_t> row;
  // Relocation pruning of the state being expanded (see Searcher::set_pruning).
  int32_t skip_robot = -1, only_robot = -1;
  // Symmetric steps (search.h, "Symmetry reduction"): whether successors() generates one step
  // per orbit of the state's stabilizer (not while a plan is extracted), and per object the
  // class member it stands for there.
  bool one_per_orbit = true;
  IntVec representative;
  int64_t generated = 0, pruned = 0;
  Found found;  // in the current batch
  // BFS: the plain facts' bytes of the state being expanded's successors, one after another.
  std::vector<uint8_t> plain_copies;
  std::vector<size_t> fresh;  // the children of the state being expanded that were new
  // A*'s successors in the current batch (Searcher::expand, indexed as found.children): whether
  // each is a goal, and their full states, one after another; and whether it is to be bounded
  // (Searcher::bound_children), or takes the bound of a successor of an earlier expansion of
  // the batch (Searcher::share_bounds: that expander's thread << 32 | its index).
  std::vector<uint8_t> goal;
  std::vector<uint64_t> child_words;
  std::vector<int32_t> child_counters;
  std::vector<int64_t> same_as;  // or kBoundHere / kNotBound (Searcher)
  // An expander for another thread: its own scratch, and copies of the canonicalizer and the
  // bounds (the projections' tables shared, not copied).
  std::unique_ptr<Expander> copy() const {
    auto other = std::make_unique<Expander>(packer);
    other->words = words;
    other->counters = counters;
    other->next_words = next_words;
    other->next_counters = next_counters;
    other->mask = mask;
    other->row = row;
    if (canon) other->canon = std::make_unique<Canonicalizer>(*canon);
    if (delay) other->delay = std::make_unique<DelayHeuristic>(*delay);
    if (projection) other->projection = projection->clone();
    return other;
  }
};

// The actions a step can apply: one per robot in simultaneous mode, else one.
int32_t actions_per_step(const SearchOptions& options) {
  return options.mode == PlanMode::kSimultaneous
             ? std::max<int32_t>(1, static_cast<int32_t>(options.robots.size()))
             : 1;
}

}  // namespace

// Larger projections make a tighter bound but take seconds to build: under a time limit,
// upgrades must end within half of it (kUpgradeShare) unless the caller names a share (a search
// without one plans for ProjectionLimits::planned_seconds instead), and then
// the upgrade caps grow with that share (kUpgradeCapSeconds): on the two-robot originals, rows
// of millions of states that a 120 s search can afford raise the start bound by 7-9, and on
// multi_agent/3 seed 84 the rows a 10 s search builds in its 5 s raise it by 2 (see
// benchmarks/README.md). max_memory_bytes counts the search's tables, which grow only after
// construction has released its scratch, so under that budget the caps grow only while the
// construction they allow fits in it as well (under ProjectionLimits::planned_memory_bytes
// instead where set: without a budget, or for a bound planned for more memory than the
// search's budget). A long search under a budget
// (kLongUpgradeSeconds) takes every cap to what half of the budget holds, with room in the
// distance tables to match, and its rows that repeat timers are built whole where they fit
// that, not with a sink; without a time limit its upgrades get the time those caps take
// (kLongSecondsPerState).
ProjectionLimits bound_limits(const SearchOptions& options) {
  ProjectionLimits limits = options.projection_limits;
  limits.threads = std::max<int32_t>(1, options.threads);
  limits.tick_free = actions_per_step(options) > 1;
  if (limits.upgrade_seconds > 0) return limits;
  const double planned = options.time_limit > 0 ? options.time_limit : limits.planned_seconds;
  limits.upgrade_seconds = kUpgradeShare * planned;
  const double throughput = 1 + kHelperGain * (limits.threads - 1);
  double scale = std::min(limits.upgrade_seconds / kUpgradeCapSeconds * throughput,
                          kMaxUpgradeCapScale);
  const int64_t unscaled = limits.upgrade_states;
  const int64_t budget =
      limits.planned_memory_bytes > 0 ? limits.planned_memory_bytes : options.max_memory_bytes;
  if (budget > 0 && limits.upgrade_total_states > 0) {
    const double held = static_cast<double>(budget) / kConstructionBytesPerState;
    scale = std::min(scale, held / static_cast<double>(limits.upgrade_total_states));
    const auto long_caps = static_cast<int64_t>(held * kLongBudgetShare);
    if (limits.upgrade_seconds >= kLongUpgradeSeconds &&
        static_cast<double>(long_caps) > static_cast<double>(limits.upgrade_total_states) * scale) {
      limits.upgrade_states = std::max(limits.upgrade_states, long_caps);
      limits.upgrade_total_states = long_caps;
      limits.max_distance_entries =
          std::max(limits.max_distance_entries, long_caps * kLongDistanceEntriesPerState);
      if (limits.retry_states < 0) limits.retry_states = long_caps;
      if (limits.sink_states < 0) limits.sink_states = long_caps;
      if (options.time_limit <= 0) {
        limits.upgrade_seconds =
            std::max(limits.upgrade_seconds,
                     static_cast<double>(long_caps) * kLongSecondsPerState / throughput);
      }
      return limits;
    }
  }
  if (scale <= 1) return limits;
  auto scaled = [scale](int64_t cap) {
    return static_cast<int64_t>(static_cast<double>(cap) * scale);
  };
  if (limits.sink_states < 0) {
    limits.sink_states =
        limits.retry_states >= 0 ? std::min(limits.retry_states, unscaled) : unscaled;
  }
  if (limits.retry_states < 0) {  // as the caps grow on one thread (scale > 1 here)
    const double retry_scale =
        limits.upgrade_seconds < kRetryGrowthSeconds
            ? 1.0
            : std::clamp(limits.upgrade_seconds / kUpgradeCapSeconds, 1.0, scale);
    limits.retry_states = static_cast<int64_t>(static_cast<double>(unscaled) * retry_scale);
  }
  limits.upgrade_states = scaled(limits.upgrade_states);
  limits.upgrade_total_states = scaled(limits.upgrade_total_states);
  return limits;
}

namespace {

class Searcher {
 public:
  Searcher(const Task& task, const uint64_t* words, const int32_t* counters,
           const SearchOptions& options)
      : task_(task),
        options_(options),
        table_(task, options.mode == PlanMode::kTurnBased),
        start_(std::chrono::steady_clock::now()) {
    const auto players = static_cast<int32_t>(options.robots.size());
    if (options.mode != PlanMode::kCentralized && players == 0) {
      throw std::invalid_argument("turn_based and simultaneous planning need the robot list");
    }
    for (int32_t r : options.robots) {
      if (r < 0 || r >= task.num_objects) throw std::invalid_argument("robot id out of range");
    }
    // Up to 64 with denominators up to 64 keeps f (f_of) within 32 bits.
    if (options.weight_denominator < 1 || options.weight_denominator > 64 ||
        options.weight < options.weight_denominator ||
        options.weight > 64 * options.weight_denominator) {
      throw std::invalid_argument("the A* weight must be from 1 to 64, its denominator at most 64");
    }
    if (options.threads < 1) throw std::invalid_argument("a search needs at least one thread");
    if (options.batch < 0) throw std::invalid_argument("the batch size cannot be negative");
    if (options.partial_slack < -1) {
      throw std::invalid_argument("partial_slack must be -1 (never) or at least 0");
    }
    if (options.algorithm == Algorithm::kAstar && options.partial_slack >= 0) {
      partial_from_ = options.partial_from_bytes >= 0 ? options.partial_from_bytes
                      : options.max_memory_bytes > 0 ? options.max_memory_bytes / 2
                                                     : -1;
      partial_ = partial_from_ == 0;
    }
    no_op_.resize(static_cast<size_t>(task.num_groundings));
    for (int32_t g = 0; g < task.num_groundings; ++g) {
      no_op_[g] = task.spec.eff_begin[g] == task.spec.eff_begin[g + 1] &&
                  task.spec.sfx_begin[g] == task.spec.sfx_begin[g + 1];
    }
    init_relocations();
    parallel_ = actions_per_step(options);
    expanders_.push_back(std::make_unique<Expander>(
        Packer(task, words, &table_, options.symmetry ? options.symmetry->pair_facts : IntVec{},
               options.pack_group_begin, options.pack_group_facts,
               options.min_interned_bytes)));
    Expander& x = main();
    store_ = std::make_unique<StateStore>(x.packer.width());
    x.row.resize(x.packer.width());
    x.words.assign(words, words + task.num_words);
    x.counters.assign(counters, counters + task.num_counters);
    if (options.mode != PlanMode::kTurnBased) x.counters[0] = 0;
    x.next_words.resize(static_cast<size_t>(task.num_words));
    x.next_counters.resize(static_cast<size_t>(task.num_counters));
    x.mask.resize(static_cast<size_t>(task.mask_words));
    if (options.algorithm == Algorithm::kAstar) {
      x.delay = std::make_unique<DelayHeuristic>(task, parallel_, options.lmcut);
    }
    if (options.symmetry) {
      x.canon = std::make_unique<Canonicalizer>(task, *options.symmetry);
      if (x.canon->empty()) x.canon.reset();
    }
    root_words_ = x.words;
    root_counters_ = x.counters;
    auto order = std::make_unique<EffectOrder>(task);
    if (!order->empty()) effect_order_ = std::move(order);
    represent(x, x.words.data(), x.counters.data(), nullptr);
    if (x.delay && options.projections) {
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
      const ProjectionLimits limits = bound_limits(options);
      x.projection = std::make_unique<ProjectionHeuristic>(projected, *options.projections,
                                                           x.words.data(), x.counters.data(),
                                                           stop, limits);
      stats_.abstract_states = x.projection->abstract_states();
      stats_.coarse_rows = x.projection->coarse_rows();
      stats_.sink_rows = x.projection->sink_rows();
      // The time bound (h_max of the relaxed task, delays counted) costs ~50 projection
      // lookups per state. Keep it only where it says more than the projections at the start:
      // without delayed effects it never does, and with them it does where an object the
      // projections miss carries the critical path (the pot of a soup). Both bounds are
      // admissible, so dropping one only weakens the bound. LM-cut, if asked for, stays.
      const bool delays =
          std::any_of(task.spec.node_type.begin(), task.spec.node_type.end(),
                      [](int32_t t) { return t == static_cast<int32_t>(EffectType::kDelayed); });
      delay_bound_ = options.lmcut ||
                     (delays && x.delay->evaluate(x.words.data(), x.counters.data()) >
                                    projection_bound(x, x.words.data(), x.counters.data()));
    }
    // On several threads: each further thread expands with copies of thread 0's parts
    // (the projections' tables are shared, not copied).
    const int32_t threads = options.threads;
    for (int32_t k = 1; k < threads; ++k) expanders_.push_back(x.copy());
    if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads, 1);
    const int32_t per_thread =
        options.algorithm == Algorithm::kAstar ? kBatchPerThread : kBfsBatchPerThread;
    batch_size_ = options.batch > 0 ? options.batch : threads > 1 ? per_thread * threads : 1;
  }

  SearchResult run() {
    SearchResult result;
    Expander& x = main();
    x.packer.pack_interning(x.words.data(), x.counters.data(), x.row.data());
    const uint32_t root = store_->insert(x.row.data()).first;
    parent_.push_back(kNone);
    info_.push_back({0, StoredBound{}, 0});
    if (goal_reached(task_, x.words.data())) {
      result.status = SearchStatus::kSolved;
    } else if (options_.algorithm == Algorithm::kBfs) {
      result.status = bfs(result);
    } else {
      result.status = astar(root, result);
    }
    result.stats = stats_so_far();
    result.stats.seconds = elapsed();
    return result;
  }

 private:
  enum class Outcome : uint8_t { kExpanded, kDeadEnd, kRaised, kTooDeep };
  struct Expansion {
    uint32_t id;
    int32_t g;
    uint8_t flags;  // as popped
    Outcome outcome;
    int32_t late;  // the deferred bound (kPendingFlag), or -1
    // Its successors: [first, end) of the children (and rows) of the expander that expanded
    // it, whose keys in [first_key, end_key), and plain facts in [first_plain, end_plain),
    // are its local keys.
    int32_t by;
    size_t first, end, first_key, end_key, first_plain, end_plain;
    // BFS: its successors generated, and those pruned (counted when stored: none after a goal),
    // and whether its last successor was dropped (expand_bfs()).
    int64_t generated, pruned;
    bool dropped_last;
  };
  // States expanded at once per thread, when several search: enough to keep the threads busy
  // between two synchronizations, few enough that a batch stays close to A*'s order (measured
  // with two threads: 64 states; 23 on average, from one (f, g) bucket only, gained nothing).
  static constexpr int32_t kBatchPerThread = 32;
  // BFS's batches change nothing but the synchronizations (see bfs()): on asynchronous/9 with
  // two threads, 32 to 256 per thread took the same time.
  static constexpr int32_t kBfsBatchPerThread = 128;

  Expander& main() { return *expanders_[0]; }

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  int64_t memory() const {
    int64_t total = store_->bytes() + table_.bytes() + expanders_[0]->packer.table_bytes() +
                    parent_.bytes() + info_.bytes();
    for (const auto& by_g : open_) {
      for (const auto& ids : by_g) total += capacity_bytes(ids);
    }
    return total;
  }

  SearchStats stats_so_far() const {
    SearchStats so_far = stats_;
    for (const auto& x : expanders_) {
      so_far.generated += x->generated;
      so_far.pruned += x->pruned;
    }
    so_far.stored = static_cast<int64_t>(store_->size());
    so_far.bytes = memory();
    so_far.state_bytes = static_cast<int64_t>(expanders_[0]->packer.width());
    return so_far;
  }

  // Relocation pruning (search.h): in centralized mode, after a step that moved robot r, r's
  // moves and the no-ops are not expanded, nor after a step that commutes with r's moves.
  // Codes robots 1, 2, ... for the flags' mover bits.
  void init_relocations() {
    code_robot_.assign(1, -1);
    robot_code_.assign(static_cast<size_t>(task_.num_objects), 0);
    const IntVec& relocated = options_.relocation_robot;
    const IntVec& commuting = options_.commuting_robot;
    if (relocated.empty()) return;
    for (const IntVec* robots : {&relocated, &commuting}) {
      if (robots->empty()) continue;
      if (static_cast<int32_t>(robots->size()) != task_.num_groundings) {
        throw std::invalid_argument("relocation_robot and commuting_robot need one entry per "
                                    "grounding");
      }
      for (int32_t r : *robots) {
        if (r < -1 || r >= task_.num_objects) {
          throw std::invalid_argument("relocation_robot, commuting_robot: object id out of range");
        }
      }
    }
    for (int32_t r : relocated) {
      if (r < 0 || robot_code_[r] != 0) continue;
      if (static_cast<int32_t>(code_robot_.size()) > kMaxMovers) return;  // too many: no pruning
      robot_code_[r] = static_cast<int32_t>(code_robot_.size());
      code_robot_.push_back(r);
    }
    if (options_.mode != PlanMode::kCentralized) return;
    relocated_ = relocated;
    // A commuting step names a robot that has moves (else nothing to skip): it gets its code.
    if (std::all_of(commuting.begin(), commuting.end(),
                    [&](int32_t r) { return r < 0 || robot_code_[r] != 0; })) {
      commuting_ = commuting;
    }
  }

  // The successors a state's expansion generates, from its flags: with a mover code, all but
  // that robot's moves and the no-ops; with kRestFlag too, only those (a second expansion).
  void set_pruning(Expander& x, uint8_t flags) const {
    const int32_t robot = code_robot_[flags >> kMoverShift];
    const bool rest = (flags & kRestFlag) != 0;
    x.skip_robot = rest ? -1 : robot;
    x.only_robot = rest ? robot : -1;
  }

  // A step reaches a stored state at its depth: its pruning keeps only what both steps
  // into it skip (search.h). `bits`: the step's mover bits. Returns whether that changed it.
  // The flags are read and written whole: BFS's threads read them while thread 0 stores.
  bool relax_mover(uint32_t id, uint8_t bits) {
    if (!relaxes(id, bits)) return false;
    uint8_t& flags = info_.at(id)->flags;
    store_slot(flags, static_cast<uint8_t>(flags & ~kMoverMask));
    return true;
  }
  // Whether relax_mover(id, bits) would change state id's pruning (only reads).
  bool relaxes(uint32_t id, uint8_t bits) const {
    const uint8_t flags = load_slot(info_.at(id)->flags);
    const uint8_t have = flags & kMoverMask;
    return have != 0 && have != (bits & kMoverMask) && (flags & kRestFlag) == 0;
  }

  // Whether storing one more state would exceed max_states (then the search stops).
  bool full() {
    full_ = full_ || (options_.max_states > 0 &&
                      static_cast<int64_t>(store_->size()) >= options_.max_states);
    return full_;
  }

  // Checked between expansions; returns the status that stops the search, or kSolved for none.
  SearchStatus check_limits() {
    if (full_) return SearchStatus::kStateLimit;
    if (cancelled_) return SearchStatus::kCancelled;
    if (++since_check_ < 128) return SearchStatus::kSolved;
    since_check_ = 0;
    if (options_.max_memory_bytes > 0 || (partial_from_ > 0 && !partial_)) {
      const int64_t used = memory();
      if (options_.max_memory_bytes > 0 && used > options_.max_memory_bytes) {
        return SearchStatus::kMemoryLimit;
      }
      partial_ = partial_ || (partial_from_ > 0 && used >= partial_from_);
    }
    return clock_limits();
  }

  // The time limit and the poll callback (at most every 0.1 s); kSolved when neither stops.
  SearchStatus clock_limits() {
    const double now = elapsed();
    if (options_.time_limit > 0 && now > options_.time_limit) return SearchStatus::kTimeLimit;
    if (options_.poll && now >= next_poll_) {
      next_poll_ = now + 0.1;
      SearchStats so_far = stats_so_far();
      so_far.seconds = now;
      if (options_.poll(so_far)) return SearchStatus::kCancelled;
    }
    return SearchStatus::kSolved;
  }

  // Calls visit(step_groundings, n, status) for every successor of x's state, with the
  // successor in x.next_words / x.next_counters.
  template <typename Visit>
  void successors(Expander& x, Visit&& visit) const {
    const bool simultaneous = options_.mode == PlanMode::kSimultaneous;
    int32_t player = -1;
    if (options_.mode == PlanMode::kTurnBased) player = options_.robots[x.counters[0]];
    valid_mask(task_, x.words.data(), x.mask.data(), player);
    x.valid.clear();
    for (int32_t w = 0; w < task_.mask_words; ++w) {
      for (uint64_t bits = x.mask[w]; bits; bits &= bits - 1) {
        x.valid.push_back(w * 64 + std::countr_zero(bits));
      }
    }
    auto apply = [&](const int32_t* groundings, int32_t n) {
      std::copy(x.words.begin(), x.words.end(), x.next_words.begin());
      std::copy(x.counters.begin(), x.counters.end(), x.next_counters.begin());
      x.applied.assign(static_cast<size_t>(n), 0);
      int status = step(task_, x.next_words.data(), x.next_counters.data(), groundings, n,
                        x.applied.data());
      for (int32_t k = 0; k < n; ++k) {
        // A step whose entry was no longer valid equals the step with -1 there (also visited).
        if (groundings[k] >= 0 && !x.applied[k]) return;
      }
      if (options_.mode != PlanMode::kTurnBased) x.next_counters[0] = 0;
      visit(groundings, n, status);
    };
    if (!simultaneous) {
      const bool orbits = x.canon && x.one_per_orbit;
      if (orbits) x.canon->stabilizer(x.words.data(), x.counters.data(), x.representative);
      for (int32_t g : x.valid) {
        if (orbits && symmetric_step(x, &g, 1)) continue;
        // Relocation pruning (search.h): after robot r's move, or a step that commutes with
        // r's moves, neither r's moves nor a no-op.
        if (x.skip_robot >= 0 && (relocated_[g] == x.skip_robot || no_op_[g])) continue;
        if (x.only_robot >= 0 && relocated_[g] != x.only_robot && !no_op_[g]) continue;
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
    x.options_per_robot.assign(static_cast<size_t>(players), IntVec{-1});
    const TaskSpec& spec = task_.spec;
    for (int32_t g : x.valid) {
      const int32_t owner = spec.owner[g];
      int32_t slot = -1;
      for (int32_t r = 0; r < players; ++r) {
        if (options_.robots[r] == owner) slot = r;
      }
      if (slot < 0 && owner >= 0) continue;  // a player that is not a robot: Env.step refuses
      if (slot >= 0 || no_op_[g]) {
        x.options_per_robot[std::max(slot, 0)].push_back(g);
      } else {
        for (int32_t r = 0; r < players; ++r) x.options_per_robot[r].push_back(g);
      }
    }
    const bool orbits = x.canon && x.one_per_orbit;
    if (orbits) x.canon->stabilizer(x.words.data(), x.counters.data(), x.representative);
    x.pick.assign(static_cast<size_t>(players), 0);
    x.joint.assign(static_cast<size_t>(players), -1);
    for (;;) {
      for (int32_t r = 0; r < players; ++r) x.joint[r] = x.options_per_robot[r][x.pick[r]];
      if (!orbits || !symmetric_step(x, x.joint.data(), players)) apply(x.joint.data(), players);
      int32_t r = 0;
      while (r < players && ++x.pick[r] == static_cast<int32_t>(x.options_per_robot[r].size())) {
        x.pick[r++] = 0;
      }
      if (r == players) break;
    }
  }

  // Whether the step (groundings[0..n), -1 for none) has a symmetric twin among the state's
  // steps that successors() generates instead: it names an object whose representative
  // (Canonicalizer::stabilizer) is another object that it does not name. Trading the two maps
  // the state onto itself, so the twin is valid and leads to the same orbit; replacing such
  // objects one by one ends at a step that names only representatives (or both of a pair),
  // which is generated. In simultaneous mode the robots are never traded, so the twin's
  // entries belong to the same robots, and trading commutes with applying them in order (the
  // same entries apply).
  bool symmetric_step(const Expander& x, const int32_t* groundings, int32_t n) const {
    const int32_t params = task_.max_params;
    auto names = [&](int32_t object) {
      for (int32_t i = 0; i < n; ++i) {
        if (groundings[i] < 0) continue;
        const int32_t* args =
            task_.spec.grounding_args.data() + static_cast<size_t>(groundings[i]) * params;
        if (std::find(args, args + params, object) != args + params) return true;
      }
      return false;
    };
    for (int32_t i = 0; i < n; ++i) {
      if (groundings[i] < 0) continue;
      const int32_t* args =
          task_.spec.grounding_args.data() + static_cast<size_t>(groundings[i]) * params;
      for (int32_t k = 0; k < params && args[k] >= 0; ++k) {
        const int32_t stands_for = x.representative[args[k]];
        if (stands_for != args[k] && !names(stands_for)) return true;
      }
    }
    return false;
  }

  // Rewrites a state into the one the search stores for it: the active list in its normal form
  // (effect_order.h), then symmetry's representative, whose renaming of templates can leave
  // the list out of order again. With swaps, appends symmetry's transpositions.
  void represent(Expander& x, uint64_t* words, int32_t* counters,
                 std::vector<std::pair<int32_t, int32_t>>* swaps) const {
    if (effect_order_) effect_order_->normalize(counters);
    if (!x.canon) return;
    x.canon->canonicalize(words, counters, swaps);
    if (effect_order_) effect_order_->normalize(counters);
  }

  // Replaces x's successor by its representative (see represent) and returns the mover
  // bits of the step into it: the code of the robot a relocation moved, or whose moves a
  // commuting step skips, named as in the representative, or 0.
  uint8_t canonical_child(Expander& x, const int32_t* groundings, int32_t n) const {
    int32_t mover = n == 1 && !relocated_.empty() ? relocated_[groundings[0]] : -1;
    if (mover < 0 && n == 1 && !commuting_.empty()) mover = commuting_[groundings[0]];
    x.swaps.clear();
    represent(x, x.next_words.data(), x.next_counters.data(), mover >= 0 ? &x.swaps : nullptr);
    for (const auto& [a, b] : x.swaps) mover = mover == a ? b : mover == b ? a : mover;
    return mover >= 0 ? static_cast<uint8_t>(robot_code_[mover] << kMoverShift) : 0;
  }

  // Whether x's successor (canonicalized as the search stores them) packs to stored state
  // `id` (for plan extraction).
  bool next_is(Expander& x, uint32_t id) {
    return x.packer.pack(x.next_words.data(), x.next_counters.data(), x.row.data()) == 0 &&
           std::memcmp(x.row.data(), store_->at(id), x.packer.width()) == 0;
  }

  // A step from stored state `from` to stored state `to`, found again among from's successors
  // (the search keeps no step per state: 4 bytes each, and a joint step's width in
  // simultaneous mode). Any such step does: the plan only needs to reach the same states.
  std::vector<int32_t> step_between(uint32_t from, uint32_t to) {
    Expander& x = main();
    x.packer.unpack(store_->at(from), x.words.data(), x.counters.data());
    x.skip_robot = x.only_robot = -1;
    x.one_per_orbit = false;
    std::vector<int32_t> found;
    successors(x, [&](const int32_t* groundings, int32_t n, int status) {
      if (!found.empty() || (status & kStatusPoolExhausted)) return;
      represent(x, x.next_words.data(), x.next_counters.data(), nullptr);
      if (next_is(x, to)) found.assign(groundings, groundings + n);
    });
    x.one_per_orbit = true;
    if (found.empty()) throw std::logic_error("plan extraction: no step between stored states");
    return found;
  }

  void extract(uint32_t goal, SearchResult& result) {
    std::vector<uint32_t> path;
    for (uint32_t id = goal; id != kNone; id = parent_[id]) path.push_back(id);
    std::reverse(path.begin(), path.end());
    std::vector<std::vector<int32_t>> plan;
    for (size_t i = 1; i < path.size(); ++i) plan.push_back(step_between(path[i - 1], path[i]));
    if (main().canon) to_real_objects(path, plan);
    result.plan = std::move(plan);
  }

  // The plan's steps act on representatives; rewrites them to act on the real states. real =
  // inverse(M) of the permutation M with representative = M(real state), updated by the
  // transpositions of every canonicalization along the path.
  void to_real_objects(const std::vector<uint32_t>& path,
                       std::vector<std::vector<int32_t>>& plan) {
    Expander& x = main();
    IntVec real(static_cast<size_t>(task_.num_objects));
    std::iota(real.begin(), real.end(), 0);
    std::vector<std::pair<int32_t, int32_t>> swaps;
    auto follow = [&]() {
      for (const auto& [a, b] : swaps) std::swap(real[a], real[b]);
      swaps.clear();
    };
    std::copy(root_words_.begin(), root_words_.end(), x.next_words.begin());
    std::copy(root_counters_.begin(), root_counters_.end(), x.next_counters.begin());
    represent(x, x.next_words.data(), x.next_counters.data(), &swaps);
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
      x.packer.unpack(store_->at(path[i]), x.next_words.data(), x.next_counters.data());
      std::vector<int32_t>& groundings = plan[i];
      step(task_, x.next_words.data(), x.next_counters.data(), groundings.data(),
           static_cast<int32_t>(groundings.size()), nullptr);
      if (options_.mode != PlanMode::kTurnBased) x.next_counters[0] = 0;
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
      represent(x, x.next_words.data(), x.next_counters.data(), &swaps);
      if (!next_is(x, path[i + 1])) {
        throw std::logic_error("symmetry: replaying the plan left the stored path");
      }
      follow();
    }
  }

  // BFS expands the states of a layer in batches (of one state on a single thread; see
  // search.h, "Threads"): expand_bfs() generates and packs each state's successors (every
  // thread, reading the search's tables and writing only its expander and the batch), then
  // store_bfs() stores them (thread 0) in the batch's order. A successor lies one layer below
  // the batch, so storing one state's successors changes nothing the others' expansions read:
  // the search (its states, their order and the statistics) is the same on any number of
  // threads. On several, thread 0 stores a batch while the others expand the next one of the
  // same layer, and then joins them (store_and_expand()).
  SearchStatus bfs(SearchResult& result) {
    int32_t held = 0;  // the states of held_batch_: expanded, their successors not stored yet
    for (uint32_t next = 0;;) {
      // The next states of the layer being expanded (while a batch is held, not past the
      // layer's end: the next layer is not all stored yet).
      int32_t taken = 0;
      if (next < store_->size() && (held == 0 || info_.at(next)->g == held_batch_[0].g)) {
        const int32_t g = info_.at(next)->g;
        while (taken < batch_size_ && next < store_->size() && info_.at(next)->g == g) {
          const SearchStatus stop = check_limits();
          if (stop != SearchStatus::kSolved) return stop;
          if (g >= kMaxSearchDepth) return SearchStatus::kDepthLimit;
          if (static_cast<size_t>(taken) == batch_.size()) batch_.emplace_back();
          Expansion& e = batch_[taken++];
          e.id = next++;
          e.g = g;
          e.flags = info_.at(e.id)->flags & kMoverMask;
        }
      }
      if (taken == 0 && held == 0) return SearchStatus::kUnsolvable;
      uint32_t goal = kNone;
      if (pool_) {
        goal = store_and_expand(held, taken);
        std::swap(batch_, held_batch_);
        held = taken;
      } else {
        expand_batch(taken, [&](int32_t thread, Expansion& e) { expand_bfs(thread, e, false); });
        hold_found();
        goal = store_batch(batch_, taken);
      }
      if (goal != kNone) {
        extract(goal, result);
        return SearchStatus::kSolved;
      }
      if (full_) return SearchStatus::kStateLimit;
    }
  }

  // On several threads: thread 0 stores the successors of held_batch_'s first `held` states
  // while the others expand batch_'s first `taken`, and joins them once it is done. The tables
  // first get room for all it may add, so that none grows while the others read it, and what
  // it adds is hidden from their lookups: they leave those successors to the store, as they do
  // any state not stored yet (the search stays the one-thread search). Returns the goal among
  // the new states, or kNone (full_: the state limit stopped the store).
  uint32_t store_and_expand(int32_t held, int32_t taken) {
    const auto expand = [&](int32_t thread, Expansion& e) { expand_bfs(thread, e, true); };
    if (held == 0) {
      expand_batch(taken, expand);
      return kNone;
    }
    hold_found();
    if (taken == 0) return store_batch(held_batch_, held);
    size_t children = 0, keys = 0, plain = 0;
    for (int32_t i = 0; i < held; ++i) {
      const Expansion& e = held_batch_[i];
      children += e.end - e.first;
      keys += e.end_key - e.first_key;
      plain += e.end_plain - e.first_plain;
    }
    store_->reserve(store_->size() + children);
    info_.reserve(info_.size() + children);
    table_.reserve(table_.size() + keys);
    const Packer& packer = main().packer;
    packer.reserve_parts(plain);
    store_->set_visible(static_cast<uint32_t>(store_->size()));
    table_.set_visible(static_cast<uint32_t>(table_.size()));
    packer.hide_new_parts(true);
    uint32_t goal = kNone;
    std::atomic<int32_t> next{0};
    std::atomic<bool> stop{false};
    pool_->run(static_cast<int64_t>(expanders_.size()), [&](int64_t k, int64_t) {
      const auto thread = static_cast<int32_t>(k);
      if (thread == 0) {
        goal = store_batch(held_batch_, held);
        // The batch being expanded is not needed past a goal or the state limit.
        if (goal != kNone || full_) stop.store(true, std::memory_order_relaxed);
      }
      for (int32_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < taken;) {
        expand(thread, batch_[i]);
      }
    });
    store_->set_visible(kNone);
    table_.set_visible(kNone);
    packer.hide_new_parts(false);
    return goal;
  }

  // Moves what each thread found in the batch it expanded to held_, for storing, and leaves
  // the threads' lists empty for the next batch.
  void hold_found() {
    held_.resize(expanders_.size());
    for (size_t t = 0; t < expanders_.size(); ++t) {
      std::swap(expanders_[t]->found, held_[t]);
      expanders_[t]->found.clear();
    }
  }

  // Stores the successors of batch[0, n) (what held_ holds) in the batch's order: on several
  // threads, with the local keys interned and the new rows' slots fetched first, as
  // expand_bfs() does on one. Returns the goal among the new states, or kNone (also where the
  // state limit stopped it: full_).
  uint32_t store_batch(const std::vector<Expansion>& batch, int32_t n) {
    if (pool_) {
      for (int32_t i = 0; i < n; ++i) prepare_store(batch[i], held_[batch[i].by]);
    }
    for (int32_t i = 0; i < n; ++i) {
      const uint32_t goal = store_bfs(batch[i], held_[batch[i].by]);
      if (goal != kNone || full_) return goal;
    }
    return kNone;
  }

  // Expands the batch's first `taken` states with expand_one(thread, expansion): on every
  // thread, each taking the next state not taken yet, or on thread 0 alone for one state.
  template <typename ExpandOne>
  void expand_batch(int32_t taken, ExpandOne&& expand_one) {
    for (auto& each : expanders_) each->found.clear();
    if (taken == 1 || !pool_) {
      for (int32_t i = 0; i < taken; ++i) expand_one(0, batch_[i]);
      return;
    }
    std::atomic<int32_t> next{0};
    pool_->run(static_cast<int64_t>(expanders_.size()), [&](int64_t k, int64_t) {
      for (int32_t i; (i = next.fetch_add(1)) < taken;) {
        expand_one(static_cast<int32_t>(k), batch_[i]);
      }
    });
  }

  // Generates and packs the successors of e's state into x, in passes as A* does (expand()):
  // the first packs every successor but for the ids of its plain facts' parts, whose table
  // slots it prefetches, the second looks those ids up and prefetches each row's visited-set
  // slot, so that the lookups' cache misses overlap (benchmarks/README.md, "Breadth-first
  // search in passes"). `shared`: other threads expand at the same time, so it interns
  // nothing (what the tables lack gets a local key, as in expand()) and looks each complete
  // row up in the visited set in a third pass; alone, it interns as it goes and leaves the
  // lookups to store_bfs(). Successors after a goal are not generated: a goal is new (the
  // search would have stopped at it), so storing stops there.
  void expand_bfs(int32_t thread, Expansion& e, bool shared) const {
    Expander& x = *expanders_[thread];
    begin_expansion(x, e, thread);
    e.generated = e.pruned = 0;
    e.dropped_last = false;
    x.packer.unpack(store_->at(e.id), x.words.data(), x.counters.data());
    set_pruning(x, e.flags);
    const size_t width = x.packer.width(), plain = x.packer.plain_bytes();
    x.plain_copies.clear();
    bool goal = false;
    successors(x, [&](const int32_t* groundings, int32_t n, int status) {
      if (goal) return;
      ++e.generated;
      if (status & kStatusPoolExhausted) {
        ++e.pruned;
        return;
      }
      x.found.children.push_back({0, kNone, -1, 0, canonical_child(x, groundings, n)});
      x.found.rows.resize(x.found.rows.size() + width);
      x.plain_copies.resize(x.plain_copies.size() + plain);
      uint8_t* row = x.found.rows.data() + x.found.rows.size() - width;
      if (x.packer.pack_deferred(x.next_words.data(), x.next_counters.data(), row,
                                 x.plain_copies.data() + x.plain_copies.size() - plain, !shared)) {
        x.packer.set_id(row, local_counters(x, e));
      }
      goal = (status & kStatusGoal) != 0;
      if (goal) x.found.children.back().flags |= kGoalFlag;
    });
    e.end = x.found.children.size();
    for (size_t k = e.first; k < e.end; ++k) {
      uint8_t* row = x.found.rows.data() + k * width;
      const uint8_t* copy = x.plain_copies.data() + (k - e.first) * plain;
      const uint32_t missing = x.packer.finish_parts(copy, row, !shared);
      for (int32_t part = 0; part < x.packer.parts(); ++part) {
        if (missing & (Packer::kMissingPlain << part)) {
          x.packer.set_part_id(row, part,
                               local_plain(x, e, part, copy + x.packer.part_offset(part)));
        }
      }
      if (x.packer.complete(row)) {  // else hashed once its local keys are replaced
        x.found.children[k].hash = store_->hash(row);
        store_->prefetch_slot(x.found.children[k].hash);
      }
    }
    if (shared) {
      // Successors stored already (the visited set shows none that thread 0 stores meanwhile)
      // whose storing would change nothing are dropped here, so that thread 0 reads fewer: a
      // store would only keep the pruning that both steps into them skip (relax_mover), and
      // that pruning can only shrink meanwhile. Storing still stops at the state limit where
      // it would have: before a dropped last one.
      size_t kept = e.first;
      for (size_t k = e.first; k < e.end; ++k) {
        uint8_t* row = x.found.rows.data() + k * width;
        Child& c = x.found.children[k];
        if (x.packer.complete(row)) c.found = store_->find(row, c.hash);
        e.dropped_last =
            c.found != kNone && (info_.at(c.found)->g != e.g + 1 || !relaxes(c.found, c.flags));
        if (e.dropped_last) continue;
        if (kept != k) {
          x.found.children[kept] = c;
          std::memcpy(x.found.rows.data() + kept * width, row, width);
        }
        ++kept;
      }
      e.end = kept;
      x.found.children.resize(kept);
      x.found.rows.resize(kept * width);
    }
    end_expansion(x, e);
  }

  // Stores what expand_bfs() found for e (`found`: what its thread found; thread 0, in batch
  // order) as BFS one state at a time stores it. Returns the goal among the new states, or
  // kNone.
  uint32_t store_bfs(const Expansion& e, const Found& found) {
    stats_.bound = e.g;
    ++stats_.expanded;
    stats_.generated += e.generated;
    stats_.pruned += e.pruned;
    const size_t width = main().packer.width();
    uint32_t goal = kNone;
    size_t k = e.first;
    for (; k < e.end && !full(); ++k) {
      const Child& c = found.children[k];
      const uint8_t bits = c.flags & kMoverMask;
      uint32_t child = c.found;
      bool fresh = false;
      if (child == kNone) {
        std::tie(child, fresh) = store_->insert(found.rows.data() + k * width, c.hash);
      }
      if (!fresh) {
        // Another step into a state of the next layer (not expanded yet).
        if (info_[child].g == e.g + 1) relax_mover(child, bits);
        continue;
      }
      parent_.push_back(e.id);
      info_.push_back({static_cast<uint16_t>(e.g + 1), StoredBound{}, bits});
      if (c.flags & kGoalFlag) goal = child;
    }
    // The one-thread search checks the limit before each successor, a dropped last one too.
    if (k == e.end && e.dropped_last) full();
    return goal;
  }

  // Interns the local keys of e's successors (expanded by several threads, in the batch's
  // order; `found`: what its thread found) and puts the tables' ids in their rows, then fetches
  // the visited-set slot of each not found yet.
  void prepare_store(const Expansion& e, Found& found) {
    intern_local_keys(e, found);
    const Packer& packer = main().packer;
    const size_t width = packer.width();
    for (size_t k = e.first; k < e.end; ++k) {
      Child& c = found.children[k];
      if (c.found != kNone) continue;
      c.hash = with_table_ids(packer, found.rows.data() + k * width, c.hash);
      store_->prefetch_slot(c.hash);
    }
    merged_ids_.clear();
    merged_plain_ids_.clear();
  }

  // The projection bound in steps. In simultaneous mode its rows count actions, of which a
  // joint step applies at most one per robot (projection.h, "Joint steps").
  int32_t projection_bound(Expander& x, const uint64_t* words, const int32_t* counters) const {
    const int32_t h = x.projection->evaluate(words, counters);
    if (h == ProjectionHeuristic::kDeadEnd || parallel_ == 1) return h;
    return (h + parallel_ - 1) / parallel_;
  }

  // max(projection bound, DelayHeuristic); DelayHeuristic::kDeadEnd when either proves it.
  int32_t evaluate(Expander& x, const uint64_t* words, const int32_t* counters) const {
    int32_t h = 0;
    if (x.projection) {
      h = projection_bound(x, words, counters);
      if (h == ProjectionHeuristic::kDeadEnd) return DelayHeuristic::kDeadEnd;
    }
    return delay_bound_ ? std::max(h, x.delay->evaluate(words, counters)) : h;
  }

  // The bound of a successor (in x's scratch). With the projection bound (a few lookups) the
  // DelayHeuristic (a relaxed-task pass, ~50x dearer) is deferred until the state is popped:
  // `pending` says so. Most generated states are never popped.
  int32_t evaluate_child(Expander& x, const uint64_t* words, const int32_t* counters,
                         bool& pending) const {
    if (!x.projection) return x.delay->evaluate(words, counters);
    const int32_t h = projection_bound(x, words, counters);
    if (h == ProjectionHeuristic::kDeadEnd) return DelayHeuristic::kDeadEnd;
    pending = delay_bound_;
    return h;
  }

  // A* layer of a state g steps deep with bound h: f = g + w * h, in units of 1 / the weight's
  // denominator (so g + h for plain A*), to keep layers integers for fractional weights.
  int32_t f_of(int32_t g, int32_t h) const {
    return options_.weight_denominator * g + options_.weight * h;
  }

  void push_open(uint32_t id, int32_t g, int32_t f) {
    if (static_cast<size_t>(f) >= open_.size()) open_.resize(static_cast<size_t>(f) + 1);
    auto& by_g = open_[f];
    if (static_cast<size_t>(g) >= by_g.size()) by_g.resize(static_cast<size_t>(g) + 1);
    by_g[g].push_back(id);
  }

  // A* pops states in batches (of one on a single thread; see search.h, "Threads"): up to
  // batch_size_ states of the current f layer, deepest first. They are expanded at once
  // (expand(), by every thread, reading the search's tables but writing only the batch), their
  // new successors bounded (bound_children(), by every thread; a twin that two expansions of
  // the batch reach, once: share_bounds()), and their successors are then stored in the
  // batch's order (merge(), on thread 0). A successor
  // is one step deeper than its parent, so a merge changes only states deeper than the one
  // merged: states of the batch merged before it, as if popped and expanded one at a time.
  // The order of the stored states, and so the whole search, depends only on the batch size,
  // never on the threads' timing.
  SearchStatus astar(uint32_t root, SearchResult& result) {
    Expander& x = main();
    const int32_t h0 = evaluate(x, x.words.data(), x.counters.data());
    stats_.initial_h = h0 == DelayHeuristic::kDeadEnd ? -1 : h0;
    if (h0 == DelayHeuristic::kDeadEnd) return SearchStatus::kUnsolvable;
    const bool weighted = options_.weight != options_.weight_denominator;
    info_[root].h = stored_h(h0);
    push_open(root, 0, f_of(0, h0));
    for (size_t layer = 0; layer < open_.size(); ++layer) {
      // A successor left out at the state limit may lie in the layer just finished (f never
      // drops below the parent's), so the bound proved stays that layer's.
      if (full_ && !weighted) return SearchStatus::kStateLimit;
      const auto f = static_cast<int32_t>(layer);
      if (!weighted) stats_.bound = f;
      for (;;) {
        // Highest g first within an f layer: deeper states are closer to a goal.
        int32_t taken = 0;
        while (taken < batch_size_) {
          auto& by_g = open_[layer];
          while (!by_g.empty() && by_g.back().empty()) by_g.pop_back();
          if (by_g.empty()) break;
          const int32_t g = static_cast<int32_t>(by_g.size()) - 1;
          const uint32_t id = by_g.back().back();
          const StateInfo& info = info_[id];
          if (info.g != g) {  // re-opened with a smaller g since
            by_g.back().pop_back();
            continue;
          }
          // A state is in the open list once per expansion it is due; never twice in a batch.
          if (std::any_of(batch_.begin(), batch_.begin() + taken,
                          [&](const Expansion& e) { return e.id == id; })) {
            break;
          }
          by_g.back().pop_back();
          // A successor left out at the state limit could have had a smaller f than this goal
          // (which only matters for an optimal plan).
          if (full_ && !weighted) return SearchStatus::kStateLimit;
          if (info.flags & kGoalFlag) {
            extract(id, result);
            return SearchStatus::kSolved;
          }
          const SearchStatus stop = check_limits();
          if (stop != SearchStatus::kSolved) return stop;
          if (static_cast<size_t>(taken) == batch_.size()) batch_.emplace_back();
          Expansion& e = batch_[taken++];
          e.id = id;
          e.g = g;
          e.flags = info.flags;
        }
        if (taken == 0) break;
        for (auto& each : expanders_) {
          each->goal.clear();
          each->child_words.clear();
          each->child_counters.clear();
          each->same_as.clear();
        }
        expand_batch(taken, [&](int32_t thread, Expansion& e) { expand(thread, e, f); });
        if (taken > 1) share_bounds(taken);
        if (pool_ && taken > 1) {
          std::atomic<int32_t> next{0};
          pool_->run(static_cast<int64_t>(expanders_.size()), [&](int64_t k, int64_t) {
            for (int32_t i; (i = next.fetch_add(1)) < taken;) {
              bound_children(*expanders_[k], batch_[i]);
            }
          });
        } else {
          for (int32_t i = 0; i < taken; ++i) bound_children(main(), batch_[i]);
        }
        if (taken > 1) take_shared_bounds();
        for (int32_t i = 0; i < taken; ++i) {
          const SearchStatus status = merge(batch_[i], f);
          if (status != SearchStatus::kSolved) return status;
        }
      }
    }
    // Successors left out at the state limit may have led to the goal.
    return full_ ? SearchStatus::kStateLimit : SearchStatus::kUnsolvable;
  }

  // Expands a popped state of layer f into e with x (any thread): reads the stored tables,
  // writes only x and e.
  void expand(int32_t thread, Expansion& e, int32_t f) const {
    Expander& x = *expanders_[thread];
    begin_expansion(x, e, thread);
    e.late = -1;
    x.packer.unpack(store_->at(e.id), x.words.data(), x.counters.data());
    if (e.flags & kPendingFlag) {
      // Deferred part of the bound (see evaluate_child): computed only for states that
      // reach the front; a larger value sends the state to its true f layer.
      e.late = x.delay->evaluate(x.words.data(), x.counters.data());
      if (e.late == DelayHeuristic::kDeadEnd) {
        e.outcome = Outcome::kDeadEnd;
        return;
      }
      const int32_t h = value(info_[e.id].h);
      if (e.late > h && f_of(e.g, value(stored_h(e.late))) > f) {
        e.outcome = Outcome::kRaised;
        return;
      }
    }
    if (e.g >= kMaxSearchDepth) {
      e.outcome = Outcome::kTooDeep;
      return;
    }
    e.outcome = Outcome::kExpanded;
    set_pruning(x, e.flags);
    const size_t width = x.packer.width();
    // Two passes. The first steps, packs and hashes every successor, keeping its full state,
    // and prefetches its visited-set slot; the second looks the successors up and leaves the
    // new ones to bound_children(). A lookup is a cache miss in a set of millions of states,
    // and the first pass gives those misses time to resolve (measured: see
    // benchmarks/README.md).
    successors(x, [&](const int32_t* groundings, int32_t n, int status) {
      ++x.generated;
      if (status & kStatusPoolExhausted) {
        ++x.pruned;
        return;
      }
      // The bound reads the successor as the step left it: symmetric states have equal
      // distances, and a successor differs from its parent and its siblings in few facts
      // while its representative may rename whole classes of objects (every fact of the
      // tables it rotates), which the bound's change tests would see.
      x.child_words.insert(x.child_words.end(), x.next_words.begin(), x.next_words.end());
      x.child_counters.insert(x.child_counters.end(), x.next_counters.begin(),
                              x.next_counters.end());
      Child child{0, kNone, -1, 0, canonical_child(x, groundings, n)};
      const size_t at = x.found.rows.size();
      x.found.rows.resize(at + width);
      uint8_t* row = x.found.rows.data() + at;
      const uint32_t missing = x.packer.pack(x.next_words.data(), x.next_counters.data(), row);
      if (missing & Packer::kMissingCounters) x.packer.set_id(row, local_counters(x, e));
      for (int32_t part = 0; part < x.packer.parts(); ++part) {
        if (missing & (Packer::kMissingPlain << part)) {
          x.packer.set_part_id(row, part, local_plain(x, e, part, x.packer.part(part)));
        }
      }
      child.hash = store_->hash(row);
      if (x.packer.complete(row)) store_->prefetch_slot(child.hash);
      x.found.children.push_back(child);
      x.goal.push_back((status & kStatusGoal) != 0);
      x.same_as.push_back(kNotBound);
    });
    e.end = x.found.children.size();
    for (size_t k = e.first; k < e.end; ++k) {
      if (x.packer.complete(x.found.rows.data() + k * width)) {
        store_->prefetch_row(x.found.children[k].hash);
      }
    }
    for (size_t k = e.first; k < e.end; ++k) {
      Child& child = x.found.children[k];
      const uint8_t* row = x.found.rows.data() + k * width;
      if (x.packer.complete(row)) child.found = store_->find(row, child.hash);
      if (child.found == kNone) {
        // A state two steps reach (symmetric moves, say) is evaluated once, as the search
        // one state at a time does.
        for (const size_t j : x.fresh) {
          if (x.found.children[j].hash == child.hash &&
              std::memcmp(x.found.rows.data() + j * width, row, width) == 0) {
            child.sibling = static_cast<int32_t>(j - e.first);
            break;
          }
        }
      }
      if (child.found == kNone && child.sibling < 0) {
        x.fresh.push_back(k);
        x.same_as[k] = kBoundHere;
      }
    }
    x.fresh.clear();
    end_expansion(x, e);
  }

  // Bounds the new successors of expansion e (those expand() left to bound, but for those that
  // take an earlier one's bound: share_bounds()) with `with`'s bounds, in the order found. Any
  // thread may bound any expansion: it reads the expanding thread's successors and writes only
  // their bounds and its own scratch.
  void bound_children(Expander& with, const Expansion& e) const {
    Expander& x = *expanders_[e.by];
    const size_t num_words = x.words.size(), num_counters = x.counters.size();
    for (size_t k = e.first; k < e.end; ++k) {
      if (x.same_as[k] != kBoundHere) continue;
      Child& child = x.found.children[k];
      const bool goal = x.goal[k] != 0;
      bool pending = false;
      child.h = goal ? 0
                     : evaluate_child(with, x.child_words.data() + k * num_words,
                                      x.child_counters.data() + k * num_counters, pending);
      child.flags |= static_cast<uint8_t>((goal ? kGoalFlag : 0) | (pending ? kPendingFlag : 0));
    }
  }

  // Within a batch, two expansions may reach one new state (on two robots, steps taken in
  // either order), which neither finds stored yet: the later one would be bounded for nothing,
  // since merge() then finds the earlier one stored. Marks each such later successor (same_as)
  // to take the earlier one's bound, so that it is bounded once, as without batches. Only rows
  // with the tables' ids are compared (local keys name different values in two expansions).
  // Thread 0, between expand() and bound_children().
  void share_bounds(int32_t taken) {
    size_t children = 0;
    for (const auto& x : expanders_) children += x->same_as.size();
    // Open addressing, at most half full: each slot holds a successor (thread << 32 | index).
    seen_.assign(std::bit_ceil(2 * children + 2), -1);
    const size_t mask = seen_.size() - 1;
    for (int32_t i = 0; i < taken; ++i) {
      const Expansion& e = batch_[i];
      Expander& x = *expanders_[e.by];
      const size_t width = x.packer.width();
      for (size_t k = e.first; k < e.end; ++k) {
        if (x.same_as[k] != kBoundHere) continue;
        const uint8_t* row = x.found.rows.data() + k * width;
        if (!x.packer.complete(row)) continue;
        const uint64_t hash = x.found.children[k].hash;
        for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
          const int64_t seen = seen_[slot];
          if (seen < 0) {
            seen_[slot] = (int64_t{e.by} << 32) | static_cast<int64_t>(k);
            break;
          }
          const Expander& y = *expanders_[static_cast<size_t>(seen >> 32)];
          const auto j = static_cast<size_t>(seen & 0xFFFFFFFF);
          if (y.found.children[j].hash == hash &&
              std::memcmp(y.found.rows.data() + j * width, row, width) == 0) {
            x.same_as[k] = seen;
            break;
          }
        }
      }
    }
  }

  // Gives each successor share_bounds() marked its earlier twin's bound (after bound_children).
  void take_shared_bounds() {
    for (auto& x : expanders_) {
      for (size_t k = 0; k < x->same_as.size(); ++k) {
        const int64_t twin = x->same_as[k];
        if (twin < 0) continue;
        const Expander& y = *expanders_[static_cast<size_t>(twin >> 32)];
        const Child& source = y.found.children[static_cast<size_t>(twin & 0xFFFFFFFF)];
        Child& child = x->found.children[k];
        child.h = source.h;
        child.flags |= static_cast<uint8_t>(source.flags & (kGoalFlag | kPendingFlag));
      }
    }
  }

  // Where e's successors and local keys begin among those of x, which expands it now; and
  // where they end, once it has.
  static void begin_expansion(const Expander& x, Expansion& e, int32_t thread) {
    e.by = thread;
    e.first = e.end = x.found.children.size();
    e.first_key = x.found.keys.size();
    e.first_plain = x.found.plain_keys.size();
  }
  static void end_expansion(const Expander& x, Expansion& e) {
    e.end_key = x.found.keys.size();
    e.end_plain = x.found.plain_keys.size();
  }

  // The local key of the counters x packed last, which the table lacks: the same for equal
  // counters among e's successors.
  static uint32_t local_counters(Expander& x, const Expansion& e) {
    std::vector<IntVec>& keys = x.found.keys;
    const auto mine = keys.begin() + static_cast<ptrdiff_t>(e.first_key);
    const auto local = static_cast<uint32_t>(std::find(mine, keys.end(), x.packer.key()) - mine);
    if (mine + local == keys.end()) keys.push_back(x.packer.key());
    return kLocalKey + local;
  }

  // The local key of `value`, part `part` of the plain facts of a successor x packed, which
  // its table lacks: the same for an equal part among e's successors.
  static uint32_t local_plain(Expander& x, const Expansion& e, int32_t part,
                              const uint8_t* value) {
    const size_t bytes = x.packer.part_bytes(part);
    for (size_t k = e.first_plain; k < x.found.plain_keys.size(); ++k) {
      const auto& [other, at] = x.found.plain_keys[k];
      if (other == part && std::memcmp(x.found.plain_data.data() + at, value, bytes) == 0) {
        return kLocalKey + static_cast<uint32_t>(k - e.first_plain);
      }
    }
    x.found.plain_keys.emplace_back(part, x.found.plain_data.size());
    x.found.plain_data.insert(x.found.plain_data.end(), value, value + bytes);
    return kLocalKey + static_cast<uint32_t>(x.found.plain_keys.size() - 1 - e.first_plain);
  }

  // Stores what expand() found for e (thread 0, in batch order): the state's deferred bound,
  // then each successor as A* would have stored it. kSolved: go on; otherwise why to stop.
  SearchStatus merge(Expansion& e, int32_t f) {
    // Stored states never move (BlockArray), so the reference outlives the appends below.
    StateInfo& info = info_[e.id];
    if (e.flags & kPendingFlag) {
      info.flags &= ~kPendingFlag;
      if (e.outcome == Outcome::kDeadEnd) {
        info.h = StoredBound::kDead;
        ++stats_.pruned;
        return SearchStatus::kSolved;
      }
      if (e.late > value(info.h)) info.h = stored_h(e.late);
      if (e.outcome == Outcome::kRaised) {
        push_open(e.id, e.g, f_of(e.g, value(info.h)));
        return SearchStatus::kSolved;
      }
    }
    if (e.outcome == Outcome::kTooDeep) return SearchStatus::kDepthLimit;
    ++stats_.expanded;
    // A second expansion after relax_mover generated only what the first one skipped.
    if (info.flags & kRestFlag) info.flags &= static_cast<uint8_t>(~(kMoverMask | kRestFlag));
    info.flags |= kExpandedFlag;
    Expander& x = *expanders_[e.by];
    intern_local_keys(e, x.found);
    const size_t width = x.packer.width();
    const Packer& packer = x.packer;
    const auto child_g = static_cast<uint16_t>(e.g + 1);
    // Partial expansion: new successors above this layer are left out; the state is expanded
    // again at `due`, the layer from which the first of them is stored.
    const int32_t most_f = partial_ ? f + options_.partial_slack : INT32_MAX;
    int32_t due = INT32_MAX;
    child_ids_.clear();
    for (size_t k = 0; k < e.end - e.first; ++k) {
      const Child& child = x.found.children[e.first + k];
      child_ids_.push_back(kNone);
      if (full()) continue;
      const bool dead = child.h == DelayHeuristic::kDeadEnd;
      // Pathmax: a child's f never drops below its parent's (h may be inconsistent), so it is
      // never pushed below the layer being expanded.
      const int32_t child_f = dead ? 0 : std::max(f_of(child_g, child.h), f);
      uint32_t id = child.found;
      bool fresh = false;
      if (child.sibling >= 0) {
        id = child_ids_[child.sibling];
      } else if (id == kNone) {
        uint8_t* row = x.found.rows.data() + (e.first + k) * width;
        const uint64_t hash = with_table_ids(packer, row, child.hash);
        if (child_f <= most_f) {
          std::tie(id, fresh) = store_->insert(row, hash);
        } else if ((id = store_->find(row, hash)) == kNone) {
          due = std::min(due, child_f - options_.partial_slack);
          continue;
        }
      }
      child_ids_[k] = id;
      if (id == kNone) continue;
      if (fresh) {
        parent_.push_back(e.id);
        info_.push_back({child_g, dead ? StoredBound::kDead : stored_h(child.h), child.flags});
        if (dead) {
          ++stats_.pruned;
          continue;
        }
        push_open(id, child_g, child_f);
        continue;
      }
      StateInfo& known = info_[id];
      if (known.h == StoredBound::kDead || child_g > known.g) continue;
      const int32_t known_f = std::max(f_of(child_g, value(known.h)), f);
      const uint8_t bits = child.flags & kMoverMask;
      if (child_g < known.g) {
        parent_[id] = e.id;
        known.g = child_g;
        // The pruning below this state follows its (new) parent step.
        known.flags = static_cast<uint8_t>(
            (known.flags & ~(kMoverMask | kExpandedFlag | kRestFlag)) | bits);
        push_open(id, child_g, known_f);
      } else {
        const uint8_t before = known.flags;
        if (relax_mover(id, bits) && (before & kExpandedFlag)) {
          // Expanded with a pruning that this equally short step does not ask for: once
          // more, for the skipped successors only. Whole under partial expansion: successors
          // an expansion left out may be among the others, and it is due again for them.
          known.flags = static_cast<uint8_t>(partial_ ? before & ~(kExpandedFlag | kMoverMask)
                                                      : (before & ~kExpandedFlag) | kRestFlag);
          push_open(id, child_g, known_f);
        }
      }
    }
    if (due != INT32_MAX) {
      push_open(e.id, e.g, due);
      ++stats_.deferred;
    }
    merged_ids_.clear();
    merged_plain_ids_.clear();
    return SearchStatus::kSolved;
  }

  // Interns e's local keys (what the tables lacked when it was expanded; in `found`, what its
  // thread found), in the order they were made: merged_ids_ and merged_plain_ids_ then hold
  // the tables' id of each.
  void intern_local_keys(const Expansion& e, const Found& found) {
    for (size_t k = e.first_key; k < e.end_key; ++k) {
      merged_ids_.push_back(static_cast<int32_t>(table_.intern(found.keys[k])));
    }
    for (size_t k = e.first_plain; k < e.end_plain; ++k) {
      const auto& [part, at] = found.plain_keys[k];
      merged_plain_ids_.push_back(
          static_cast<int32_t>(main().packer.intern_part(part, found.plain_data.data() + at)));
    }
  }

  // Replaces the local keys in a successor's row by the tables' ids (intern_local_keys() has
  // run for its expansion); returns the row's hash, `hash` where it had none.
  uint64_t with_table_ids(const Packer& packer, uint8_t* row, uint64_t hash) const {
    if (packer.complete(row)) return hash;
    const uint32_t config = packer.id(row);
    if (config >= kLocalKey) {
      packer.set_id(row, static_cast<uint32_t>(merged_ids_[config - kLocalKey]));
    }
    for (int32_t part = 0; part < packer.parts(); ++part) {
      const uint32_t local = packer.part_id(row, part);
      if (local >= kLocalKey) {
        packer.set_part_id(row, part, static_cast<uint32_t>(merged_plain_ids_[local - kLocalKey]));
      }
    }
    return store_->hash(row);
  }

  const Task& task_;
  const SearchOptions& options_;
  CounterTable table_;
  std::unique_ptr<StateStore> store_;
  // Per thread; expanders_[0] is the calling thread's.
  std::vector<std::unique_ptr<Expander>> expanders_;
  std::unique_ptr<ThreadPool> pool_;  // null on one thread
  int32_t batch_size_ = 1;
  std::vector<Expansion> batch_;
  // BFS: the batch whose successors are stored next, and what each thread found for it.
  std::vector<Expansion> held_batch_;
  std::vector<Found> held_;
  std::vector<uint32_t> child_ids_;  // merge() scratch: the stored id of each successor
  IntVec merged_ids_;                // ... and the table's id of each local key
  IntVec merged_plain_ids_;          // ... and of each local key of plain facts
  // Expander::same_as of a successor bounded itself, and of one not bounded (found stored, or
  // a sibling's twin).
  static constexpr int64_t kBoundHere = -1, kNotBound = -2;
  std::vector<int64_t> seen_;  // share_bounds() scratch: the batch's new successors by hash
  bool delay_bound_ = true;  // whether the DelayHeuristic is part of the bound
  int32_t parallel_ = 1;      // actions per step: the robots in simultaneous mode, else 1
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
  std::unique_ptr<const EffectOrder> effect_order_;  // null where no two templates commute
  IntVec relocated_;    // per grounding: the robot it relocates, or -1 (empty: no pruning)
  std::vector<uint8_t> no_op_;  // per grounding: it has no effects (such as a wait)
  IntVec commuting_;    // per grounding: the robot whose moves it skips, or -1 (empty: none)
  IntVec robot_code_;   // per object: its mover code (1, 2, ...), or 0
  IntVec code_robot_;   // per mover code: the robot (code 0: -1)
  std::vector<std::vector<std::vector<uint32_t>>> open_;  // [f][g] -> ids
  SearchStats stats_;  // what thread 0 counts (the expanders count generated and pruned)
  int32_t since_check_ = 0;
  bool full_ = false;
  bool cancelled_ = false;  // the poll asked to stop while the projections were built
  // Partial expansion (search.h): from when (bytes of the search's tables; -1 never), and
  // whether it has begun.
  int64_t partial_from_ = -1;
  bool partial_ = false;
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
  DelayHeuristic h(task, actions_per_step(options), options.lmcut);
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

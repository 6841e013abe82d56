/*
 * IdIndex: a hash set of dense ids (0, 1, 2, ... in insertion order) whose keys live elsewhere:
 * the search's packed state rows (search.cc), a projection's abstract state keys
 * (projection.cc). Open addressing with linear probing; each 64-bit slot holds the key's 32-bit
 * hash above its id, so a probe compares keys only when the hashes agree, and growing the table
 * moves slots without reading a key.
 *
 * CompactIdIndex (below) does the same in 4-byte slots for the search's visited set: it keeps a
 * tag of the hash instead of all of it, and hashes the keys again when it grows.
 *
 * Invariants: ids are below 0xFFFFFFFF (that value marks an empty slot); the caller inserts ids
 * in order, one past the last, and keeps every inserted key readable for `equal` (and, for
 * CompactIdIndex, for `hash_of`). Internal to the core library (projection.h keeps one per role
 * group); header-only.
 *
 * Concurrency: find() only reads. It may run on other threads while one thread inserts, if
 * reserve() made room for those inserts first (no growth in between) and the readers' `equal`
 * rejects ids inserted meanwhile without reading their keys (the key may not be written yet):
 * slots are read and written whole (relaxed atomics), and a key inserted before the readers
 * started is found, since the slots on its probe path were filled before it.
 */
#ifndef ROBOTOUILLE_ID_INDEX_H_
#define ROBOTOUILLE_ID_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <utility>
#include <vector>

namespace robotouille {

// A 64-bit hash of n bytes (multiply-xorshift over 8-byte words).
inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x243F6A8885A308D3ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p + i, n - i);
  h = (h ^ tail) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBULL;
  return h ^ (h >> 29);
}

// A slot read or written whole while other threads may read it (see "Concurrency" above); on
// the machines we build for, as cheap as a plain load or store.
template <typename T>
T load_slot(const T& slot) {
  return std::atomic_ref<T>(const_cast<T&>(slot)).load(std::memory_order_relaxed);
}
template <typename T>
void store_slot(T& slot, T value) {
  std::atomic_ref<T>(slot).store(value, std::memory_order_relaxed);
}

class IdIndex {
 public:
  explicit IdIndex(size_t initial_slots = 1 << 10) {
    size_t slots = 16;
    while (slots < initial_slots) slots *= 2;
    slots_.assign(slots, kEmpty);
  }

  // The id of the key with this hash that `equal(id)` accepts; otherwise records `next_id` (the
  // number of ids so far) for it. Returns (id, inserted).
  template <typename Equal>
  std::pair<uint32_t, bool> find_or_insert(uint32_t hash, uint32_t next_id, Equal&& equal) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
      const uint64_t slot = slots_[i];
      if (slot == kEmpty) {
        store_slot(slots_[i], (uint64_t{hash} << 32) | next_id);
        ++size_;
        return {next_id, true};
      }
      const auto id = static_cast<uint32_t>(slot);
      if ((slot >> 32) == hash && equal(id)) return {id, false};
    }
  }

  // The id of the key with this hash that `equal(id)` accepts, or kNotFound. Only reads, so
  // several threads may call it at once while nobody inserts.
  template <typename Equal>
  uint32_t find(uint32_t hash, Equal&& equal) const {
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
      const uint64_t slot = load_slot(slots_[i]);
      if (slot == kEmpty) return kNotFound;
      const auto id = static_cast<uint32_t>(slot);
      if ((slot >> 32) == hash && equal(id)) return id;
    }
  }

  static constexpr uint32_t kNotFound = 0xFFFFFFFFu;

  // Grows now, if need be, so that `ids` ids in all fit without growing.
  void reserve(size_t ids) {
    while ((ids + 1) * 10 > slots_.size() * 7) grow();
  }

  // A hint that a lookup of this hash follows: its first slot is fetched meanwhile. (A growth
  // in between only wastes the fetch.)
  void prefetch(uint32_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

  size_t size() const { return size_; }
  void clear() {
    std::fill(slots_.begin(), slots_.end(), kEmpty);
    size_ = 0;
  }
  int64_t bytes() const { return static_cast<int64_t>(slots_.capacity() * sizeof(uint64_t)); }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  void grow() {
    std::vector<uint64_t> old(slots_.size() * 2, kEmpty);
    old.swap(slots_);
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t slot : old) {
      if (slot == kEmpty) continue;
      uint64_t i = (slot >> 32) & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  size_t size_ = 0;
  std::vector<uint64_t> slots_;
};

// The search's visited set: an IdIndex with 32-bit slots for indexes that hold tens of millions
// of ids. A table of 2^b slots holds ids below 2^b (it grows at 70% full, so every id fits in
// b bits, and no id is all ones there); the slot's other 32 - b bits are the top bits of the
// key's 64-bit hash (a tag), so a probe reads a key only on a tag match (1 in 2^(32-b) for
// another key: 1 in 256 at 16M slots). Growing cannot keep tags (they lose a bit), so it asks
// `hash_of(id)` again for every id. Half the bytes of IdIndex per id; up to 2^32 slots.
class CompactIdIndex {
 public:
  explicit CompactIdIndex(size_t initial_slots = 1 << 10) {
    slots_.assign(std::bit_ceil(std::max<size_t>(initial_slots, 16)), kEmpty);
    id_bits_ = std::countr_zero(slots_.size());
  }

  // As IdIndex::find_or_insert, with the key's full 64-bit hash; `hash_of(id)` gives the hash
  // of a stored key again when the table grows. Throws std::length_error past 2^32 slots.
  template <typename Equal, typename HashOf>
  std::pair<uint32_t, bool> find_or_insert(uint64_t hash, uint32_t next_id, Equal&& equal,
                                           HashOf&& hash_of) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow(hash_of);
    const uint64_t mask = slots_.size() - 1;
    const uint32_t tag = tag_of(hash);
    for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots_[i];
      if (slot == kEmpty) {
        store_slot(slots_[i], tag | next_id);
        ++size_;
        return {next_id, true};
      }
      const uint32_t id = slot & static_cast<uint32_t>(mask);
      if ((slot & ~static_cast<uint32_t>(mask)) == tag && equal(id)) return {id, false};
    }
  }

  // As IdIndex::find: the id, or kNotFound; only reads.
  template <typename Equal>
  uint32_t find(uint64_t hash, Equal&& equal) const {
    const uint64_t mask = slots_.size() - 1;
    const uint32_t tag = tag_of(hash);
    for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
      const uint32_t slot = load_slot(slots_[i]);
      if (slot == kEmpty) return kNotFound;
      const uint32_t id = slot & static_cast<uint32_t>(mask);
      if ((slot & ~static_cast<uint32_t>(mask)) == tag && equal(id)) return id;
    }
  }

  // Grows now, if need be, so that `ids` ids in all fit without growing (`hash_of` as for
  // find_or_insert).
  template <typename HashOf>
  void reserve(size_t ids, HashOf&& hash_of) {
    while ((ids + 1) * 10 > slots_.size() * 7) grow(hash_of);
  }

  // Starts loading the slot where find(hash, ...) begins (a later find then seldom waits).
  void prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

  static constexpr uint32_t kNotFound = 0xFFFFFFFFu;

  size_t size() const { return size_; }
  int64_t bytes() const { return static_cast<int64_t>(slots_.capacity() * sizeof(uint32_t)); }

 private:
  static constexpr uint32_t kEmpty = ~uint32_t{0};

  // The hash's top 32 - id_bits_ bits, placed above the id bits (none at 2^32 slots).
  uint32_t tag_of(uint64_t hash) const {
    if (id_bits_ >= 32) return 0;
    return static_cast<uint32_t>(hash >> (32 + id_bits_)) << id_bits_;
  }

  template <typename HashOf>
  void grow(HashOf&& hash_of) {
    if (id_bits_ >= 32) throw std::length_error("visited set: more than 2^32 slots");
    const size_t slots = slots_.size() * 2;
    slots_ = std::vector<uint32_t>();  // freed first: the ids, not the old slots, are re-read
    slots_.assign(slots, kEmpty);
    id_bits_ += 1;
    const uint64_t mask = slots - 1;
    // Ids in insertion order land at random slots: hash a batch ahead and prefetch its slots,
    // so the cache misses overlap instead of each stalling (3x faster at millions of ids).
    constexpr size_t kBatch = 32;
    uint64_t hashes[kBatch];
    for (size_t first = 0; first < size_; first += kBatch) {
      const size_t n = std::min(kBatch, size_ - first);
      for (size_t k = 0; k < n; ++k) {
        hashes[k] = hash_of(static_cast<uint32_t>(first + k));
        __builtin_prefetch(&slots_[hashes[k] & mask], 1);
      }
      for (size_t k = 0; k < n; ++k) {
        uint64_t i = hashes[k] & mask;
        while (slots_[i] != kEmpty) i = (i + 1) & mask;
        slots_[i] = tag_of(hashes[k]) | static_cast<uint32_t>(first + k);
      }
    }
  }

  size_t size_ = 0;
  int id_bits_ = 0;
  std::vector<uint32_t> slots_;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_ID_INDEX_H_

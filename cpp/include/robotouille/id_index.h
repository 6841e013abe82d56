/*
 * IdIndex: a hash set of dense ids (0, 1, 2, ... in insertion order) whose keys live elsewhere:
 * the search's packed state rows (search.cc), a projection's abstract state keys
 * (projection.cc). Open addressing with linear probing; each 64-bit slot holds the key's 32-bit
 * hash above its id, so a probe compares keys only when the hashes agree, and growing the table
 * moves slots without reading a key.
 *
 * Invariants: ids are below 0xFFFFFFFF (that value marks an empty slot); the caller inserts ids
 * in order, one past the last, and keeps every inserted key readable for `equal`.
 * Internal to the core library (projection.h keeps one per role group); header-only.
 */
#ifndef ROBOTOUILLE_ID_INDEX_H_
#define ROBOTOUILLE_ID_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
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
        slots_[i] = (uint64_t{hash} << 32) | next_id;
        ++size_;
        return {next_id, true};
      }
      const auto id = static_cast<uint32_t>(slot);
      if ((slot >> 32) == hash && equal(id)) return {id, false};
    }
  }

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

}  // namespace robotouille

#endif  // ROBOTOUILLE_ID_INDEX_H_

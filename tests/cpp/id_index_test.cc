// Unit tests of the hash sets of dense ids (id_index.h): IdIndex (projection keys, counter
// configurations) and CompactIdIndex (the search's visited set), against std::map.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "robotouille/id_index.h"

namespace robotouille::testing {
namespace {

uint64_t hash_key(uint64_t key) {
  return hash_bytes(reinterpret_cast<const uint8_t*>(&key), sizeof(key));
}

// Inserts `draws` keys drawn from [0, distinct) through `find_or_insert(key, keys)` and checks
// each answer against a map: a known key gets its first id back, a new one the next id.
template <typename FindOrInsert>
void check_against_map(uint64_t distinct, int draws, FindOrInsert&& find_or_insert) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> keys;
  std::map<uint64_t, uint32_t> expected;
  for (int n = 0; n < draws; ++n) {
    const uint64_t key = rng() % distinct;
    const auto [id, inserted] = find_or_insert(key, keys);
    const auto known = expected.find(key);
    if (known == expected.end()) {
      ASSERT_TRUE(inserted) << "key " << key;
      ASSERT_EQ(id, keys.size());
      expected.emplace(key, id);
      keys.push_back(key);
    } else {
      ASSERT_FALSE(inserted) << "key " << key;
      ASSERT_EQ(id, known->second);
    }
  }
  EXPECT_GT(keys.size(), distinct / 2);  // many growths: the table started at 16 slots
}

TEST(IdIndexTest, FindsEveryKeyAgainAcrossGrowth) {
  IdIndex index(16);
  check_against_map(300'000, 600'000, [&](uint64_t key, const std::vector<uint64_t>& keys) {
    return index.find_or_insert(static_cast<uint32_t>(hash_key(key)),
                                static_cast<uint32_t>(keys.size()),
                                [&](uint32_t id) { return keys[id] == key; });
  });
  EXPECT_GE(index.bytes(), static_cast<int64_t>(index.size() * 8));
}

TEST(CompactIdIndexTest, FindsEveryKeyAgainAcrossGrowth) {
  CompactIdIndex index(16);
  int64_t rehashed = 0;
  check_against_map(300'000, 600'000, [&](uint64_t key, const std::vector<uint64_t>& keys) {
    return index.find_or_insert(
        hash_key(key), static_cast<uint32_t>(keys.size()),
        [&](uint32_t id) { return keys[id] == key; },
        [&](uint32_t id) {
          ++rehashed;
          return hash_key(keys[id]);
        });
  });
  // Each growth hashes every key stored so far again: from 16 slots to 2^19, 15 growths.
  EXPECT_GT(rehashed, static_cast<int64_t>(index.size()));
  // Four bytes a slot, at most 2 / 0.7 slots a key after a growth.
  EXPECT_LE(index.bytes(), static_cast<int64_t>(index.size() * 4 * 3));
}

TEST(CompactIdIndexTest, KeysWithEqualHashesAreToldApartByTheirKeys) {
  // Every key hashes alike (same home slot, same tag): only `equal` separates them.
  CompactIdIndex index(16);
  check_against_map(500, 3'000, [&](uint64_t key, const std::vector<uint64_t>& keys) {
    return index.find_or_insert(
        0xABCDEF0123456789ULL, static_cast<uint32_t>(keys.size()),
        [&](uint32_t id) { return keys[id] == key; },
        [](uint32_t) { return 0xABCDEF0123456789ULL; });
  });
}

TEST(CompactIdIndexTest, KeysThatShareAHomeSlotKeepTheirOwnTags) {
  // Hashes that agree in their low bits (one home slot) and differ in their top bits (tags):
  // `equal` is asked only on a tag match, so for a new key it is never asked.
  CompactIdIndex index(1 << 10);
  std::vector<uint64_t> hashes;
  int64_t compared = 0;
  for (uint64_t n = 0; n < 200; ++n) {
    const uint64_t hash = (n << 54) | 5;
    const auto [id, inserted] = index.find_or_insert(
        hash, static_cast<uint32_t>(hashes.size()),
        [&](uint32_t other) {
          ++compared;
          return hashes[other] == hash;
        },
        [&](uint32_t other) { return hashes[other]; });
    ASSERT_TRUE(inserted);
    ASSERT_EQ(id, n);
    hashes.push_back(hash);
  }
  EXPECT_EQ(compared, 0);
}

// One thread inserts into the room reserve() made while others find: they find every key
// inserted before with its id, and none inserted meanwhile (their `equal` rejects those ids
// unread, as the search's does); nothing grows; afterwards every key is there.
template <typename Index, typename Reserve, typename FindOrInsert, typename Find>
void check_reads_beside_one_writer(Index& index, Reserve&& reserve, FindOrInsert&& find_or_insert,
                                   Find&& find) {
  constexpr uint32_t kBefore = 200'000, kDuring = 100'000;
  for (uint32_t k = 0; k < kBefore; ++k) ASSERT_EQ(find_or_insert(k), std::make_pair(k, true));
  reserve(kBefore + kDuring);
  const int64_t bytes = index.bytes();
  std::atomic<bool> writing{true};
  std::atomic<int64_t> wrong{0}, rounds{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      do {
        for (uint32_t k = r; k < kBefore + kDuring; k += 3) {
          const uint32_t id = find(k, kBefore);
          const uint32_t expected = k < kBefore ? k : Index::kNotFound;
          if (id != expected) wrong.fetch_add(1);
        }
        rounds.fetch_add(1);
      } while (writing.load());
    });
  }
  for (uint32_t k = kBefore; k < kBefore + kDuring; ++k) {
    ASSERT_EQ(find_or_insert(k), std::make_pair(k, true));
  }
  writing.store(false);
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(rounds.load(), 3);
  EXPECT_EQ(index.bytes(), bytes);
  for (uint32_t k = 0; k < kBefore + kDuring; ++k) ASSERT_EQ(find(k, kBefore + kDuring), k);
}

TEST(IdIndexTest, ReadsBesideOneWriterInReservedRoom) {
  IdIndex index(16);
  const auto hash = [](uint32_t key) { return static_cast<uint32_t>(hash_key(key)); };
  check_reads_beside_one_writer(
      index, [&](size_t ids) { index.reserve(ids); },
      [&](uint32_t key) {
        return index.find_or_insert(hash(key), key, [&](uint32_t id) { return id == key; });
      },
      [&](uint32_t key, uint32_t visible) {
        return index.find(hash(key), [&](uint32_t id) { return id < visible && id == key; });
      });
}

TEST(CompactIdIndexTest, ReadsBesideOneWriterInReservedRoom) {
  CompactIdIndex index(16);
  check_reads_beside_one_writer(
      index, [&](size_t ids) { index.reserve(ids, [](uint32_t id) { return hash_key(id); }); },
      [&](uint32_t key) {
        return index.find_or_insert(
            hash_key(key), key, [&](uint32_t id) { return id == key; },
            [](uint32_t id) { return hash_key(id); });
      },
      [&](uint32_t key, uint32_t visible) {
        return index.find(hash_key(key), [&](uint32_t id) { return id < visible && id == key; });
      });
}

}  // namespace
}  // namespace robotouille::testing

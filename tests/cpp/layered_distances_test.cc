// Unit tests of layered_distances (cpp/src/layered_distances.h): on random graphs with edge
// costs 0, 1 and 2 and random seeds per column, every column's distances equal those of a
// plain Bellman-Ford relaxation run for that column alone.
#include "layered_distances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace robotouille::testing {
namespace {

constexpr uint16_t kNone = 0xFFFF;

struct Graph {
  std::vector<int32_t> from, to;
  std::vector<uint8_t> cost;
};

// Per state, its least seed distance plus path cost to a seed, by relaxing every edge until
// nothing changes; kNone where no seed is reachable.
std::vector<uint16_t> bellman_ford(const Graph& g, size_t count,
                                   const std::vector<std::pair<int32_t, uint16_t>>& seeds) {
  std::vector<uint16_t> dist(count, kNone);
  for (const auto& [state, d] : seeds) dist[state] = std::min(dist[state], d);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t e = 0; e < g.from.size(); ++e) {
      if (dist[g.to[e]] == kNone) continue;
      const auto d = static_cast<uint16_t>(dist[g.to[e]] + g.cost[e]);
      if (d < dist[g.from[e]]) {
        dist[g.from[e]] = d;
        changed = true;
      }
    }
  }
  return dist;
}

TEST(LayeredDistances, AgreeWithBellmanFordPerColumn) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t count = 1 + rng() % 40;
    const size_t columns = 1 + rng() % 64;
    Graph g;
    const size_t edges = rng() % (4 * count);
    for (size_t e = 0; e < edges; ++e) {
      g.from.push_back(static_cast<int32_t>(rng() % count));
      g.to.push_back(static_cast<int32_t>(rng() % count));
      g.cost.push_back(static_cast<uint8_t>(rng() % 3));
    }
    // Reverse edges: per target, the sources and costs (CSR).
    std::vector<int32_t> begin(count + 1, 0), source(edges);
    std::vector<uint8_t> cost(edges);
    for (int32_t t : g.to) ++begin[t + 1];
    for (size_t i = 0; i < count; ++i) begin[i + 1] += begin[i];
    std::vector<int32_t> fill(begin.begin(), begin.end() - 1);
    for (size_t e = 0; e < edges; ++e) {
      const int32_t r = fill[g.to[e]]++;
      source[r] = g.from[e];
      cost[r] = g.cost[e];
    }
    // Seeds: a few states per column, each at a distance of its own (a state may be seeded
    // twice in one column).
    LayeredSeeds seeds;
    std::vector<std::vector<std::pair<int32_t, uint16_t>>> column_seeds(columns);
    for (size_t c = 0; c < columns; ++c) {
      const size_t n = rng() % 4;
      for (size_t k = 0; k < n; ++k) {
        const auto state = static_cast<int32_t>(rng() % count);
        const auto d = static_cast<uint16_t>(rng() % 5);
        column_seeds[c].emplace_back(state, d);
        add_seed(seeds, state, uint64_t{1} << c, d);
      }
    }
    std::vector<uint16_t> got(count * columns, kNone);
    std::vector<int> settled_times(count * columns, 0);
    ASSERT_TRUE(layered_distances(count, begin, source, cost, seeds, 1000, {},
                                  [&](int32_t v, uint64_t bits, uint16_t d) {
                                    for (; bits != 0; bits &= bits - 1) {
                                      const size_t c = std::countr_zero(bits);
                                      got[v * columns + c] = d;
                                      ++settled_times[v * columns + c];
                                    }
                                  }));
    for (size_t c = 0; c < columns; ++c) {
      const std::vector<uint16_t> want = bellman_ford(g, count, column_seeds[c]);
      for (size_t v = 0; v < count; ++v) {
        ASSERT_EQ(got[v * columns + c], want[v]) << "trial " << trial << " column " << c;
        ASSERT_LE(settled_times[v * columns + c], 1);
      }
    }
  }
}

TEST(LayeredDistances, StopsWhenAsked) {
  LayeredSeeds seeds;
  add_seed(seeds, 0, 1, 0);
  const std::vector<int32_t> begin{0, 0};
  EXPECT_FALSE(layered_distances(1, begin, {}, {}, seeds, 1000, [] { return true; },
                                 [](int32_t, uint64_t, uint16_t) {}));
}

}  // namespace
}  // namespace robotouille::testing

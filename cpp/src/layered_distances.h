/*
 * Layered shortest distances for the projection bound's tables (projection.cc): backwards over
 * an abstract graph's edges of small costs, from seed states, for up to 64 columns (goal sets)
 * at once. Dial's algorithm by distance layers, with a bit per column: a state's reverse
 * edges are read once per distance at which some of its columns settle.
 *
 * Invariants: a column of a state is settled once, at its least distance (layers run in order
 * and each layer closes over edges of cost 0 before the next starts). The caller owns every
 * array; `seeds` is consumed (it doubles as the queue of later layers).
 * Internal to the core library; header-only.
 */
#ifndef ROBOTOUILLE_SRC_LAYERED_DISTANCES_H_
#define ROBOTOUILLE_SRC_LAYERED_DISTANCES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace robotouille {

// Seeds of layered_distances: per distance d, (state, columns starting at d) pairs.
using LayeredSeeds = std::vector<std::vector<std::pair<int32_t, uint64_t>>>;

// Adds a seed; seeds of one state at one distance, added one after another, share an entry.
inline void add_seed(LayeredSeeds& seeds, int32_t state, uint64_t columns, size_t d) {
  if (seeds.size() <= d) seeds.resize(d + 1);
  auto& at = seeds[d];
  if (at.empty() || at.back().first != state) at.emplace_back(state, 0);
  at.back().second |= columns;
}

// Shortest distances backwards over edges of small costs (0, 1 or 2 in the projections; the
// reverse edges of each state, CSR), for up to 64 columns at once: `settle(state, columns, d)`
// receives each state's columns as their distance d becomes final (d capped at `cap`: a never
// seen longer distance is underestimated, not lost). Dial's algorithm, layer by layer: a
// state's reverse edges are read once per distance at which some of its columns settle, not
// once per column (the columns of a projection mostly agree: its key combinations differ in
// few goal states). `seeds` becomes the queue of later layers. False when `stop` interrupts.
template <typename Settle>
bool layered_distances(size_t count, const std::vector<int32_t>& reverse_begin,
                       const std::vector<int32_t>& reverse_source,
                       const std::vector<uint8_t>& reverse_cost, LayeredSeeds& seeds,
                       uint16_t cap, const std::function<bool()>& stop, const Settle& settle) {
  // Per state: columns settled, and those settled in this layer but not yet expanded.
  std::vector<uint64_t> settled(count, 0), fresh(count, 0);
  std::vector<int32_t> layer;
  auto reach = [&](int32_t u, uint64_t columns) {  // at the current layer's distance
    const uint64_t add = columns & ~settled[u];
    if (add == 0) return;
    settled[u] |= add;
    if (fresh[u] == 0) layer.push_back(u);
    fresh[u] |= add;
  };
  for (size_t d = 0; d < seeds.size(); ++d) {
    if (stop && stop()) return false;
    layer.clear();
    for (const auto& [u, columns] : seeds[d]) reach(u, columns);
    seeds[d] = {};
    const auto value = static_cast<uint16_t>(std::min<size_t>(d, cap));
    for (size_t j = 0; j < layer.size(); ++j) {  // grows along edges of cost 0
      const int32_t v = layer[j];
      const uint64_t columns = fresh[v];
      fresh[v] = 0;
      if (columns == 0) continue;
      settle(v, columns, value);
      for (int32_t r = reverse_begin[v]; r < reverse_begin[v + 1]; ++r) {
        const int32_t u = reverse_source[r];
        if (reverse_cost[r] == 0) {
          reach(u, columns);
        } else if ((columns & ~settled[u]) != 0) {
          add_seed(seeds, u, columns & ~settled[u], d + reverse_cost[r]);
        }
      }
    }
  }
  return true;
}

}  // namespace robotouille

#endif  // ROBOTOUILLE_SRC_LAYERED_DISTANCES_H_

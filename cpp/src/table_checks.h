/*
 * Validation helpers for the planner's tables that come from Python (symmetry.cc,
 * projection.cc): every failure is a std::invalid_argument naming the table set and the problem.
 * Internal to the core library; header-only.
 */
#ifndef ROBOTOUILLE_SRC_TABLE_CHECKS_H_
#define ROBOTOUILLE_SRC_TABLE_CHECKS_H_

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "robotouille/task.h"

namespace robotouille {

// Throws "<tables> tables: <what>" unless ok.
// (A view: checks that run per table entry build no message unless one fails.)
inline void require_table(bool ok, const char* tables, std::string_view what) {
  if (!ok) throw std::invalid_argument(std::string(tables) + " tables: " + std::string(what));
}

// Checks that `begin` is a CSR offset array of `rows` rows over `values` entries.
inline void require_offsets(const char* tables, const IntVec& begin, size_t rows, size_t values,
                            const std::string& name) {
  require_table(begin.size() == rows + 1 && begin.front() == 0 &&
                    static_cast<size_t>(begin.back()) == values &&
                    std::is_sorted(begin.begin(), begin.end()),
                tables, name + " is not a valid offset array");
}

}  // namespace robotouille

#endif  // ROBOTOUILLE_SRC_TABLE_CHECKS_H_

#include "robotouille/symmetry.h"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "robotouille/kernels.h"
#include "table_checks.h"

namespace robotouille {
namespace {

uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

constexpr const char* kTables = "symmetry";

void require(bool ok, std::string_view what) { require_table(ok, kTables, what); }

void check_csr(const IntVec& begin, size_t rows, size_t values, const std::string& name) {
  require_offsets(kTables, begin, rows, values, name);
}

}  // namespace

Canonicalizer::Canonicalizer(const Task& task, SymmetrySpec spec)
    : task_(task), spec_(std::move(spec)) {
  const SymmetrySpec& s = spec_;
  require(!s.class_begin.empty(), "class_begin is empty");
  num_classes_ = static_cast<int32_t>(s.class_begin.size()) - 1;
  check_csr(s.class_begin, static_cast<size_t>(num_classes_), s.class_objects.size(),
            "class_begin");
  class_of_.assign(static_cast<size_t>(task.num_objects), -1);
  int32_t pairs = 0;
  for (int32_t c = 0; c < num_classes_; ++c) {
    pair_base_.push_back(pairs);
    const int32_t k = s.class_begin[c + 1] - s.class_begin[c];
    require(k >= 2, "a class has fewer than two objects");
    pairs += k * k;
    for (int32_t i = s.class_begin[c]; i < s.class_begin[c + 1]; ++i) {
      const int32_t o = s.class_objects[i];
      require(o >= 0 && o < task.num_objects && class_of_[o] < 0,
              "class object out of range or in two classes");
      class_of_[o] = c;
    }
  }
  check_csr(s.pair_fact_begin, static_cast<size_t>(pairs), s.pair_facts.size() / 2,
            "pair_fact_begin");
  require(s.pair_facts.size() % 2 == 0, "pair_facts has an odd length");
  for (int32_t f : s.pair_facts) require(f >= 0 && f < task.num_facts, "fact out of range");
  // Each pair's exchanges, grouped by (word of a, word of b, distance): one masked exchange
  // per group swaps them all at once. A transposition of objects exchanges disjoint facts.
  swap_begin_.push_back(0);
  std::vector<uint8_t> seen(static_cast<size_t>(task.num_facts), 0);
  for (int32_t pair = 0; pair < pairs; ++pair) {
    std::map<std::tuple<int32_t, int32_t, int32_t>, uint64_t> masks;
    for (int32_t i = s.pair_fact_begin[pair]; i < s.pair_fact_begin[pair + 1]; ++i) {
      const int32_t a = s.pair_facts[2 * i], b = s.pair_facts[2 * i + 1];
      require(a != b && !seen[a] && !seen[b], "a pair exchanges a fact twice");
      seen[a] = seen[b] = 1;
      masks[{a >> 6, b >> 6, (b & 63) - (a & 63)}] |= uint64_t{1} << (a & 63);
    }
    for (int32_t i = s.pair_fact_begin[pair]; i < s.pair_fact_begin[pair + 1]; ++i) {
      seen[s.pair_facts[2 * i]] = seen[s.pair_facts[2 * i + 1]] = 0;
    }
    for (const auto& [key, mask] : masks) {
      swaps_.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), mask});
    }
    swap_begin_.push_back(static_cast<int32_t>(swaps_.size()));
  }
  // Rotations: each one's transpositions composed on the facts they move. at[p]: the fact
  // whose bit the rotation brings to position p (filled lazily; `moved` lists the positions).
  IntVec at(static_cast<size_t>(task.num_facts), -1), moved;
  move_begin_.push_back(0);
  touched_begin_.push_back(0);
  for (int32_t c = 0; c < num_classes_; ++c) {
    const int32_t k = s.class_begin[c + 1] - s.class_begin[c];
    rotation_base_.push_back(static_cast<int32_t>(move_begin_.size()) - 1);
    for (int32_t rotation = 0; rotation < 2 * k * k; ++rotation) {
      const int32_t q = rotation / 2 / k, r = rotation / 2 % k;
      const bool right = rotation % 2 == 1;
      for (int32_t j = q; j < r; ++j) {
        const int32_t pair = pair_base_[c] + (right ? j * k + r : j * k + j + 1);
        for (int32_t i = s.pair_fact_begin[pair]; i < s.pair_fact_begin[pair + 1]; ++i) {
          const int32_t a = s.pair_facts[2 * i], b = s.pair_facts[2 * i + 1];
          for (const int32_t f : {a, b}) {
            if (at[f] < 0) {
              at[f] = f;
              moved.push_back(f);
            }
          }
          std::swap(at[a], at[b]);
        }
      }
      // (dst, src, shift): a touched word's moves one after another.
      std::map<std::tuple<int32_t, int32_t, int32_t>, uint64_t> moves;
      std::map<int32_t, uint64_t> received;
      for (const int32_t dst : moved) {
        const int32_t src = at[dst];
        at[dst] = -1;
        if (src == dst) continue;
        moves[{dst >> 6, src >> 6, (dst & 63) - (src & 63)}] |= uint64_t{1} << (src & 63);
        received[dst >> 6] |= uint64_t{1} << (dst & 63);
      }
      moved.clear();
      auto move = moves.begin();
      for (const auto& [word, mask] : received) {
        for (; move != moves.end() && std::get<0>(move->first) == word; ++move) {
          // Rotated, not shifted: the mask keeps only bits that land inside the word, so a
          // left rotation by the signed distance (modulo 64) is either shift, branch-free.
          const auto [dst, src, shift] = move->first;
          moves_.push_back({move->second, src, shift & 63});
        }
        touched_.push_back({word, static_cast<int32_t>(moves_.size()), mask});
      }
      move_begin_.push_back(static_cast<int32_t>(moves_.size()));
      touched_begin_.push_back(static_cast<int32_t>(touched_.size()));
    }
  }
  check_csr(s.pair_template_begin, static_cast<size_t>(pairs), s.pair_templates.size() / 2,
            "pair_template_begin");
  require(s.pair_templates.size() % 2 == 0, "pair_templates has an odd length");
  for (int32_t t : s.pair_templates) {
    require(t >= 0 && t < task.num_templates, "template out of range");
  }
  require(s.fact_pred.size() == static_cast<size_t>(task.num_facts), "fact_pred size");
  // What each true fact adds to its class members' signatures: a hash of the fact's shape
  // (predicate; each argument's class, or identity for objects never swapped) and of the
  // member's position in it. It depends only on the fact, so it is computed once here.
  const int32_t width = task.spec.fact_args_width;
  const auto pred_facts = static_cast<int32_t>(task.spec.fact_args.size()) / width;
  relevant_.assign(static_cast<size_t>(task.num_words), 0);
  contrib_begin_.assign(static_cast<size_t>(task.num_facts) + 1, 0);
  for (int32_t f = 0; f < task.num_facts; ++f) {
    contrib_begin_[f + 1] = contrib_begin_[f];
    if (s.fact_pred[f] < 0) continue;
    require(f < pred_facts, "fact_pred names a fact without arguments");
    const int32_t* args = task.spec.fact_args.data() + static_cast<ptrdiff_t>(f) * width;
    uint64_t shape = mix(static_cast<uint64_t>(s.fact_pred[f]) + 1);
    for (int32_t k = 0; k < width && args[k] >= 0; ++k) {
      require(args[k] < task.num_objects, "fact argument out of range");
      const int32_t c = class_of_[args[k]];
      const uint64_t code = c >= 0 ? (uint64_t{1} << 40) + static_cast<uint64_t>(c)
                                   : static_cast<uint64_t>(args[k]);
      shape = mix(shape ^ (code + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(k + 1)));
    }
    for (int32_t k = 0; k < width && args[k] >= 0; ++k) {
      if (class_of_[args[k]] < 0) continue;
      contrib_object_.push_back(args[k]);
      contrib_value_.push_back(mix(shape + static_cast<uint64_t>(k + 1)));
      ++contrib_begin_[f + 1];
    }
    if (contrib_begin_[f + 1] > contrib_begin_[f]) set_bit(relevant_.data(), f, true);
  }
  require(s.template_orbit.size() == static_cast<size_t>(task.num_templates),
          "template_orbit size");
  check_csr(s.template_object_begin, static_cast<size_t>(task.num_templates),
            s.template_objects.size(), "template_object_begin");
  for (int32_t o : s.template_objects) {
    require(o >= 0 && o < task.num_objects && class_of_[o] >= 0,
            "template object is not a class member");
  }
  signature_.assign(static_cast<size_t>(task.num_objects), 0);
  fact_signature_.assign(static_cast<size_t>(task.num_objects), 0);
}

int32_t Canonicalizer::partner(int32_t pair, int32_t t) const {
  const int32_t* first = spec_.pair_templates.data() + 2 * spec_.pair_template_begin[pair];
  const int32_t count = spec_.pair_template_begin[pair + 1] - spec_.pair_template_begin[pair];
  int32_t lo = 0, hi = count;
  while (lo < hi) {
    const int32_t mid = (lo + hi) / 2;
    if (first[2 * mid] < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && first[2 * lo] == t ? first[2 * lo + 1] : t;
}

void Canonicalizer::rename_templates(int32_t pair, int32_t* counters) {
  const int32_t length = counters[1];
  if (length == 0 || spec_.pair_template_begin[pair] == spec_.pair_template_begin[pair + 1]) {
    return;
  }
  // Move the node words of every listed template that the pair renames to its partner: save
  // them all first, since a template and its partner may both be listed.
  renamed_.clear();
  saved_words_.clear();
  for (int32_t i = 0; i < length; ++i) {
    const int32_t t = counters[2 + i];
    const int32_t u = partner(pair, t);
    if (u == t) continue;
    renamed_.push_back(i);
    const int32_t first = task_.node_offset + task_.spec.template_first[t];
    saved_words_.insert(saved_words_.end(), counters + first,
                        counters + first + task_.spec.template_count[t]);
    std::fill(counters + first, counters + first + task_.spec.template_count[t], 0);
  }
  size_t k = 0;
  for (int32_t i : renamed_) {
    const int32_t t = counters[2 + i];
    const int32_t u = partner(pair, t);
    const int32_t first = task_.node_offset + task_.spec.template_first[u];
    const int32_t count = task_.spec.template_count[u];
    std::copy(saved_words_.begin() + static_cast<ptrdiff_t>(k),
              saved_words_.begin() + static_cast<ptrdiff_t>(k + count), counters + first);
    k += static_cast<size_t>(count);
    counters[2 + i] = u;
  }
}

void Canonicalizer::sign(const uint64_t* words, const int32_t* counters) {
  const SymmetrySpec& s = spec_;
  // The facts' part of the signatures, updated from the previous call's input by the facts
  // that differ (the search canonicalizes one state's successors in a row).
  const auto num_words = static_cast<size_t>(task_.num_words);
  if (last_input_.empty()) last_input_.assign(num_words, 0);
  for (size_t w = 0; w < num_words; ++w) {
    for (uint64_t bits = (words[w] ^ last_input_[w]) & relevant_[w]; bits; bits &= bits - 1) {
      const int32_t f = static_cast<int32_t>(w * 64) + std::countr_zero(bits);
      const bool now = test_bit(words, f);
      for (int32_t i = contrib_begin_[f]; i < contrib_begin_[f + 1]; ++i) {
        uint64_t& sum = fact_signature_[contrib_object_[i]];
        sum = now ? sum + contrib_value_[i] : sum - contrib_value_[i];
      }
    }
    last_input_[w] = words[w];
  }
  for (int32_t o : s.class_objects) signature_[o] = fact_signature_[o];
  // Active special effects: their orbit, list position and progress words.
  const int32_t length = counters[1];
  for (int32_t i = 0; i < length; ++i) {
    const int32_t t = counters[2 + i];
    uint64_t h = mix(static_cast<uint64_t>(s.template_orbit[t]) * 1000003u +
                     static_cast<uint64_t>(i));
    const int32_t first = task_.node_offset + task_.spec.template_first[t];
    for (int32_t n = 0; n < task_.spec.template_count[t]; ++n) {
      h = mix(h ^ static_cast<uint32_t>(counters[first + n]));
    }
    for (int32_t j = s.template_object_begin[t]; j < s.template_object_begin[t + 1]; ++j) {
      signature_[s.template_objects[j]] += h;
    }
  }
}

bool Canonicalizer::fixes(int32_t pair, const uint64_t* words, const int32_t* counters) const {
  // Each exchange must meet equal bits on both sides.
  for (int32_t i = swap_begin_[pair]; i < swap_begin_[pair + 1]; ++i) {
    const FactSwap& x = swaps_[i];
    const uint64_t b = words[x.word_b];
    if (((words[x.word_a] ^ (x.shift >= 0 ? b >> x.shift : b << -x.shift)) & x.mask) != 0) {
      return false;
    }
  }
  // A listed template that the pair renames would take its partner's place in the list:
  // taken as a change (it may not be one), which only keeps the two objects apart.
  const int32_t length = counters[1];
  for (int32_t i = 0; i < length; ++i) {
    const int32_t t = counters[2 + i];
    if (partner(pair, t) != t) return false;
  }
  return true;
}

void Canonicalizer::stabilizer(const uint64_t* words, const int32_t* counters,
                               IntVec& representative) {
  representative.resize(static_cast<size_t>(task_.num_objects));
  std::iota(representative.begin(), representative.end(), 0);
  if (empty()) return;
  sign(words, counters);
  const SymmetrySpec& s = spec_;
  for (int32_t c = 0; c < num_classes_; ++c) {
    const int32_t* members = s.class_objects.data() + s.class_begin[c];
    const int32_t k = s.class_begin[c + 1] - s.class_begin[c];
    for (int32_t j = 1; j < k; ++j) {
      // Members that trade places without changing the state have equal signatures; the first
      // member of j's signature is tried (the transposition itself decides: signatures are
      // hashes).
      int32_t i = 0;
      while (i < j && signature_[members[i]] != signature_[members[j]]) ++i;
      if (i < j && fixes(pair_base_[c] + i * k + j, words, counters)) {
        representative[members[j]] = members[i];
      }
    }
  }
}

void Canonicalizer::canonicalize(uint64_t* words, int32_t* counters,
                                 std::vector<std::pair<int32_t, int32_t>>* swaps) {
  if (empty()) return;
  const SymmetrySpec& s = spec_;
  sign(words, counters);
  // Per class: sort roles by (signature, slot) and bring role order[q] to slot q.
  for (int32_t c = 0; c < num_classes_; ++c) {
    const int32_t* members = s.class_objects.data() + s.class_begin[c];
    const int32_t k = s.class_begin[c + 1] - s.class_begin[c];
    // Most calls are a canonical state's successors, whose classes are mostly still in order:
    // a check whose branches predict well is cheaper than a sort on hashes (which do not).
    int32_t sorted = 1;
    while (sorted < k && signature_[members[sorted - 1]] <= signature_[members[sorted]]) ++sorted;
    if (sorted >= k) continue;  // the stable sort would keep every role in its slot
    order_.resize(static_cast<size_t>(k));
    for (int32_t q = 0; q < k; ++q) {  // insertion sort: stable, and k is small
      int32_t r = q;
      while (r > 0 && signature_[members[order_[r - 1]]] > signature_[members[q]]) {
        order_[r] = order_[r - 1];
        --r;
      }
      order_[r] = q;
    }
    role_.resize(static_cast<size_t>(k));
    std::iota(role_.begin(), role_.end(), 0);
    for (int32_t q = 0; q < k; ++q) {
      if (role_[q] == order_[q]) continue;
      // A member that sorts later while those after it each sort one slot earlier moves
      // down in one left rotation; otherwise the member that belongs at q comes up in one
      // right rotation.
      int32_t e = q;
      while (e + 1 < k && role_[e + 1] == order_[e]) ++e;
      if (e > q + 1 && order_[e] == role_[q]) {
        rotate(c, q, e, false, words, counters, swaps);
        std::rotate(role_.begin() + q, role_.begin() + q + 1, role_.begin() + e + 1);
        q = e;
        continue;
      }
      int32_t r = q + 1;
      while (role_[r] != order_[q]) ++r;
      rotate(c, q, r, true, words, counters, swaps);
      std::rotate(role_.begin() + q, role_.begin() + r, role_.begin() + r + 1);
    }
  }
}

void Canonicalizer::rotate(int32_t c, int32_t q, int32_t r, bool right, uint64_t* words,
                           int32_t* counters, std::vector<std::pair<int32_t, int32_t>>* swaps) {
  const int32_t k = spec_.class_begin[c + 1] - spec_.class_begin[c];
  const int32_t rotation = rotation_base_[c] + 2 * (q * k + r) + (right ? 1 : 0);
  const TouchedWord* touched = touched_.data() + touched_begin_[rotation];
  const auto count = static_cast<size_t>(touched_begin_[rotation + 1] - touched_begin_[rotation]);
  gathered_.resize(count);
  const FactMove* move = moves_.data() + move_begin_[rotation];
  for (size_t i = 0; i < count; ++i) {  // every word read before any is written
    uint64_t in = 0;
    for (const FactMove* end = moves_.data() + touched[i].moves_end; move != end; ++move) {
      in |= std::rotl(words[move->src_word] & move->mask, move->shift);
    }
    gathered_[i] = in;
  }
  for (size_t i = 0; i < count; ++i) {
    words[touched[i].word] = (words[touched[i].word] & ~touched[i].mask) | gathered_[i];
  }
  const int32_t* members = spec_.class_objects.data() + spec_.class_begin[c];
  for (int32_t j = q; j < r; ++j) {
    const int32_t a = j, b = right ? r : j + 1;
    if (counters[1] > 0) rename_templates(pair_base_[c] + a * k + b, counters);
    if (swaps != nullptr) swaps->emplace_back(members[a], members[b]);
  }
}

}  // namespace robotouille

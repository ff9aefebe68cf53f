#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace blasscope::ui {

// Sorts a range that is in order but for a few elements, as a session's calls are (listed as
// they finished; a clock step of a few nanoseconds puts one out of place): an insertion sort,
// linear in its length, where at most `few` neighbours are out of order; `otherwise` sorts it
// where more are (std::sort through indirection took a third of a second on a million calls).
template <typename It, typename Less, typename Otherwise>
void sort_nearly_sorted(It first, It last, Less less, Otherwise otherwise, std::size_t few = 64) {
  std::size_t descents = 0;
  for (It it = first; it != last && std::next(it) != last; ++it) {
    if (less(*std::next(it), *it) && ++descents > few) {
      otherwise();
      return;
    }
  }
  if (descents == 0) return;
  // Few descents need not mean few moves (two interleaved sorted runs have one): past
  // `few` moves an element on average, the caller's sort takes over (every step leaves a
  // permutation of the range, so it can).
  std::size_t budget = few * static_cast<std::size_t>(std::distance(first, last));
  for (It it = std::next(first); it != last; ++it) {
    if (!less(*it, *std::prev(it))) continue;
    auto value = std::move(*it);
    It hole = it;
    do {
      *hole = std::move(*std::prev(hole));
      --hole;
    } while (--budget != 0 && hole != first && less(value, *std::prev(hole)));
    *hole = std::move(value);
    if (budget == 0) {
      otherwise();
      return;
    }
  }
}

}  // namespace blasscope::ui

// The known word nearest to a mistyped one, for "did you mean" in the pool's messages (the
// configuration file's keys, the control API's requests and keys). Private to server/pool.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rgpu::pool {

inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The nearest of `known`, if near enough to be a plausible typo (at most 2 edits, or a third of
// the word's length for long words).
inline std::optional<std::string> nearest_word(std::string_view word, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  size_t best_d = std::string::npos;
  for (const auto& k : known) {
    const size_t d = edit_distance(word, k);
    if (d < best_d) best_d = d, best = k;
  }
  if (!best || best_d > std::max<size_t>(2, word.size() / 3)) return std::nullopt;
  return best;
}

inline std::string join_words(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace rgpu::pool

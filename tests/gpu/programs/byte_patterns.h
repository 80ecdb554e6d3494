// Byte patterns of copy checks, shared by the GPU suite's 33_pinned_copies and the integration
// tests' shared_copies: a pattern of its own for each round (so bytes left from an earlier round are
// wrong), and a check that also looks at the byte before and after the range (left 0: a copy that
// wrote past its range shows).
#pragma once

#include <cstddef>

inline unsigned char byte_pattern(size_t i, int round) {
  return static_cast<unsigned char>(i * 131 + (i >> 13) + round * 29 + 1);
}

inline void fill_pattern(unsigned char* p, size_t n, int round) {
  for (size_t i = 0; i < n; ++i) p[i] = byte_pattern(i, round);
}

// p[0, n) holds round's pattern, plus i + round at byte i when `added` (a kernel added it), and
// p[-1] and p[n] are 0.
inline bool holds_pattern(const unsigned char* p, size_t n, int round, bool added = false) {
  if (p[-1] != 0 || p[n] != 0) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned char want = byte_pattern(i, round);
    if (added) want = static_cast<unsigned char>(want + i + round);
    if (p[i] != want) return false;
  }
  return true;
}

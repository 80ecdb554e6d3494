// The arithmetic of CUDA arrays that both sides need: the bytes of one element of a channel
// format, the extent of a mipmap level, and how a linear byte range of the legacy
// cudaMemcpy{To,From}Array / ArrayToArray calls (which run on from row to row) splits into
// rectangular pieces.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rgpu {

// Bytes of one element, or 0 for a format whose elements are not whole bytes of x+y+z+w bits
// (planar NV12, block-compressed kinds): copies of those are not served.
inline size_t channel_bytes(const cudaChannelFormatDesc& d) {
  if (d.x < 0 || d.y < 0 || d.z < 0 || d.w < 0) return 0;
  if (d.f == cudaChannelFormatKindNV12 || (d.f >= cudaChannelFormatKindUnsignedBlockCompressed1 &&
                                           d.f <= cudaChannelFormatKindUnsignedBlockCompressed7SRGB))
    return 0;
  const int bits = d.x + d.y + d.z + d.w;
  return bits > 0 && bits % 8 == 0 ? static_cast<size_t>(bits / 8) : 0;
}

// One dimension of mip level `level`: halved per level, never below 1; an absent one (0) stays 0.
inline size_t mip_dimension(size_t n, unsigned level) {
  if (n == 0) return 0;
  return level >= sizeof(size_t) * 8 ? 1 : std::max<size_t>(1, n >> level);
}

inline cudaExtent mip_level_extent(const cudaExtent& e, unsigned level) {
  return cudaExtent{mip_dimension(e.width, level), mip_dimension(e.height, level), mip_dimension(e.depth, level)};
}

// How many levels a full mip chain of `e` has (1 + log2 of its largest dimension).
inline unsigned mip_level_count(const cudaExtent& e) {
  size_t m = std::max({e.width, e.height, e.depth, size_t{1}});
  unsigned n = 1;
  while (m >>= 1) ++n;
  return n;
}

// One side of a linear copy: an array with rows of `row_bytes` starting at byte `x` of row `y`,
// or linear memory (row_bytes 0: one endless row; its pieces are at `offset`).
struct LinearSide {
  size_t row_bytes = 0;
  size_t x = 0;
  size_t y = 0;
};

// A rectangle of `height` rows of `width` bytes: at `offset` of the linear range, at (x, y) on
// each array side. Rows on a linear side are `width` apart (whole rows of the array are copied).
struct LinearPiece {
  size_t offset;
  size_t width;
  size_t height;
  size_t a_x, a_y;
  size_t b_x, b_y;
};

// Splits `count` bytes between sides a and b into pieces that stay inside one row of each array
// side; whole rows go as one piece where both sides start a row of the same width (or one is
// linear). Returns no pieces when an array side's position lies outside its row.
inline std::vector<LinearPiece> split_linear(LinearSide a, LinearSide b, size_t count) {
  std::vector<LinearPiece> pieces;
  if ((a.row_bytes && a.x >= a.row_bytes) || (b.row_bytes && b.x >= b.row_bytes)) return pieces;
  auto room = [](const LinearSide& s, size_t left) { return s.row_bytes ? std::min(left, s.row_bytes - s.x) : left; };
  auto advance = [](LinearSide& s, size_t n, size_t rows) {
    if (!s.row_bytes) return;
    if (rows > 1) {
      s.y += rows;
    } else if ((s.x += n) == s.row_bytes) {
      s.x = 0;
      ++s.y;
    }
  };
  for (size_t off = 0; off < count;) {
    size_t left = count - off;
    size_t row = a.row_bytes ? a.row_bytes : b.row_bytes;
    bool whole_rows = row && a.x == 0 && b.x == 0 && (!a.row_bytes || !b.row_bytes || a.row_bytes == b.row_bytes) &&
                      left >= 2 * row;
    if (whole_rows) {
      size_t rows = left / row;
      pieces.push_back({off, row, rows, a.x, a.y, b.x, b.y});
      advance(a, row, rows);
      advance(b, row, rows);
      off += rows * row;
      continue;
    }
    size_t n = room(b, room(a, left));
    pieces.push_back({off, n, 1, a.x, a.y, b.x, b.y});
    advance(a, n, 1);
    advance(b, n, 1);
    off += n;
  }
  return pieces;
}

}  // namespace rgpu

// Rows of memory as a 2D or 3D copy reads or writes them on one side (memcpy.cpp, graph copy nodes
// and the pipe's landings of their bytes).
#pragma once

#include <cstddef>

namespace rgpu::client {

// The rows a pitched copy reads or writes on one side: `depth` slices of `height` rows of `width`
// bytes from `base`, rows `pitch` apart, slices `slice` apart. Host bytes travel packed: the rows
// one after the other, in this order.
struct HostRows {
  // One plain range.
  static HostRows range(void* p, size_t n) { return {static_cast<char*>(p), n, n, 1, n, 1}; }
  char* base = nullptr;
  size_t width = 0;
  size_t pitch = 0;
  size_t height = 0;
  size_t slice = 0;
  size_t depth = 0;
  bool operator==(const HostRows&) const = default;
  size_t bytes() const { return width * height * depth; }
  // From the first row's first byte to the last row's last.
  size_t span() const { return bytes() ? (depth - 1) * slice + (height - 1) * pitch + width : 0; }
  // Whether the rows lie one after the other already (the packed form is the range itself).
  bool packed() const { return (height <= 1 || pitch == width) && (depth <= 1 || slice == width * height); }
  // fn(row, the row's offset in the packed form).
  template <typename Fn>
  void each(Fn&& fn) const {
    for (size_t z = 0; z < depth; ++z)
      for (size_t y = 0; y < height; ++y) fn(base + z * slice + y * pitch, (z * height + y) * width);
  }
};

}  // namespace rgpu::client

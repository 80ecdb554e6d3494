// readable_bytes_at: a cached copy of this process's readable mappings, read from /proc/self/maps.
#include "common/fatbin/mapped_memory.h"

#include <algorithm>
#include <cstdint>
#include <charconv>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

namespace rgpu::fatbin {
namespace {

struct Range {
  uintptr_t begin;
  uintptr_t end;
};

// Readable mappings, sorted, adjacent ones merged (an image's r-- and r-x segments touch, and a
// container may straddle them).
std::vector<Range> read_readable_ranges() {
  std::vector<Range> ranges;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // "begin-end perms offset dev inode path", addresses in hex
    const char* at = line.data();
    const char* end = line.data() + line.size();
    Range r{};
    auto begin = std::from_chars(at, end, r.begin, 16);
    if (begin.ec != std::errc() || begin.ptr == end || *begin.ptr != '-') continue;
    auto finish = std::from_chars(begin.ptr + 1, end, r.end, 16);
    if (finish.ec != std::errc() || end - finish.ptr < 2 || finish.ptr[1] != 'r') continue;
    if (r.end <= r.begin) continue;
    if (!ranges.empty() && ranges.back().end == r.begin)
      ranges.back().end = r.end;
    else
      ranges.push_back(r);
  }
  return ranges;  // /proc/self/maps lists mappings in address order
}

// 0 when `address` lies in none of `ranges`.
size_t bytes_left(const std::vector<Range>& ranges, uintptr_t address) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uintptr_t a, const Range& r) { return a < r.begin; });
  if (it == ranges.begin()) return 0;
  --it;
  return address < it->end ? it->end - address : 0;
}

}  // namespace

size_t readable_bytes_at(const void* p) {
  // Never destroyed: fatbins are registered (and may be looked up) from static constructors and
  // destructors of other images.
  static std::mutex& mutex = *new std::mutex;
  static std::vector<Range>& cached = *new std::vector<Range>;
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex);
  if (size_t n = bytes_left(cached, address)) return n;
  cached = read_readable_ranges();
  return bytes_left(cached, address);
}

}  // namespace rgpu::fatbin

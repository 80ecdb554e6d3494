// The chunk order of staged copies (see chunk_pipeline.h).
#include "client/runtime/chunk_pipeline.h"

#include <algorithm>
#include <vector>

namespace rgpu::client {

int32_t run_h2d_chunks(uint64_t n, size_t chunk, size_t slots, const ChunkSteps& steps) {
  std::vector<bool> busy(slots, false);
  int32_t failure = 0;
  auto finish = [&](size_t slot) {
    if (!busy[slot]) return;
    busy[slot] = false;
    const int32_t st = steps.finish(slot);
    if (st != 0 && failure == 0) failure = st;
  };
  size_t k = 0;
  for (uint64_t offset = 0; offset < n && failure == 0; offset += chunk, ++k) {
    const size_t slot = k % slots;
    finish(slot);
    if (failure != 0) break;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, n - offset));
    steps.host(slot, offset, len);
    const int32_t st = steps.issue(slot, offset, len);
    if (st != 0) failure = st;
    else busy[slot] = true;
  }
  for (size_t i = 0; i < slots; ++i) finish((k + i) % slots);  // the oldest first
  return failure;
}

int32_t run_d2h_chunks(uint64_t n, size_t chunk, size_t slots, const ChunkSteps& steps) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  int32_t failure = 0;
  uint64_t issued = 0;  // chunks [0, issued) were issued
  auto issue_next = [&] {
    if (issued == chunks || failure != 0) return;
    const uint64_t offset = issued * chunk;
    const int32_t st = steps.issue(issued % slots, offset, static_cast<size_t>(std::min<uint64_t>(chunk, n - offset)));
    if (st != 0) failure = st;
    else ++issued;
  };
  for (size_t i = 0; i < slots; ++i) issue_next();
  for (uint64_t k = 0; k < issued; ++k) {
    const size_t slot = k % slots;
    const int32_t st = steps.finish(slot);
    if (st != 0 && failure == 0) failure = st;
    const uint64_t offset = k * chunk;
    if (failure == 0) steps.host(slot, offset, static_cast<size_t>(std::min<uint64_t>(chunk, n - offset)));
    issue_next();
  }
  return failure;
}

}  // namespace rgpu::client

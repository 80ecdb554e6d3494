// The order of a copy staged through a ring of chunks in shared memory (staged_copy.h), apart from
// what moves the bytes, so that it is tested alone. A copy of n bytes goes in chunks of at most
// `chunk` bytes, chunk k through slot k % slots.
//  - H2D: the host step fills a slot from the program's memory, then the chunk's device copy is
//    issued; a slot is filled again only once the copy issued from it has finished.
//  - D2H: up to `slots` device copies are issued ahead; each slot's copy is finished and the host
//    step drains it into the program's memory before the slot is issued again.
// So the program's memcpy of one chunk overlaps the GPU's copy of the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace rgpu::client {

struct ChunkSteps {
  // Moves `len` bytes between the program's memory at `offset` and `slot`.
  std::function<void(size_t slot, uint64_t offset, size_t len)> host;
  // Issues the device copy of the chunk at `offset` through `slot`; 0, or why it was not issued.
  std::function<int32_t(size_t slot, uint64_t offset, size_t len)> issue;
  // Waits until the copy issued through `slot` has finished; its status.
  std::function<int32_t(size_t slot)> finish;
};

// Both return the first failure (0 when none). After one, nothing more is issued, and every copy
// already issued is still finished before they return.
int32_t run_h2d_chunks(uint64_t n, size_t chunk, size_t slots, const ChunkSteps& steps);
int32_t run_d2h_chunks(uint64_t n, size_t chunk, size_t slots, const ChunkSteps& steps);

}  // namespace rgpu::client

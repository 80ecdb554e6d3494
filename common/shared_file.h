// Files another process hands over by descriptor for this one to map (a same-host client's pinned
// memory, external memory on the emulated GPU): a mapping outlives nothing but the file's length,
// so a file the sender could still shrink would fault this process on its next touch (SIGBUS).
#pragma once

#include <cstdint>

namespace rgpu {

// Whether `fd` is a regular file of at least `end` bytes that can no longer shrink (a memfd sealed
// with F_SEAL_SHRINK): only such a file is safe to map and touch.
bool is_sealed_file_of(int fd, uint64_t end);

}  // namespace rgpu

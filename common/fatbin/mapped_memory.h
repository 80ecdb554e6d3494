// How many bytes from an address are mapped readable in this process, from /proc/self/maps: the
// bound that callers of parse_wrapper pass for a fatbin inside a loaded host image.
#pragma once

#include <cstddef>

namespace rgpu::fatbin {

// Bytes readable from `p` to the end of the run of adjacent readable mappings that holds it;
// 0 when `p` is not in a readable mapping. The map is cached and re-read when `p` is in no cached
// mapping (dlopen adds mappings). Thread-safe.
size_t readable_bytes_at(const void* p);

}  // namespace rgpu::fatbin

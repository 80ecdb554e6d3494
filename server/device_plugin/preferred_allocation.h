// GetPreferredAllocation's rule: keep a container's units on one GPU when possible.
//
//   1. The devices the kubelet says must be included come first.
//   2. The rest are taken from the GPU of the first must-include device, as far as it has room.
//   3. Then, if one GPU can hold everything still needed, the lowest-numbered such GPU gives it
//      (first fit: both resources of a pod then tend to land on the same GPU, and GPUs fill in
//      order, leaving the later ones whole for large requests).
//   4. Otherwise the GPUs with the most available units give first (the fewest GPUs spanned).
// Within a GPU the lowest unit numbers go first. IDs the plugin does not recognise are used last.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rgpu::device_plugin {

// `size` devices out of `available` (all of them when there are fewer), `must_include` among them.
std::vector<std::string> preferred_allocation(const std::vector<std::string>& available,
                                              const std::vector<std::string>& must_include, size_t size);

}  // namespace rgpu::device_plugin

// What a managed allocation's pages were told: cudaMemAdvise's advice and the last explicit
// prefetch, page by page as CUDA keeps them, stored as runs of equal pages. Coherence does not
// depend on them (managed_memory.cpp); cudaMemRangeGetAttribute(s) answers from them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>

namespace rgpu::client {

struct PageHints {
  bool read_mostly = false;
  cudaMemLocation preferred{cudaMemLocationTypeInvalid, 0};
  uint64_t accessed_by = 0;  // bit d: device d; kHostBit: the host
  cudaMemLocation last_prefetch{cudaMemLocationTypeInvalid, 0};

  static constexpr int kHostBit = 63;
  bool operator==(const PageHints& o) const;
};

// A location's canonical form (the host's id means nothing), so that equal locations compare equal.
// False when `l` has a type no hint names. Whether its device exists is the caller's question.
bool canonical_location(cudaMemLocation& l);

class ManagedHints {
 public:
  static constexpr size_t kPage = 4096;
  explicit ManagedHints(size_t size);

  // Applies `change` to every page overlapping [begin, end), byte offsets into the allocation.
  void update(size_t begin, size_t end, const std::function<void(PageHints&)>& change);
  // The attribute of the pages overlapping [begin, end) into `data` (`size` bytes), as
  // cudaMemRangeGetAttribute defines it: cudaErrorInvalidValue for a size the attribute does not take.
  cudaError_t attribute(cudaMemRangeAttribute attribute, void* data, size_t size, size_t begin, size_t end) const;
  // How many runs are kept: what the hints cost, whatever the allocation's size.
  size_t runs() const { return runs_.size(); }

 private:
  // Splits the run holding `offset` so that a run starts there.
  void split_at(size_t offset);

  size_t size_;
  std::map<size_t, PageHints> runs_;  // a run's first byte -> its pages' hints, up to the next run
};

}  // namespace rgpu::client

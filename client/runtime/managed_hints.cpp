#include "client/runtime/managed_hints.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace rgpu::client {
namespace {

bool same(const cudaMemLocation& a, const cudaMemLocation& b) { return a.type == b.type && a.id == b.id; }

// The legacy attributes' device-id form of a location.
int device_id(const cudaMemLocation& l) {
  if (l.type == cudaMemLocationTypeDevice) return l.id;
  return l.type == cudaMemLocationTypeHost ? cudaCpuDeviceId : cudaInvalidDeviceId;
}

cudaError_t put_int(void* data, size_t size, int value) {
  if (size != sizeof(int)) return cudaErrorInvalidValue;
  std::memcpy(data, &value, sizeof value);
  return cudaSuccess;
}

}  // namespace

bool PageHints::operator==(const PageHints& o) const {
  return read_mostly == o.read_mostly && same(preferred, o.preferred) && accessed_by == o.accessed_by &&
         same(last_prefetch, o.last_prefetch);
}

bool canonical_location(cudaMemLocation& l) {
  switch (l.type) {
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent:
      l.id = 0;
      return true;
    case cudaMemLocationTypeDevice:
    case cudaMemLocationTypeHostNuma:
      return l.id >= 0;
    default:
      return false;
  }
}

ManagedHints::ManagedHints(size_t size) : size_(size) { runs_.emplace(0, PageHints{}); }

void ManagedHints::split_at(size_t offset) {
  if (offset >= size_) return;
  auto it = std::prev(runs_.upper_bound(offset));
  if (it->first != offset) runs_.emplace_hint(std::next(it), offset, it->second);
}

void ManagedHints::update(size_t begin, size_t end, const std::function<void(PageHints&)>& change) {
  begin = begin / kPage * kPage;
  end = std::min(size_, (end + kPage - 1) / kPage * kPage);
  if (begin >= end) return;
  split_at(begin);
  split_at(end);
  for (auto it = runs_.find(begin); it != runs_.end() && it->first < end; ++it) change(it->second);
  // Runs equal to the one before them join it, so repeated advice keeps the map as small as it was.
  auto it = runs_.find(begin);
  if (it != runs_.begin()) --it;
  while (it != runs_.end() && it->first <= end) {
    auto next = std::next(it);
    if (next != runs_.end() && next->first <= end && next->second == it->second) runs_.erase(next);
    else it = next;
  }
}

cudaError_t ManagedHints::attribute(cudaMemRangeAttribute attribute, void* data, size_t size, size_t begin,
                                    size_t end) const {
  if (!data) return cudaErrorInvalidValue;
  begin = begin / kPage * kPage;
  end = std::min(size_, (end + kPage - 1) / kPage * kPage);
  const auto first = std::prev(runs_.upper_bound(begin));
  const auto last = runs_.lower_bound(end);
  // The location every page has, or an invalid one.
  auto uniform = [&](cudaMemLocation PageHints::* field) {
    cudaMemLocation l = first->second.*field;
    for (auto it = first; it != last; ++it)
      if (!same(it->second.*field, l)) return cudaMemLocation{cudaMemLocationTypeInvalid, 0};
    return l;
  };
  auto put_type = [&](cudaMemLocation l) {
    if (size != sizeof(cudaMemLocationType)) return cudaErrorInvalidValue;
    std::memcpy(data, &l.type, sizeof l.type);
    return cudaSuccess;
  };
  switch (attribute) {
    case cudaMemRangeAttributeReadMostly:
      return put_int(data, size, std::all_of(first, last, [](const auto& run) { return run.second.read_mostly; }));
    case cudaMemRangeAttributePreferredLocation:
      return put_int(data, size, device_id(uniform(&PageHints::preferred)));
    case cudaMemRangeAttributeLastPrefetchLocation:
      return put_int(data, size, device_id(uniform(&PageHints::last_prefetch)));
    case cudaMemRangeAttributePreferredLocationType:
      return put_type(uniform(&PageHints::preferred));
    case cudaMemRangeAttributeLastPrefetchLocationType:
      return put_type(uniform(&PageHints::last_prefetch));
    case cudaMemRangeAttributePreferredLocationId:
      return put_int(data, size, uniform(&PageHints::preferred).id);
    case cudaMemRangeAttributeLastPrefetchLocationId:
      return put_int(data, size, uniform(&PageHints::last_prefetch).id);
    case cudaMemRangeAttributeAccessedBy: {
      if (size == 0 || size % sizeof(int) != 0) return cudaErrorInvalidValue;
      uint64_t every = ~uint64_t{0};
      for (auto it = first; it != last; ++it) every &= it->second.accessed_by;
      auto* out = static_cast<int*>(data);
      const size_t slots = size / sizeof(int);
      size_t n = 0;
      for (int bit = 0; bit < 64 && n < slots; ++bit)
        if (every >> bit & 1) out[n++] = bit == PageHints::kHostBit ? cudaCpuDeviceId : bit;
      std::fill(out + n, out + slots, cudaInvalidDeviceId);
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace rgpu::client

// GetPreferredAllocation's rule (see preferred_allocation.h).
#include "server/device_plugin/preferred_allocation.h"

#include <algorithm>
#include <map>
#include <set>

#include "server/device_plugin/device_ids.h"

namespace rgpu::device_plugin {

namespace {

constexpr int kUnknownGpu = -1;  // IDs that are not ours: grouped together, used last

int gpu_of(const std::string& id) {
  auto parsed = parse_device_id(id);
  return parsed ? parsed->gpu : kUnknownGpu;
}

uint32_t unit_of(const std::string& id) {
  auto parsed = parse_device_id(id);
  return parsed ? parsed->unit : 0;
}

}  // namespace

std::vector<std::string> preferred_allocation(const std::vector<std::string>& available,
                                              const std::vector<std::string>& must_include, size_t size) {
  std::vector<std::string> out;
  std::set<std::string> taken;
  for (const auto& id : must_include) {
    if (out.size() < size && taken.insert(id).second) out.push_back(id);
  }
  // The free devices of each GPU, lowest unit first.
  std::map<int, std::vector<std::string>> free;
  for (const auto& id : available) {
    if (!taken.count(id)) free[gpu_of(id)].push_back(id);
  }
  for (auto& [gpu, ids] : free) {
    std::sort(ids.begin(), ids.end(),
              [](const std::string& a, const std::string& b) { return unit_of(a) < unit_of(b); });
  }
  auto take_from = [&](int gpu) {
    auto it = free.find(gpu);
    if (it == free.end()) return;
    for (const auto& id : it->second) {
      if (out.size() >= size) break;
      out.push_back(id);
    }
    free.erase(it);
  };
  if (!must_include.empty()) take_from(gpu_of(must_include.front()));
  if (out.size() >= size) return out;

  const size_t needed = size - out.size();
  for (const auto& [gpu, ids] : free) {
    if (gpu != kUnknownGpu && ids.size() >= needed) {
      take_from(gpu);
      return out;
    }
  }
  std::vector<int> order;
  for (const auto& [gpu, ids] : free) order.push_back(gpu);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if ((a == kUnknownGpu) != (b == kUnknownGpu)) return b == kUnknownGpu;
    return free[a].size() > free[b].size();
  });
  for (int gpu : order) take_from(gpu);
  return out;
}

}  // namespace rgpu::device_plugin

// The emulated runtime's process-wide state and its work queue semantics.
#include "server/backends/emulated/runtime_state.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "common/log.h"

namespace rgpu::server::emulated {

DeviceSettings::DeviceSettings() {
  limits[cudaLimitStackSize] = 1024;
  limits[cudaLimitPrintfFifoSize] = 8650752;
  limits[cudaLimitMallocHeapSize] = 8 << 20;
  limits[cudaLimitDevRuntimePendingLaunchCount] = 2048;
  limits[cudaLimitMaxL2FetchGranularity] = 64;
  limits[cudaLimitPersistingL2CacheSize] = 0;
}

RuntimeState::RuntimeState() {
  Result<DeviceConfig> read = read_device_config();
  if (read.is_ok()) {
    config = read.value();
  } else {
    config_status = read.take_status();
    RGPU_LOG_ERROR("emulated backend: %s", config_status.to_string().c_str());
  }
  memory.configure(config.count, config.memory_bytes);
  settings.resize(static_cast<size_t>(config.count));
}

RuntimeState& RuntimeState::get() {
  static RuntimeState* instance = new RuntimeState();  // never destroyed: threads may outlive exit
  return *instance;
}

int& current_device() {
  thread_local int device = 0;
  return device;
}

cudaError_t RuntimeState::resolve_stream(cudaStream_t handle, Stream** out) {
  *out = nullptr;
  if (handle == nullptr || handle == cudaStreamLegacy || handle == cudaStreamPerThread) return cudaSuccess;
  auto it = streams.find(handle);
  if (it == streams.end()) return cudaErrorInvalidResourceHandle;
  *out = it->second.get();
  return cudaSuccess;
}

Event* RuntimeState::find_event(cudaEvent_t handle) {
  auto it = events.find(handle);
  return it == events.end() ? nullptr : it->second.get();
}

cudaError_t RuntimeState::enqueue(cudaStream_t handle, cudaGraphNodeType type, Operation op) {
  {
    std::lock_guard lock(mu);
    Stream* s = nullptr;
    if (cudaError_t err = resolve_stream(handle, &s); err != cudaSuccess) return err;
    if (s && s->capture) {
      if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
      s->capture->graph->nodes.push_back(std::make_shared<GraphNode>(GraphNode{type, std::move(op)}));
      return cudaSuccess;
    }
  }
  return op();
}

// Only this very allocation: after a reset (or a client's stray cudaFree) the address may belong
// to a newer one.
GraphAllocation::~GraphAllocation() { state().memory.free(memory_.data, memory_.allocation.get()); }

cudaError_t RuntimeState::forbid_in_capture(cudaStream_t handle) {
  std::lock_guard lock(mu);
  Stream* s = nullptr;
  if (cudaError_t err = resolve_stream(handle, &s); err != cudaSuccess) return err;
  if (!s || !s->capture) return cudaSuccess;
  s->capture->invalidated = true;
  return cudaErrorStreamCaptureUnsupported;
}

void RuntimeState::occupy(int device) {
  if (config.kernel_time.count() == 0 || !valid_device(device)) return;
  std::lock_guard lock(mu);
  auto& until = settings[static_cast<size_t>(device)].busy_until;
  until = std::max(until, std::chrono::steady_clock::now()) + config.kernel_time;
}

bool RuntimeState::is_pinned(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard lock(mu);
  auto it = pinned.upper_bound(a);
  if (it == pinned.begin()) return false;
  --it;
  return a - it->first <= it->second.size && n <= it->second.size - (a - it->first);
}

bool RuntimeState::busy(int device) {
  if (config.kernel_time.count() == 0 || !valid_device(device)) return false;
  std::lock_guard lock(mu);
  return std::chrono::steady_clock::now() < settings[static_cast<size_t>(device)].busy_until;
}

void RuntimeState::wait_idle(int device) {
  if (config.kernel_time.count() == 0 || !valid_device(device)) return;
  std::chrono::steady_clock::time_point until;
  {
    std::lock_guard lock(mu);
    until = settings[static_cast<size_t>(device)].busy_until;
  }
  std::this_thread::sleep_until(until);
}

void RuntimeState::reset_device(int device) {
  {
    std::lock_guard lock(mu);
    auto drop = [device](auto& table) { std::erase_if(table, [device](auto& kv) { return kv.second->device == device; }); };
    drop(streams);
    drop(events);
    drop(graphs);
    drop(execs);
    settings[static_cast<size_t>(device)] = DeviceSettings();
    // Pinned memory belongs to the context it was allocated in, and goes with it.
    std::erase_if(pinned, [device](const auto& kv) {
      if (kv.second.device != device) return false;
      std::free(reinterpret_cast<void*>(kv.first));
      return true;
    });
  }
  memory.release_device(device);
}

}  // namespace rgpu::server::emulated

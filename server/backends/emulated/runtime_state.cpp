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
  queues_ = std::make_unique<DeviceQueue[]>(static_cast<size_t>(std::max(config.count, 0)));
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

cudaError_t RuntimeState::locate(cudaStream_t handle, cudaGraphNodeType type, Operation& op, int* device,
                                 bool* captured) {
  std::lock_guard lock(mu);
  Stream* s = nullptr;
  if (cudaError_t err = resolve_stream(handle, &s); err != cudaSuccess) return err;
  *device = s ? s->device : current_device();
  *captured = s && s->capture;
  if (*captured) {
    if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
    s->capture->graph->nodes.push_back(std::make_shared<GraphNode>(GraphNode{type, std::move(op)}));
  }
  return cudaSuccess;
}

cudaError_t RuntimeState::enqueue(cudaStream_t handle, cudaGraphNodeType type, Operation op) {
  int device = 0;
  bool captured = false;
  if (cudaError_t err = locate(handle, type, op, &device, &captured); err != cudaSuccess || captured) return err;
  wait_deferred(device);
  return op();
}

namespace {
thread_local bool t_callback_thread = false;
}  // namespace

cudaError_t RuntimeState::enqueue_async(cudaStream_t handle, cudaGraphNodeType type, Operation op) {
  int device = 0;
  bool captured = false;
  if (cudaError_t err = locate(handle, type, op, &device, &captured); err != cudaSuccess || captured) return err;
  if (!valid_device(device) || t_callback_thread) return op();
  DeviceQueue& q = queues_[static_cast<size_t>(device)];
  const bool defer_host = type == cudaGraphNodeTypeHost && kernels_busy(device);
  if (defer_host || q.outstanding.load(std::memory_order_acquire) > 0) {
    std::lock_guard lock(defer_mu_);
    if (defer_host || q.running || !q.work.empty()) {
      q.work.push_back(Deferred{type, std::move(op)});
      q.outstanding.fetch_add(1, std::memory_order_release);
      if (!q.started) {
        q.started = true;
        std::thread([this, device] { callback_thread(device); }).detach();  // lives as long as the process
      }
      defer_cv_.notify_all();
      return cudaSuccess;
    }
  }
  return op();
}

void RuntimeState::callback_thread(int device) {
  t_callback_thread = true;
  current_device() = device;
  DeviceQueue& q = queues_[static_cast<size_t>(device)];
  std::unique_lock lock(defer_mu_);
  for (;;) {
    defer_cv_.wait(lock, [&] { return !q.work.empty(); });
    Deferred d = std::move(q.work.front());
    q.work.pop_front();
    q.running = true;
    lock.unlock();
    // A host function runs when its stream reaches it: after the kernels issued before it.
    if (d.type == cudaGraphNodeTypeHost) {
      std::chrono::steady_clock::time_point until;
      {
        std::lock_guard state_lock(mu);
        until = settings[static_cast<size_t>(device)].busy_until;
      }
      std::this_thread::sleep_until(until);
    }
    if (cudaError_t err = d.op(); err != cudaSuccess)
      RGPU_LOG_WARN("emulated backend: deferred work of device %d failed: %d", device, static_cast<int>(err));
    d.op = nullptr;  // what it holds goes before the turn moves on
    lock.lock();
    q.running = false;
    q.outstanding.fetch_sub(1, std::memory_order_release);
    defer_cv_.notify_all();
  }
}

void RuntimeState::wait_deferred(int device) {
  if (!valid_device(device) || t_callback_thread) return;
  DeviceQueue& q = queues_[static_cast<size_t>(device)];
  if (q.outstanding.load(std::memory_order_acquire) == 0) return;
  std::unique_lock lock(defer_mu_);
  defer_cv_.wait(lock, [&] { return q.work.empty() && !q.running; });
}

cudaError_t RuntimeState::stamp_event(cudaEvent_t event, bool counted) {
  std::lock_guard lock(mu);
  Event* e = find_event(event);
  if (!e) return cudaErrorInvalidResourceHandle;  // destroyed since it was captured or queued
  if (counted && e->pending > 0) --e->pending;
  e->recorded = true;
  e->when = std::chrono::steady_clock::now();
  e->done_at = valid_device(e->device) ? std::max(e->when, settings[static_cast<size_t>(e->device)].busy_until) : e->when;
  stamped_.notify_all();
  return cudaSuccess;
}

bool RuntimeState::event_done(cudaEvent_t event, cudaError_t* err) {
  std::lock_guard lock(mu);
  const Event* e = find_event(event);
  *err = e ? cudaSuccess : cudaErrorInvalidResourceHandle;
  return !e || (e->pending == 0 && std::chrono::steady_clock::now() >= e->done_at);
}

cudaError_t RuntimeState::wait_event(cudaEvent_t event) {
  std::chrono::steady_clock::time_point until;
  {
    std::unique_lock lock(mu);
    Event* e = nullptr;
    stamped_.wait(lock, [&] {
      e = find_event(event);
      return !e || e->pending == 0;
    });
    if (!e) return cudaErrorInvalidResourceHandle;
    until = e->done_at;
  }
  std::this_thread::sleep_until(until);
  return cudaSuccess;
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

bool RuntimeState::kernels_busy(int device) {
  if (config.kernel_time.count() == 0 || !valid_device(device)) return false;
  std::lock_guard lock(mu);
  return std::chrono::steady_clock::now() < settings[static_cast<size_t>(device)].busy_until;
}

bool RuntimeState::busy(int device) {
  if (kernels_busy(device)) return true;
  return valid_device(device) && queues_[static_cast<size_t>(device)].outstanding.load(std::memory_order_acquire) > 0;
}

void RuntimeState::wait_idle(int device) {
  wait_deferred(device);
  if (config.kernel_time.count() == 0 || !valid_device(device)) return;
  std::chrono::steady_clock::time_point until;
  {
    std::lock_guard lock(mu);
    until = settings[static_cast<size_t>(device)].busy_until;
  }
  std::this_thread::sleep_until(until);
}

void RuntimeState::reset_device(int device) {
  wait_deferred(device);
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

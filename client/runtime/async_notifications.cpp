// cudaDeviceRegisterAsyncNotification / cudaDeviceUnregisterAsyncNotification. Natively the driver
// sends cudaAsyncNotificationTypeOverBudget when the process goes past its device memory budget.
// rgpu's budget is the session's memory slice: when an allocation of the session would take it past
// the slice (refused, or served from the tenant's memory extension), the server sends a notification
// frame ahead of the allocation's reply, with the bytes past the slice (server/session/
// memory_slice.h). The receiver queues it; a thread of this file's calls each callback registered
// on the device, never inside the caller's CUDA call. A session without a slice has no budget and
// never hears one. Registration and removal are local: the server sends regardless (only allocations
// past a slice do), and a frame with no callback to hear it is dropped.
#include "client/runtime/async_notifications.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"

namespace rgpu::client {
namespace {

struct Registration {
  int device;
  cudaAsyncCallback fn;
  void* data;
};

cudaAsyncCallbackHandle_t handle_of(const Registration* r) {
  return reinterpret_cast<cudaAsyncCallbackHandle_t>(const_cast<Registration*>(r));
}

struct Pending {
  int device;
  cudaAsyncNotificationInfo_t info;
};

struct Notifications {
  std::mutex mu;
  std::condition_variable ready;
  std::vector<std::unique_ptr<Registration>> registered;
  std::deque<Pending> queue;
  bool thread_started = false;
};

Notifications& notifications() {
  static auto& n = *new Notifications();  // leaked: its thread runs until the process exits
  return n;
}

// Set on the notification thread: callbacks may not register or unregister (cudaErrorNotPermitted).
thread_local bool t_in_callback = false;

void notification_thread() {
  t_in_callback = true;
  Notifications& n = notifications();
  std::unique_lock<std::mutex> lock(n.mu);
  for (;;) {
    n.ready.wait(lock, [&] { return !n.queue.empty(); });
    Pending p = n.queue.front();
    n.queue.pop_front();
    std::vector<std::pair<Registration, cudaAsyncCallbackHandle_t>> targets;
    for (const auto& r : n.registered)
      if (r->device == p.device) targets.emplace_back(*r, handle_of(r.get()));
    lock.unlock();
    for (const auto& [r, handle] : targets) {
      cudaAsyncNotificationInfo_t info = p.info;  // each callback gets its own copy to read
      r.fn(&info, r.data, handle);
    }
    lock.lock();
  }
}

bool valid_device(int device) { return device >= 0 && device < device_count(); }

}  // namespace

void deliver_async_notification(int device, int type, uint64_t value) {
  Notifications& n = notifications();
  std::lock_guard<std::mutex> lock(n.mu);
  if (!n.thread_started) return;  // nothing was ever registered
  Pending p{device, {}};
  p.info.type = static_cast<cudaAsyncNotificationType>(type);
  p.info.info.overBudget.bytesOverBudget = value;
  n.queue.push_back(p);
  n.ready.notify_one();
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaDeviceRegisterAsyncNotification(int device, cudaAsyncCallback callbackFunc, void* userData,
                                                           cudaAsyncCallbackHandle_t* callback) {
  if (rgpu::client::t_in_callback) return cudart_finish(cudaErrorNotPermitted);
  if (!rgpu::client::valid_device(device)) return cudart_finish(cudaErrorInvalidDevice);
  if (!callbackFunc || !callback) return cudart_finish(cudaErrorInvalidValue);
  auto& n = rgpu::client::notifications();
  auto r = std::make_unique<rgpu::client::Registration>(rgpu::client::Registration{device, callbackFunc, userData});
  std::lock_guard<std::mutex> lock(n.mu);
  *callback = rgpu::client::handle_of(r.get());
  n.registered.push_back(std::move(r));
  if (!n.thread_started) {
    std::thread(rgpu::client::notification_thread).detach();
    n.thread_started = true;
  }
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceUnregisterAsyncNotification(int device, cudaAsyncCallbackHandle_t callback) {
  if (rgpu::client::t_in_callback) return cudart_finish(cudaErrorNotPermitted);
  if (!rgpu::client::valid_device(device)) return cudart_finish(cudaErrorInvalidDevice);
  auto& n = rgpu::client::notifications();
  bool found = false;
  {
    // Not across cudart_finish: its delivery of error logs waits for the receiver, which may be
    // waiting for this lock (deliver_async_notification).
    std::lock_guard<std::mutex> lock(n.mu);
    auto it = std::find_if(n.registered.begin(), n.registered.end(), [&](const auto& r) {
      return rgpu::client::handle_of(r.get()) == callback && r->device == device;
    });
    if ((found = it != n.registered.end())) n.registered.erase(it);
  }
  return found ? cudaSuccess : cudart_finish(cudaErrorInvalidValue);
}

// Async notifications (cudaDeviceRegisterAsyncNotification, async_notifications.cpp), as the
// pipe's receiver feeds them.
#pragma once

#include <cstdint>

namespace rgpu::client {

// A kNotification frame: queued for the notification thread, which calls the callbacks registered
// on `device`; dropped when there are none. Never blocks on a callback.
void deliver_async_notification(int device, int type, uint64_t value);

}  // namespace rgpu::client

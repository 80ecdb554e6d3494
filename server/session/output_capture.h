// Captures what the worker process writes to stdout -- above all the GPU driver's device printf
// output, flushed at synchronisation points -- so the session can forward it to the client ahead
// of the reply that follows it.
#pragma once

#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"

namespace rgpu::server {

class OutputCapture {
 public:
  // Redirects fd 1 into a pipe drained by a thread (so a full pipe never blocks the driver).
  static Result<std::unique_ptr<OutputCapture>> start();
  ~OutputCapture();

  // Everything written so far and not yet taken.
  std::string take();

 private:
  OutputCapture() = default;
  void drain_loop();
  void drain_available();

  int read_fd_ = -1;
  std::mutex mu_;
  std::string buffered_;
  std::thread thread_;
};

}  // namespace rgpu::server

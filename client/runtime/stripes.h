// Striped copies: a large cudaMemcpy, or H2D cudaMemcpyAsync, moves over several TCP connections at once (one
// stream is bounded by what one core can push through the kernel's TCP stack). The call itself
// travels on the pipe, in order; each stripe connection carries one slice of its bytes
// (common/wire/copy_args.h StripedCopy). The stripes are opened on the first large copy, as extra
// connections of this process's session (control.fbs ConnectionRole Stripe), each with a thread of
// a WorkerTeam that moves its slice of every copy.
//
// RGPU_STRIPES sets how many connections a copy is spread over (1: no striping) and
// RGPU_STRIPE_MIN_MB the smallest copy that is striped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/worker_team.h"
#include "transports/transport.h"

namespace rgpu::client {

class Stripes {
 public:
  static Stripes& get();

  // Copies n bytes over the stripes when striping is on, the copy large enough and the stripes
  // open; returns false when it did not (the caller then copies on the pipe). *status: the call's
  // status (0, or kStatusUnavailable / the server's error). An H2D copy with a stream id is a
  // cudaMemcpyAsync on that stream; like cudaMemcpy's, it returns once its bytes are sent.
  bool copy_h2d(void* dst, const void* src, size_t n, int32_t* status, const uint64_t* stream = nullptr);
  bool copy_d2h(void* dst, const void* src, size_t n, int32_t* status);

 private:
  Stripes() = default;
  // Whether a copy of n bytes is striped; opens the stripes on first use (mu_ held).
  bool use_locked(size_t n);

  std::mutex mu_;  // one striped copy at a time, so each stripe carries its slices in call order
  std::vector<std::unique_ptr<transport::Connection>> conns_;
  std::unique_ptr<WorkerTeam> team_;  // one member per stripe, made with the stripes
  bool opened_ = false;
  uint64_t next_transfer_ = 1;
};

}  // namespace rgpu::client

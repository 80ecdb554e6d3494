// Striped copies: a large cudaMemcpy or cudaMemcpyAsync moves over several TCP connections at once
// (one stream is bounded by what one core can push through the kernel's TCP stack). The call itself
// travels on the pipe, in order; each stripe connection carries one slice of its bytes
// (common/wire/copy_args.h StripedCopy). The stripes are opened on the first large copy, as extra
// connections of this process's session (control.fbs ConnectionRole Stripe). Two WorkerTeams move
// the slices, a member per stripe each: one sends H2D slices for the calling thread; the other
// receives D2H slices for the pipe's receiver, which the server tells of each D2H copy in the
// pipe's order (StripedLanding), so a synchronisation's reply behind it finds the bytes landed.
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
  // status (0, or kStatusUnavailable / the server's error). A copy with a stream id is a
  // cudaMemcpyAsync on that stream: H2D, like cudaMemcpy's, returns once its bytes are sent; D2H
  // returns at once, its bytes landing before the stream's next synchronisation returns.
  bool copy_h2d(void* dst, const void* src, size_t n, int32_t* status, const uint64_t* stream = nullptr);
  bool copy_d2h(void* dst, const void* src, size_t n, int32_t* status, const uint64_t* stream = nullptr);

  // The pipe's receiver, on a StripedLanding frame: receives every stripe's slice of the copy into
  // dst (n bytes; null, or a size that differs from the copy's: read and dropped). False when a
  // stripe failed or sent what is not part of the copy.
  bool land(void* dst, size_t n, uint64_t transfer, uint64_t count, uint32_t stripes);

 private:
  Stripes() = default;
  // Whether a copy of n bytes is striped; opens the stripes on first use (mu_ held).
  bool use_locked(size_t n);

  std::mutex mu_;  // one striped copy at a time, so each stripe carries its slices in call order
  std::vector<std::unique_ptr<transport::Connection>> conns_;
  std::unique_ptr<WorkerTeam> team_;          // sends H2D slices; one member per stripe, made with the stripes
  std::unique_ptr<WorkerTeam> receive_team_;  // receives D2H slices (the pipe's receiver only)
  bool opened_ = false;
  uint64_t next_transfer_ = 1;
};

}  // namespace rgpu::client

// Whether each GPU of the pool still answers: every interval rgpud runs itself as a short-lived
// probe (`rgpud --gpu-health BACKEND N`, a fresh process: rgpud's parent never loads the driver
// itself, and exec leaves no forked copy of its threads' locks), which asks NVML for each GPU by
// its PCI bus id, without making a CUDA context (so it takes no GPU memory). A GPU NVML cannot
// reach (fallen off the bus, lost) is unhealthy: the pool places no new session on it and the
// Kubernetes device plugin reports its devices Unhealthy, until it answers again.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "server/daemon/fork_gate.h"
#include "server/daemon/pool_service.h"

namespace rgpu::server {

// The probe's side (`rgpud --gpu-health BACKEND N`): prints "1 1 0 ..." (1: healthy) for GPUs
// 0..N-1 and returns the exit status. Without NVML it cannot tell, and says every GPU is healthy.
int print_gpu_health(const std::string& backend, size_t gpus);

// rgpud's side: runs the probe and reads its answer (bounded: a probe that does not answer within
// 10 s is killed, and the GPUs' health stays as it was). `hold` (fork_gate.h) is let go while it
// waits for the probe, so that a slow probe does not hold up a session's start.
Result<std::vector<bool>> probe_gpu_health(ForkGate::Hold& hold, const std::string& backend, size_t gpus);

// A helper thread's loop: probes every `interval` and tells the pool (PoolService::set_gpu_health);
// holding the fork gate (fork_gate.h) but while it sleeps and waits for the probe.
void watch_gpu_health(ForkGate::Hold& hold, std::string backend, size_t gpus, std::chrono::seconds interval,
                      PoolService* pool);

}  // namespace rgpu::server

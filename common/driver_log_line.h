// One entry of the CUDA driver's error log (cudaLogs*), in the driver's own format:
//   [22:21:32.099][25642][CUDA][E][cuLogsDumpToMemory] buffer cannot be NULL
// written by rgpu where no driver writes one: the emulated backend's failed calls (source CUDA)
// and the client's own refusals (source rgpu).
#pragma once

#include <string>
#include <string_view>

namespace rgpu {

// Time of day (UTC, milliseconds) and thread id of the caller; severity 'E' (error) or 'W'. An
// empty `api` leaves its bracket out, as the driver's own entries do ("[...][CUDA][E] Returning 2
// (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2", read from driver 580 on 2026-12-06).
std::string driver_log_line(std::string_view source, char severity, std::string_view api, std::string_view message);

}  // namespace rgpu

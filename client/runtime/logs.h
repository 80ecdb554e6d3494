// The client's side of the driver's error log (cudaLogs*, logs.cpp), as the rest of the client
// runtime feeds it.
#pragma once

namespace rgpu::client {

// A call failed (cudart_finish's error path): when callbacks are registered, they get the log's new
// entries, one call per entry. Costs one atomic load when none is registered.
void deliver_error_logs();

// rgpu refused `name` on the client (report_unsupported): an entry of the log, kept until the
// client's next read of the session's log carries it there.
void log_refusal(const char* name);

}  // namespace rgpu::client

// The driver's error log (cudaLogs*) and async notifications (cudaDeviceRegisterAsyncNotification)
// through rgpu, against rgpud --emulate (whose backend logs each failed runtime call).
//   error_logs              the log: Current, DumpToMemory (buffer sizes), DumpToFile, callbacks,
//                           rgpu's own refusals; notifications: handles checked, none without a slice
//   error_logs over_budget  in a session with a slice: an allocation past it notifies
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tour_checks.h"

namespace {

constexpr size_t kHopeless = size_t{1} << 50;  // no device has this much memory

// A failure the server's log records: an allocation no device can make.
bool fail_on_server() {
  void* p = nullptr;
  bool failed = cudaMalloc(&p, kHopeless) == cudaErrorMemoryAllocation;
  cudaGetLastError();
  return failed;
}

std::string dump(cudaLogIterator* it, size_t room, cudaError_t* status, size_t* size_out) {
  std::string buf(room, '#');
  size_t size = room;
  *status = cudaLogsDumpToMemory(it, buf.data(), &size, 0);
  *size_out = size;
  cudaGetLastError();
  return *status == cudaSuccess ? std::string(buf.c_str()) : std::string();
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Heard {
  std::atomic<int> calls{0};
  std::string last;
  cudaLogLevel level = cudaLogLevelWarning;
};

void on_log(void* data, cudaLogLevel level, char* message, size_t length) {
  auto* heard = static_cast<Heard*>(data);
  heard->last.assign(message, length);
  heard->level = level;
  heard->calls++;
}

struct Notified {
  std::atomic<int> calls{0};
  std::atomic<unsigned long long> bytes{0};
  std::atomic<int> type{0};
  std::atomic<bool> on_caller_thread{false};
  std::thread::id caller;
};

void on_notification(cudaAsyncNotificationInfo_t* info, void* data, cudaAsyncCallbackHandle_t) {
  auto* n = static_cast<Notified*>(data);
  n->type = info->type;
  n->bytes = info->info.overBudget.bytesOverBudget;
  n->on_caller_thread = std::this_thread::get_id() == n->caller;
  n->calls++;
}

bool wait_for(const std::atomic<int>& calls, int want, int ms) {
  for (int i = 0; i < ms / 10 && calls.load() < want; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return calls.load() >= want;
}

int logs() {
  cudaLogIterator it = 0;
  EXPECT(cudaLogsCurrent(nullptr, 0) == cudaErrorInvalidValue && cudaLogsCurrent(&it, 1) == cudaErrorInvalidValue,
         "cudaLogsCurrent checks its iterator and flags");
  cudaGetLastError();
  CHECK_CUDA(cudaLogsCurrent(&it, 0));
  cudaError_t st;
  size_t size = 0;
  std::string text = dump(&it, 4096, &st, &size);
  EXPECT(st == cudaSuccess && size == 0 && text.empty(), "nothing failed since Current: an empty dump (size 0)");

  EXPECT(fail_on_server(), "an impossible cudaMalloc fails");
  cudaLogIterator before = it;
  text = dump(&it, 4096, &st, &size);
  EXPECT(st == cudaSuccess && count_of(text, "[CUDA][E][cudaMalloc]") == 1 && size == text.size() && text.back() == '\n',
         "DumpToMemory after Current: the failed cudaMalloc's entry, in the driver's format, size the bytes written");
  EXPECT(it != before, "the iterator moves past what was dumped");
  text = dump(&it, 4096, &st, &size);
  EXPECT(st == cudaSuccess && size == 0, "a second dump from the moved iterator is empty");

  // rgpu's own refusal joins the same log.
  EXPECT(cudaLibraryGetManaged(nullptr, nullptr, nullptr, "none") == cudaErrorNotSupported,
         "an unsupported function is refused");
  cudaGetLastError();
  text = dump(&it, 4096, &st, &size);
  EXPECT(st == cudaSuccess && count_of(text, "[rgpu][E][cudaLibraryGetManaged] not supported by rgpu yet") == 1,
         "rgpu's refusal is an entry of the log");

  // Buffer sizes: five entries; room for all, for some, for none.
  for (int i = 0; i < 5; ++i) fail_on_server();
  cudaLogIterator probe = it;
  const std::string all = dump(&probe, 8192, &st, &size);
  EXPECT(st == cudaSuccess && count_of(all, "[cudaMalloc]") == 5, "five failures, five entries");
  const std::string newest = all.substr(all.rfind('\n', all.size() - 2) + 1);
  probe = it;
  const std::string fitting = dump(&probe, all.size() + 1, &st, &size);
  EXPECT(st == cudaSuccess && fitting == all, "a buffer of exactly the text and its NUL holds it all");
  probe = it;
  const std::string some = dump(&probe, all.size(), &st, &size);
  EXPECT(st == cudaSuccess && some.find("earlier log entries are not in this dump") != std::string::npos &&
             some.size() == size && size < all.size() && some.size() >= newest.size() &&
             some.compare(some.size() - newest.size(), newest.size(), newest) == 0 && probe != it,
         "a buffer one byte short: a note at the head, then the newest entries, the newest last");
  probe = it;
  size = 40;
  std::string tiny(40, '#');
  st = cudaLogsDumpToMemory(&probe, tiny.data(), &size, 0);
  cudaGetLastError();
  EXPECT(st == cudaErrorInvalidValue && size == 0 && probe == it, "room for no entry: cudaErrorInvalidValue, size 0, iterator kept");
  size = 64;
  EXPECT(cudaLogsDumpToMemory(&probe, nullptr, &size, 0) == cudaErrorInvalidValue &&
             cudaLogsDumpToMemory(&probe, tiny.data(), nullptr, 0) == cudaErrorInvalidValue,
         "DumpToMemory checks its buffer and size");
  cudaLogIterator bogus = it + 1000000;
  size = 64;
  EXPECT(cudaLogsDumpToMemory(&bogus, tiny.data(), &size, 0) == cudaErrorInvalidValue,
         "an iterator the log never gave is refused by the server");
  cudaGetLastError();
  const std::string everything = dump(nullptr, 32768, &st, &size);
  EXPECT(st == cudaSuccess && count_of(everything, "[cudaMalloc]") >= 6, "a null iterator dumps all the log holds");

  // DumpToFile: the entries since the iterator, in a file of the client's host.
  CHECK_CUDA(cudaLogsCurrent(&it, 0));
  fail_on_server();
  const std::string path = "/tmp/rgpu_error_logs_" + std::to_string(getpid()) + ".log";
  std::remove(path.c_str());
  EXPECT(cudaLogsDumpToFile(&it, nullptr, 0) == cudaErrorInvalidValue, "DumpToFile checks its path");
  cudaGetLastError();
  CHECK_CUDA(cudaLogsDumpToFile(&it, path.c_str(), 0));
  std::stringstream file;
  file << std::ifstream(path).rdbuf();
  std::remove(path.c_str());
  EXPECT(count_of(file.str(), "[CUDA][E][cudaMalloc]") == 1, "DumpToFile writes the entry to the client's file");

  // Callbacks: called with each new entry when a call fails, never for a success; unregister stops them.
  Heard heard;
  cudaLogsCallbackHandle handle = nullptr;
  EXPECT(cudaLogsRegisterCallback(nullptr, &heard, &handle) == cudaErrorInvalidValue, "a null callback is refused");
  cudaGetLastError();
  CHECK_CUDA(cudaLogsRegisterCallback(on_log, &heard, &handle));
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, 1 << 20));
  CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(heard.calls == 0, "no callback for successful calls (nor for errors before registration)");
  fail_on_server();
  EXPECT(heard.calls == 1 && heard.last.find("[CUDA][E][cudaMalloc]") != std::string::npos &&
             heard.level == cudaLogLevelError,
         "a failed call: the callback hears its entry before the call returns");
  cudaLibraryGetManaged(nullptr, nullptr, nullptr, "none");
  cudaGetLastError();
  EXPECT(heard.calls == 2 && heard.last.find("[rgpu][E][cudaLibraryGetManaged]") != std::string::npos,
         "rgpu's refusal reaches the callback too");
  CHECK_CUDA(cudaLogsUnregisterCallback(handle));
  fail_on_server();
  EXPECT(heard.calls == 2, "after unregistering, the callback hears nothing");
  EXPECT(cudaLogsUnregisterCallback(handle) == cudaErrorInvalidValue, "unregistering twice: cudaErrorInvalidValue");
  cudaGetLastError();
  return 0;
}

int notifications_without_slice() {
  Notified n;
  n.caller = std::this_thread::get_id();
  cudaAsyncCallbackHandle_t handle = nullptr;
  EXPECT(cudaDeviceRegisterAsyncNotification(99, on_notification, &n, &handle) == cudaErrorInvalidDevice,
         "registering on a device that does not exist: cudaErrorInvalidDevice");
  EXPECT(cudaDeviceRegisterAsyncNotification(0, nullptr, &n, &handle) == cudaErrorInvalidValue &&
             cudaDeviceRegisterAsyncNotification(0, on_notification, &n, nullptr) == cudaErrorInvalidValue,
         "a null callback or handle pointer: cudaErrorInvalidValue");
  CHECK_CUDA(cudaDeviceRegisterAsyncNotification(0, on_notification, &n, &handle));
  EXPECT(handle != nullptr, "registration gives a handle");
  EXPECT(cudaDeviceUnregisterAsyncNotification(0, reinterpret_cast<cudaAsyncCallbackHandle_t>(&n)) ==
             cudaErrorInvalidValue,
         "unregistering a handle never given: cudaErrorInvalidValue");
  EXPECT(cudaDeviceUnregisterAsyncNotification(-1, handle) == cudaErrorInvalidDevice,
         "unregistering on a device that does not exist: cudaErrorInvalidDevice");
  fail_on_server();
  EXPECT(!wait_for(n.calls, 1, 300), "without a slice there is no budget: a failed allocation notifies nothing");
  CHECK_CUDA(cudaDeviceUnregisterAsyncNotification(0, handle));
  EXPECT(cudaDeviceUnregisterAsyncNotification(0, handle) == cudaErrorInvalidValue,
         "unregistering twice: cudaErrorInvalidValue");
  cudaGetLastError();
  return 0;
}

int over_budget() {
  constexpr size_t kPast = size_t{64} << 20;
  size_t free_bytes = 0, slice = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &slice));  // a sliced session's total is its slice
  Notified n;
  n.caller = std::this_thread::get_id();
  cudaAsyncCallbackHandle_t handle = nullptr;
  CHECK_CUDA(cudaDeviceRegisterAsyncNotification(0, on_notification, &n, &handle));
  void* p = nullptr;
  EXPECT(cudaMalloc(&p, slice + kPast) == cudaErrorMemoryAllocation, "an allocation past the slice is refused");
  cudaGetLastError();
  EXPECT(wait_for(n.calls, 1, 5000), "the over-budget notification arrives");
  EXPECT(n.calls == 1 && n.type == cudaAsyncNotificationTypeOverBudget, "one notification, of type OverBudget");
  EXPECT(n.bytes >= kPast && n.bytes <= slice + kPast,
         "bytesOverBudget: how far past the slice the allocation would have gone");
  EXPECT(!n.on_caller_thread, "the callback runs on a thread of its own, not in the caller's call");
  CHECK_CUDA(cudaMalloc(&p, 1 << 20));
  CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaDeviceUnregisterAsyncNotification(0, handle));
  EXPECT(cudaMalloc(&p, slice + kPast) == cudaErrorMemoryAllocation, "past the slice again");
  cudaGetLastError();
  EXPECT(!wait_for(n.calls, 2, 300), "after unregistering, no notification");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "over_budget") == 0) return over_budget();
  if (int rc = logs()) return rc;
  return notifications_without_slice();
}

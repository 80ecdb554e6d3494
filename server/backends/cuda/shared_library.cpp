// dlopen() with a useful message when no candidate loads.
#include "server/backends/cuda/shared_library.h"

#include <dlfcn.h>

namespace rgpu::server::cuda {

Result<SharedLibrary> SharedLibrary::open(const std::vector<std::string>& candidates, std::string_view advice) {
  // One line, reasons first: callers show a status's first line to the client.
  std::string reasons;
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      SharedLibrary library;
      library.handle_ = handle;
      library.path_ = candidate;
      return library;
    }
    const char* why = dlerror();
    if (!reasons.empty()) reasons += "; ";
    reasons += why ? why : candidate + ": not loadable";
  }
  std::string message = "could not load ";
  message += candidates.empty() ? std::string("(no library named)") : candidates.front();
  message += " (" + reasons + "). ";
  message += advice;
  return RGPU_ERROR(kUnavailable, std::move(message));
}

void* SharedLibrary::symbol(const char* name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

std::vector<std::string> split_candidates(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    size_t colon = list.find(':');
    std::string_view item = list.substr(0, colon);
    if (!item.empty()) out.emplace_back(item);
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace rgpu::server::cuda

// Reader: parses the library's headers with libclang and returns the signature of every function
// they declare, in two passes (plain, and with CUDA_API_PER_THREAD_DEFAULT_STREAM for _ptds/_ptsz).
#pragma once

#include <string>
#include <vector>

#include "signature.h"

namespace rgpu::codegen {

struct ReaderOptions {
  std::vector<std::string> headers;       // e.g. cuda_runtime_api.h, included as <...>
  std::vector<std::string> include_dirs;  // -I (the CUDA include dir first)
  std::string resource_include;           // clang's own include dir (stddef.h)
  bool per_thread_pass = false;
};

// Returns false (with *error set) when a header does not parse.
bool read_signatures(const ReaderOptions& options, SignatureMap* out, std::string* error);

}  // namespace rgpu::codegen

// The versions of each driver entry point, for cuGetProcAddress: cudaTypedefs.h declares one
// PFN_<name>_v<version>[_ptds|_ptsz] typedef per ABI variant of <name> (the CUDA version that
// introduced it), and the library exports the variants as <name>, <name>_v2, <name>_v3, ... (plus
// the _ptds/_ptsz suffix) in the same order. Joining the two gives, for a name and a version, the
// export that a program compiled against that version expects.
#pragma once

#include <string>
#include <vector>

namespace rgpu::codegen {

struct ProcVersion {
  std::string name;         // what a program asks for: "cuMemAlloc"
  int version = 0;          // the CUDA version that introduced this variant (0: any version)
  bool per_thread = false;  // a _ptds/_ptsz variant (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
  std::string symbol;       // the export that answers: "cuMemAlloc_v2"
};

// `typedefs` is the text of cudaTypedefs.h. Every export gets at least one row (exports without a
// typedef answer at any version). Fails when a name's typedef versions and its exported variants
// do not pair up one to one (a new header whose naming this rule does not cover).
bool read_proc_versions(const std::string& typedefs, const std::vector<std::string>& exports,
                        std::vector<ProcVersion>* out, std::string* error);

}  // namespace rgpu::codegen

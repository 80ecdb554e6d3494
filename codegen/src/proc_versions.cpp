// Pairs cudaTypedefs.h's PFN versions with the exported variants (see proc_versions.h).
#include "proc_versions.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace rgpu::codegen {
namespace {

// The exported variants of `name` with `suffix` ("", "_ptds", "_ptsz"), oldest first: name,
// name_v2, name_v3, ...
std::vector<std::string> variants(const std::string& name, const std::string& suffix, const std::set<std::string>& exports) {
  std::vector<std::string> out;
  if (exports.count(name + suffix)) out.push_back(name + suffix);
  for (int v = 2; v < 10; ++v) {
    std::string s = name + "_v" + std::to_string(v) + suffix;
    if (exports.count(s)) out.push_back(s);
  }
  return out;
}

}  // namespace

bool read_proc_versions(const std::string& typedefs, const std::vector<std::string>& exports,
                        std::vector<ProcVersion>* out, std::string* error) {
  const std::set<std::string> exported(exports.begin(), exports.end());
  // (name, suffix) -> versions. The internal (pre-v2 ABI) typedefs sit under
  // __CUDA_API_VERSION_INTERNAL; reading the text rather than the preprocessed header keeps them.
  std::map<std::pair<std::string, std::string>, std::set<int>> versions;
  static const std::regex pfn(R"(\bPFN_(\w+?)_v(\d+)(_ptds|_ptsz)?\))");
  for (auto it = std::sregex_iterator(typedefs.begin(), typedefs.end(), pfn); it != std::sregex_iterator(); ++it)
    versions[{(*it)[1].str(), (*it)[3].str()}].insert(std::stoi((*it)[2].str()));

  std::set<std::string> covered;
  for (const auto& [key, vs] : versions) {
    const auto& [name, suffix] = key;
    std::vector<std::string> syms = variants(name, suffix, exported);
    if (syms.empty()) continue;  // a typedef of something this library does not export
    if (syms.size() != vs.size()) {
      *error = "cudaTypedefs.h has " + std::to_string(vs.size()) + " versions of " + name + suffix + " but the exports have " +
               std::to_string(syms.size()) + " variants; extend proc_versions.cpp's pairing rule";
      return false;
    }
    size_t i = 0;
    for (int v : vs) {
      out->push_back({name, v, !suffix.empty(), syms[i]});
      covered.insert(syms[i++]);
    }
  }
  for (const std::string& e : exports)
    if (!covered.count(e)) out->push_back({e, 0, false, e});
  std::sort(out->begin(), out->end(), [](const ProcVersion& a, const ProcVersion& b) {
    return std::tie(a.name, a.per_thread, a.version) < std::tie(b.name, b.per_thread, b.version);
  });
  return true;
}

}  // namespace rgpu::codegen

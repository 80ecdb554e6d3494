// Emitter: <lib>_coverage.md -- how every export is served, with counts per class.
#include <map>

#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

namespace {

std::string category(const Function& f) {
  switch (f.cls) {
    case CallClass::kUnsupported: return "unsupported";
    case CallClass::kLocal: return "local";
    case CallClass::kSync: return f.client_file ? "hand-written sync" : "forwarded sync";
    case CallClass::kAsync: return f.client_file ? "hand-written async" : "forwarded async";
  }
  return "?";
}

}  // namespace

std::string emit_coverage(const Model& m) {
  std::map<std::string, int> counts;
  for (const auto& f : m.functions) ++counts[category(f)];
  std::string s = "<!-- " + std::string(kStamp) + " -->\n# " + m.spec.library + " coverage (" + m.spec.soname + ")\n\n";
  s += "| class | functions |\n| --- | --- |\n";
  for (const char* c : {"forwarded sync", "forwarded async", "hand-written sync", "hand-written async", "local", "unsupported"}) {
    s += "| " + std::string(c) + " | " + std::to_string(counts[c]) + " |\n";
  }
  s += "| total | " + std::to_string(m.functions.size()) + " |\n\n";
  s += "| function | class | client | server | classified by |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& f : m.functions) {
    std::string client = f.client_file ? *f.client_file : f.generated_stub ? "generated" : "-";
    std::string server = f.server_file ? *f.server_file : f.generated_server ? "generated" : "-";
    s += "| " + f.name + " | " + category(f) + " | " + client + " | " + server + " | " + f.classified_by + " |\n";
  }
  return s;
}

}  // namespace rgpu::codegen

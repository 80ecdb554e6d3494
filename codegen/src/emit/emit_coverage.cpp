// Emitter: <lib>_coverage.md -- how every export is served, with counts per class.
#include <cstdio>
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
  // Exports no header declares are internals (their signatures are unknown, so they can only be
  // unsupported stubs): counted apart, so the public API's coverage reads on its own.
  size_t declared = 0, declared_unsupported = 0, undeclared_unsupported = 0;
  for (const auto& f : m.functions) {
    const bool unsupported = f.cls == CallClass::kUnsupported;
    if (f.declared()) ++declared, declared_unsupported += unsupported;
    else undeclared_unsupported += unsupported;
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.1f", declared ? 100.0 * static_cast<double>(declared_unsupported) / static_cast<double>(declared) : 0.0);
  s += "Declared by the library's headers: " + std::to_string(declared) + " exports, " +
       std::to_string(declared_unsupported) + " of them unsupported (" + share + " %). Declared by none: " +
       std::to_string(m.functions.size() - declared) + ", " + std::to_string(undeclared_unsupported) +
       " of them unsupported (internals: no header gives their signatures).\n\n";
  s += "| function | class | client | server | classified by |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& f : m.functions) {
    std::string client = f.client_file ? *f.client_file : f.generated_stub ? "generated" : "-";
    std::string server = f.server_file ? *f.server_file : f.generated_server ? "generated" : "-";
    s += "| " + f.name + " | " + category(f) + " | " + client + " | " + server + " | " + f.classified_by + " |\n";
  }
  return s;
}

}  // namespace rgpu::codegen

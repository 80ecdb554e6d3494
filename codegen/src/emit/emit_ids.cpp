// Emitter: <lib>_ids.h -- call ids, the API hash, call names and the blocking set.
#include <cstdio>

#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_ids(const Model& m) {
  std::string s = cpp_banner("Call ids of " + m.spec.library + " (FNV-1a-32 of the name), the API hash, names, blocking calls.");
  s += "#pragma once\n\n#include <cstdint>\n\nnamespace " + gen_namespace(m) + " {\n\n";
  s += "enum CallId : uint32_t {\n";
  size_t count = 0;
  for (const auto& f : m.functions) {
    if (!f.has_server) continue;
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08xu", f.id);
    s += "  " + id_name(f) + " = " + hex + ",\n";
    ++count;
  }
  s += "};\n\n";
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llxull", static_cast<unsigned long long>(m.api_hash));
  s += "// Changes whenever a marshalled signature, a class or a side changes; peers compare it at hello.\n";
  s += "inline constexpr uint64_t kApiHash = " + std::string(hash) + ";\n";
  s += "inline constexpr uint32_t kCallCount = " + std::to_string(count) + ";\n";
  s += "inline constexpr uint32_t kCallIds[kCallCount] = {\n";
  for (const auto& f : m.functions) {
    if (f.has_server) s += "    " + id_name(f) + ",\n";
  }
  s += "};\n\n";
  s += "// The function name of a call id, or \"(unknown call)\" for an id this library does not know\n"
       "// (never null: it goes straight into messages about peer input).\n";
  s += "inline const char* call_name(uint32_t id) {\n  switch (id) {\n";
  for (const auto& f : m.functions) {
    if (f.has_server) s += "    case " + id_name(f) + ": return \"" + f.name + "\";\n";
  }
  s += "    default: return \"(unknown call)\";\n  }\n}\n\n";
  s += "// Whether this library has a call with this id (the session routes calls by it).\n";
  s += "inline bool has_call(uint32_t id) {\n  switch (id) {\n";
  for (const auto& f : m.functions) {
    if (f.has_server) s += "    case " + id_name(f) + ":\n";
  }
  s += "      return true;\n    default:\n      return false;\n  }\n}\n\n";
  s += "// Calls that wait on the GPU; the server runs them on a helper thread.\n";
  s += "inline bool is_blocking(uint32_t id) {\n  switch (id) {\n";
  for (const auto& f : m.functions) {
    if (f.has_server && f.blocking) s += "    case " + id_name(f) + ":\n";
  }
  s += "      return true;\n    default:\n      return false;\n  }\n}\n\n";
  s += "// Calls of class async: their generated stubs post without waiting. Hand-written code and\n"
       "// remote:: forwarders may still wait, so a reply is owed whenever the client asks for one.\n";
  s += "inline bool is_async(uint32_t id) {\n  switch (id) {\n";
  for (const auto& f : m.functions) {
    if (f.has_server && f.cls == CallClass::kAsync) s += "    case " + id_name(f) + ":\n";
  }
  s += "      return true;\n    default:\n      return false;\n  }\n}\n\n";
  s += "}  // namespace " + gen_namespace(m) + "\n";
  return s;
}

}  // namespace rgpu::codegen

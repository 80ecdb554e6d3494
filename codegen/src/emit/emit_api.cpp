// Emitter: <lib>_api.h/.cpp -- the table of real entry points the server calls, and its loader.
#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_api_header(const Model& m) {
  std::string s = cpp_banner("The " + m.spec.library + " entry points the server calls (filled from the backend's library by load_api).");
  s += "#pragma once\n\n" + include_lines(m) + "\nnamespace " + gen_namespace(m) + " {\n\n";
  s += "// One pointer per function with a server side; null when the backend lacks it.\n";
  s += "struct Api {\n";
  for (const auto& f : m.functions) {
    if (!f.in_api) continue;
    s += "  " + f.sig->result.spelling + " (*" + f.name + ")(" + param_list(*f.sig, false) + ") = nullptr;\n";
  }
  s += "};\n\n";
  s += "// Fills every entry by name through `resolve` (e.g. dlsym); names it does not know stay null.\n";
  s += "void load_api(Api& api, void* (*resolve)(const char* name, void* ctx), void* ctx);\n\n";
  s += "}  // namespace " + gen_namespace(m) + "\n";
  return s;
}

std::string emit_api_source(const Model& m) {
  std::string s = cpp_banner("Loader of the " + m.spec.library + " Api table.");
  s += gen_include(m, "_api.h") + "\nnamespace " + gen_namespace(m) + " {\n\n";
  s += "void load_api(Api& api, void* (*resolve)(const char* name, void* ctx), void* ctx) {\n";
  for (const auto& f : m.functions) {
    if (!f.in_api) continue;
    s += "  api." + f.name + " = reinterpret_cast<decltype(api." + f.name + ")>(resolve(\"" + f.name + "\", ctx));\n";
  }
  s += "}\n\n}  // namespace " + gen_namespace(m) + "\n";
  return s;
}

}  // namespace rgpu::codegen

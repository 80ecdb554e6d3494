// Emitter: <lib>_decls.h (declarations the plain headers lack: the per-thread variants) and
// <lib>_remote.h (the generated forwarders hand-written client code may call).
#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_decls(const Model& m) {
  std::string s = cpp_banner("Declarations of the " + m.spec.library +
                             " exports that only the per-thread-default-stream headers declare.");
  s += "#pragma once\n\n" + include_lines(m) + "\nextern \"C\" {\n";
  for (const auto& f : m.functions) {
    if (f.variant()) s += f.sig->result.spelling + " " + f.name + "(" + param_list(*f.sig, true) + ");\n";
  }
  s += "}\n";
  return s;
}

std::string emit_remote_header(const Model& m) {
  std::string s = cpp_banner("Generated forwarders of " + m.spec.library +
                             ": marshal the call, send it, return the server's status (no last-error bookkeeping).");
  s += "#pragma once\n\n" + include_lines(m) + gen_include(m, "_decls.h") + "\nnamespace " + gen_namespace(m) +
       "::remote {\n\n";
  for (const auto& f : m.functions) {
    if ((f.generated_stub && f.cls != CallClass::kUnsupported) || f.remote_forwarder) {
      s += m.spec.status.type + " " + f.name + "(" + forwarder_params(f) + ");" +
           (f.cls == CallClass::kAsync ? "  // async: posts without waiting" : "") + "\n";
    }
  }
  s += "\n}  // namespace " + gen_namespace(m) + "::remote\n";
  return s;
}

}  // namespace rgpu::codegen

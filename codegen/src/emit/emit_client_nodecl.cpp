// Emitter: <lib>_client_nodecl.cpp -- exports no parsed header declares: unsupported stubs, and
// references to the hand-written ones (declared here with a placeholder C signature).
#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_client_nodecl(const Model& m) {
  std::string s = cpp_banner("Client exports of " + m.spec.library + " that no parsed header declares.");
  s += include_lines(m) + "\n#include \"client/runtime/call.h\"\n";
  if (!m.spec.status.finish_header.empty()) s += "#include \"" + m.spec.status.finish_header + "\"\n";
  s += "#include \"codegen/support/gen_marshal.h\"\n\n";
  // A header may map an old name to its successor by macro (cuda.h: cuMemAlloc -> cuMemAlloc_v2);
  // the export meant here is the old name itself.
  for (const auto& f : m.functions) {
    if (!f.declared() && (f.client_file || f.cls == CallClass::kUnsupported)) s += "#undef " + f.name + "\n";
  }
  s += "\n";
  std::string refs;
  s += "// Hand-written elsewhere; only their addresses are taken here.\nextern \"C\" {\n";
  for (const auto& f : m.functions) {
    if (f.declared() || !f.client_file) continue;
    s += "void " + f.name + "();  // " + m.spec.client_dir + "/" + *f.client_file + "\n";
    refs += "    reinterpret_cast<void*>(&::" + f.name + "),\n";
  }
  s += "}\n\n";
  s += "// The callers' signatures are unknown here; every one of these returns " + m.spec.status.type + ".\n";
  for (const auto& f : m.functions) {
    if (!f.declared() && f.cls == CallClass::kUnsupported) s += unsupported_stub(m, f.name, m.spec.status.type, "");
  }
  s += "[[gnu::used]] static void* const kManualRefs[] = {\n" + refs + "    nullptr,\n};\n";
  return s;
}

}  // namespace rgpu::codegen

// Emitter: <lib>_proc_table.cpp -- the rows of cuGetProcAddress's table (codegen/support/proc_table.h),
// for a spec with `proc_address_typedefs`.
#include <set>

#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_proc_table(const Model& m) {
  std::string s = cpp_banner("Entry points of " + m.spec.library + " by name and version, for cuGetProcAddress.");
  s += "#include \"codegen/support/proc_table.h\"\n\n";
  // Only addresses are taken: a placeholder C signature keeps this file free of the headers.
  s += "extern \"C\" {\n";
  std::set<std::string> declared;
  for (const ProcVersion& p : m.proc_versions)
    if (declared.insert(p.symbol).second) s += "void " + p.symbol + "();\n";
  s += "}\n\nnamespace " + gen_namespace(m) + " {\nnamespace {\n\nconst ProcEntry kEntries[] = {\n";
  for (const ProcVersion& p : m.proc_versions)
    s += "    {\"" + p.name + "\", " + std::to_string(p.version) + ", " + (p.per_thread ? "true" : "false") + ", &::" +
         p.symbol + "},\n";
  s += "};\n\n}  // namespace\n\n";
  s += "extern const ProcTable kProcTable;\nconst ProcTable kProcTable{kEntries, sizeof kEntries / sizeof kEntries[0]};\n\n";
  s += "}  // namespace " + gen_namespace(m) + "\n";
  return s;
}

}  // namespace rgpu::codegen

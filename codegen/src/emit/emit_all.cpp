// The list of outputs of one library: file name -> emitter.
#include "emitters.h"

namespace rgpu::codegen {

std::vector<Output> emit_all(const Model& m) {
  const std::string& lib = m.spec.library;
  std::vector<Output> out{
      {lib + "_ids.h", emit_ids(m)},
      {lib + "_api.h", emit_api_header(m)},
      {lib + "_api.cpp", emit_api_source(m)},
      {lib + "_decls.h", emit_decls(m)},
      {lib + "_remote.h", emit_remote_header(m)},
      {lib + "_client.cpp", emit_client(m)},
      {lib + "_client_nodecl.cpp", emit_client_nodecl(m)},
      {lib + "_server.cpp", emit_server(m)},
      {lib + "_handlers.h", emit_handlers(m)},
      {lib + ".map", emit_version_script(m)},
      {lib + "_coverage.md", emit_coverage(m)},
  };
  if (!m.spec.proc_address_typedefs.empty()) out.push_back({lib + "_proc_table.cpp", emit_proc_table(m)});
  return out;
}

}  // namespace rgpu::codegen

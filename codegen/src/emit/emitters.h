// The emitters: one function per output file, each a pure function of the model.
#pragma once

#include <string>
#include <vector>

#include "../model.h"

namespace rgpu::codegen {

struct Output {
  std::string file;     // name inside the output directory
  std::string content;
};

std::string emit_ids(const Model& m);
std::string emit_api_header(const Model& m);
std::string emit_api_source(const Model& m);
std::string emit_decls(const Model& m);
std::string emit_remote_header(const Model& m);
std::string emit_client(const Model& m);
std::string emit_client_nodecl(const Model& m);
std::string emit_server(const Model& m);
std::string emit_handlers(const Model& m);
std::string emit_version_script(const Model& m);
std::string emit_coverage(const Model& m);
std::string emit_proc_table(const Model& m);  // only for a spec with proc_address_typedefs

// Every output of one library, named as in the README table.
std::vector<Output> emit_all(const Model& m);

}  // namespace rgpu::codegen

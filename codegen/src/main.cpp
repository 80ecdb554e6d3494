// rgpu-codegen: spec + headers -> generated client/server sources of one library.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "emit/emitters.h"
#include "model.h"
#include "reader.h"
#include "spec.h"

namespace {

const char* kUsage =
    "usage: rgpu-codegen --spec FILE.yaml --cuda-include DIR --out DIR [--clang-include DIR] [--include DIR]...\n";

// Writes only when the content differs, so unchanged outputs keep their timestamps.
bool write_if_changed(const std::filesystem::path& path, const std::string& content) {
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::stringstream old;
    old << in.rdbuf();
    if (old.str() == content) return true;
  }
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rgpu::codegen;
  std::string spec_path, out_dir;
  ReaderOptions ro;
  ro.resource_include = RGPU_CLANG_RESOURCE_INCLUDE;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "rgpu-codegen: %s needs a value\n%s", a.c_str(), kUsage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--spec") spec_path = value();
    else if (a == "--out") out_dir = value();
    else if (a == "--cuda-include" || a == "--include") ro.include_dirs.push_back(value());
    else if (a == "--clang-include") ro.resource_include = value();
    else {
      std::fprintf(stderr, "rgpu-codegen: unknown argument %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (spec_path.empty() || out_dir.empty() || ro.include_dirs.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }

  Spec spec;
  std::string error;
  if (!load_spec(spec_path, &spec, &error)) {
    std::fprintf(stderr, "rgpu-codegen: %s\n", error.c_str());
    return 1;
  }
  std::vector<std::string> exports;
  if (!read_exports(spec.exports_path, &exports, &error)) {
    std::fprintf(stderr, "rgpu-codegen: %s\n", error.c_str());
    return 1;
  }
  ro.headers = spec.headers;
  SignatureMap signatures;
  for (bool per_thread : {false, true}) {
    if (per_thread && !spec.per_thread_variants) break;
    ro.per_thread_pass = per_thread;
    if (!read_signatures(ro, &signatures, &error)) {
      std::fprintf(stderr, "rgpu-codegen: %s\n", error.c_str());
      return 1;
    }
  }
  Model model;
  std::vector<std::string> errors;
  if (!build_model(spec, exports, signatures, &model, &errors)) {
    for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
    std::fprintf(stderr, "rgpu-codegen: %zu error(s) in %s\n", errors.size(), spec_path.c_str());
    return 1;
  }
  if (!spec.proc_address_typedefs.empty()) {
    std::ifstream in(std::filesystem::path(ro.include_dirs.front()) / spec.proc_address_typedefs);
    std::stringstream text;
    text << in.rdbuf();
    if (!in || !read_proc_versions(text.str(), exports, &model.proc_versions, &error)) {
      std::fprintf(stderr, "rgpu-codegen: %s: %s\n", spec.proc_address_typedefs.c_str(),
                   in ? error.c_str() : "cannot read it in the first --cuda-include directory");
      return 1;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  for (const Output& o : emit_all(model)) {
    if (!write_if_changed(std::filesystem::path(out_dir) / o.file, o.content)) {
      std::fprintf(stderr, "rgpu-codegen: cannot write %s/%s\n", out_dir.c_str(), o.file.c_str());
      return 1;
    }
  }
  return 0;
}

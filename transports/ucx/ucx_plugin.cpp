// dlopen of librgpu_transport_ucx.so: RGPU_UCX_PLUGIN, else beside the module that holds this code
// (the shim libraries' folder), or in lib/rgpu/ of the prefix it lies in (rgpud and rgpu in bin/,
// rgpu-bench in libexec/rgpu/).
#include "transports/ucx/ucx_plugin.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#include "common/config.h"

namespace rgpu::transport::ucx {

namespace {

const Tunable kUcxPlugin{"RGPU_UCX_PLUGIN", "",
                         "path of librgpu_transport_ucx.so (ucx:// addresses, RGPU_TRANSPORT=ucx); empty: beside "
                         "rgpu's own libraries"};

constexpr const char* kLibrary = "librgpu_transport_ucx.so";

std::vector<std::string> candidates() {
  if (kUcxPlugin.is_set() && !kUcxPlugin.get().empty()) return {kUcxPlugin.get()};
  Dl_info self{};
  std::string folder;
  if (dladdr(reinterpret_cast<void*>(&candidates), &self) != 0 && self.dli_fname) {
    folder = self.dli_fname;
    folder.erase(folder.rfind('/') + 1);  // dli_fname of a loaded module always has a folder
  }
  return {folder + kLibrary, folder + "../lib/rgpu/" + kLibrary, folder + "../../lib/rgpu/" + kLibrary};
}

Result<const rgpu_ucx_ops*> load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      tried += std::string("\n  ") + dlerror();
      continue;
    }
    auto entry = reinterpret_cast<const rgpu_ucx_ops* (*)()>(dlsym(handle, RGPU_UCX_PLUGIN_ENTRY));
    const rgpu_ucx_ops* ops = entry ? entry() : nullptr;
    if (!ops || ops->abi != RGPU_UCX_PLUGIN_ABI)
      return RGPU_ERROR(kUnavailable, path + " is not this rgpu's UCX transport (another build?)");
    return ops;
  }
  return RGPU_ERROR(kUnavailable,
                    "the UCX transport cannot be loaded: it needs UCX (Debian: apt-get install libucx0) and rgpu's "
                    "librgpu_transport_ucx.so (or RGPU_UCX_PLUGIN=PATH); tried:" +
                        tried);
}

}  // namespace

Result<const rgpu_ucx_ops*> plugin() {
  // Loaded once; never unloaded (connections may outlive any one user).
  static const Result<const rgpu_ucx_ops*> loaded = load();
  return loaded;
}

}  // namespace rgpu::transport::ucx

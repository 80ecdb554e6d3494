// Module bookkeeping and lazy upload (see modules.h).
#include "client/runtime/modules.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>

#include "client/runtime/call.h"
#include "client/runtime/device.h"
#include "client/runtime/pipe.h"
#include "common/fatbin/fatbin.h"
#include "common/fatbin/mapped_memory.h"
#include "common/config.h"
#include "common/log.h"
#include "common/wire/control_generated.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client {

ModuleRegistry& ModuleRegistry::get() {
  static ModuleRegistry* r = new ModuleRegistry();  // registration calls run in static constructors
  return *r;
}

ModuleRecord* ModuleRegistry::add_module(const void* wrapper) {
  std::lock_guard<std::mutex> lock(mu_);
  auto m = std::make_unique<ModuleRecord>();
  m->wrapper = wrapper;
  m->id = next_id_++;
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

void ModuleRegistry::remove_module(ModuleRecord* m) {
  // Unregistration runs at process exit; the server drops the module with the session. Forget the
  // host addresses (a dlclose'd library's may be reused) but keep the record alive: another
  // thread may still hold a pointer into it.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = kernels_.begin(); it != kernels_.end();) it = it->second->module == m ? kernels_.erase(it) : ++it;
  for (auto it = vars_.begin(); it != vars_.end();) it = it->second->module == m ? vars_.erase(it) : ++it;
}

void ModuleRegistry::add_kernel(ModuleRecord* m, const void* host_fun, const char* device_name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto k = std::make_unique<KernelRecord>();
  k->module = m;
  k->name = device_name ? device_name : "";
  kernels_[host_fun] = k.get();
  kernels_[k.get()] = k.get();
  m->kernels.push_back(std::move(k));
}

void ModuleRegistry::add_var(ModuleRecord* m, const void* host_var, const char* device_name, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  auto v = std::make_unique<VarRecord>();
  v->module = m;
  v->name = device_name ? device_name : "";
  v->size = size;
  vars_[host_var] = v.get();
  m->vars.push_back(std::move(v));
}

ModuleRecord* ModuleRegistry::add_image_module(std::vector<uint8_t> image, const std::vector<std::string>& kernel_names) {
  std::lock_guard<std::mutex> lock(mu_);
  auto m = std::make_unique<ModuleRecord>();
  m->image = std::move(image);
  m->id = next_id_++;
  for (const std::string& name : kernel_names) {
    auto k = std::make_unique<KernelRecord>();
    k->module = m.get();
    k->name = name;
    kernels_[k.get()] = k.get();
    m->kernels.push_back(std::move(k));
  }
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

void ModuleRegistry::forget_uploads() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& m : modules_) {
    std::lock_guard<std::mutex> module_lock(m->load_mu);
    m->load_tried = false;
  }
}

KernelRecord* ModuleRegistry::kernel(const void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernels_.find(p);
  return it == kernels_.end() ? nullptr : it->second;
}

VarRecord* ModuleRegistry::var(const void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find(p);
  return it == vars_.end() ? nullptr : it->second;
}

namespace {

// The fatbin image to upload: the wrapper's container(s) reduced to the server GPU's slice.
Result<std::vector<uint8_t>> module_image(const void* wrapper, uint32_t arch) {
  RGPU_ASSIGN_OR_RETURN(std::vector<fatbin::Container> containers, fatbin::parse_wrapper(wrapper, &fatbin::readable_bytes_at));
  if (containers.empty()) return RGPU_ERROR(kInvalidArgument, "the fatbin holds no container");
  if (containers.size() > 1)
    RGPU_LOG_WARN("a relocatable-device-code fatbin lists %zu containers; uploading the first", containers.size());
  return fatbin::select_for_arch(containers.front(), arch);
}

// The image of a module given as one: a fatbin container reduced to the GPU's slice, else as is.
Result<std::vector<uint8_t>> given_image(const std::vector<uint8_t>& image, uint32_t arch) {
  const uint32_t magic = fatbin::kContainerMagic;
  if (image.size() < sizeof magic || std::memcmp(image.data(), &magic, sizeof magic) != 0) return image;
  RGPU_ASSIGN_OR_RETURN(fatbin::Container container, fatbin::parse_container(image));
  return fatbin::select_for_arch(container, arch);
}

const Tunable kByKeyFrom{"RGPU_MODULE_BY_KEY_KB", "64",
                         "module images at least this large (KiB) are first offered to rgpud's cache by key alone"};

// One ModuleLoad round trip; an empty image asks the server to use its cached copy.
bool request_load(const ModuleRecord& m, const fatbin::ContentHash& key, std::span<const uint8_t> image,
                  std::vector<uint8_t>* reply) {
  flatbuffers::FlatBufferBuilder fbb(image.size() + 4096);
  std::vector<flatbuffers::Offset<flatbuffers::String>> fnames, vnames;
  for (auto& k : m.kernels) fnames.push_back(fbb.CreateString(k->name));
  for (auto& v : m.vars) vnames.push_back(fbb.CreateString(v->name));
  auto req = wire::fb::CreateModuleLoad(fbb, fbb.CreateVector(key.data(), key.size()),
                                        fbb.CreateVector(image.data(), image.size()), m.id, fbb.CreateVector(fnames),
                                        fbb.CreateVector(vnames));
  fbb.Finish(req);
  trace_wait("rgpu's module upload");
  return Pipe::get().control_round_trip(static_cast<uint32_t>(wire::fb::ControlType::ModuleLoad),
                                        {fbb.GetBufferPointer(), fbb.GetSize()}, current_device(), reply);
}

// The status of a ModuleLoaded reply, or cudaErrorUnknown when the reply is malformed.
int32_t loaded_status(const std::vector<uint8_t>& reply) {
  flatbuffers::Verifier verifier(reply.data(), reply.size());
  if (!verifier.VerifyBuffer<wire::fb::ModuleLoaded>(nullptr)) return cudaErrorUnknown;
  return flatbuffers::GetRoot<wire::fb::ModuleLoaded>(reply.data())->status();
}

}  // namespace

int ModuleRegistry::load_device(ModuleRecord* m) {
  std::lock_guard<std::mutex> lock(m->load_mu);
  return m->load_tried && m->load_status == cudaSuccess ? m->device : current_device();
}

cudaError_t ModuleRegistry::ensure_loaded(ModuleRecord* m) {
  std::lock_guard<std::mutex> lock(m->load_mu);
  if (m->load_tried) return m->load_status;
  m->load_tried = true;
  Pipe& pipe = Pipe::get();
  if (!pipe.available()) return m->load_status = cudaErrorNoDevice;
  const auto& devices = pipe.welcome().devices;
  int dev = current_device();
  m->device = dev;
  if (dev < 0 || static_cast<size_t>(dev) >= devices.size()) return m->load_status = cudaErrorInvalidDevice;
  uint32_t arch = static_cast<uint32_t>(devices[static_cast<size_t>(dev)].major * 10 + devices[static_cast<size_t>(dev)].minor);

  auto image = m->wrapper ? module_image(m->wrapper, arch) : given_image(m->image, arch);
  if (!image.is_ok()) {
    std::fprintf(stderr, "rgpu: cannot read the device code registered by this program: %s\n",
                 image.status().message().c_str());
    return m->load_status = cudaErrorInvalidKernelImage;
  }

  // Large images go by key first: the server's module cache usually has them already.
  fatbin::ContentHash key = fatbin::content_hash(*image);
  std::vector<uint8_t> reply;
  bool by_key = image->size() >= static_cast<size_t>(kByKeyFrom.get_int()) * 1024;
  if (!request_load(*m, key, by_key ? std::span<const uint8_t>() : std::span<const uint8_t>(*image), &reply))
    return m->load_status = cudaErrorNoDevice;
  if (by_key && loaded_status(reply) == wire::kModuleImageNeeded &&
      !request_load(*m, key, *image, &reply))
    return m->load_status = cudaErrorNoDevice;
  flatbuffers::Verifier verifier(reply.data(), reply.size());
  if (!verifier.VerifyBuffer<wire::fb::ModuleLoaded>(nullptr)) return m->load_status = cudaErrorUnknown;
  auto* loaded = flatbuffers::GetRoot<wire::fb::ModuleLoaded>(reply.data());
  if (loaded->status() != cudaSuccess) return m->load_status = static_cast<cudaError_t>(loaded->status());
  auto* fns = loaded->functions();
  auto* vars = loaded->variables();
  if (!fns || fns->size() != m->kernels.size() || !vars || vars->size() != m->vars.size())
    return m->load_status = cudaErrorUnknown;
  for (size_t i = 0; i < m->kernels.size(); ++i) {
    KernelRecord& k = *m->kernels[i];
    k.server_id = (m->id << 20) | i;
    k.params.clear();
    k.args_size = 0;
    if (auto* ps = fns->Get(static_cast<flatbuffers::uoffset_t>(i))->params()) {
      for (auto* p : *ps) {
        k.params.push_back({p->offset(), p->size()});
        k.args_size = std::max(k.args_size, p->offset() + p->size());
      }
    }
  }
  for (size_t i = 0; i < m->vars.size(); ++i) {
    auto* v = vars->Get(static_cast<flatbuffers::uoffset_t>(i));
    m->vars[i]->address = v->address();
    if (v->size()) m->vars[i]->size = v->size();
  }
  return m->load_status = cudaSuccess;
}

}  // namespace rgpu::client

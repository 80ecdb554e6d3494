// CUDA arrays and mipmapped arrays on the client: made and freed on the server (their handles are
// client-made ids), recorded here so that cudaGetChannelDesc and cudaArrayGetInfo stay local and
// copies know an array's element size. A mipmap's levels and an array's planes are ids the client
// asks for once and keeps; they go with the array that owns them.
#include "client/runtime/arrays.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "common/wire/array_geometry.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace remote = gen::cudart::remote;

namespace {

struct MipmapRecord {
  ArrayRecord base;  // level 0's format and extent
  unsigned levels = 0;
};

class ArrayRegistry {
 public:
  static ArrayRegistry& get() {
    static ArrayRegistry* r = new ArrayRegistry;  // outlives static destructors that free arrays
    return *r;
  }

  std::optional<ArrayRecord> array(uint64_t id) {
    std::lock_guard lock(mu_);
    auto it = arrays_.find(id);
    if (it == arrays_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<MipmapRecord> mipmap(uint64_t id) {
    std::lock_guard lock(mu_);
    auto it = mipmaps_.find(id);
    if (it == mipmaps_.end()) return std::nullopt;
    return it->second;
  }
  void add_array(uint64_t id, const ArrayRecord& r) {
    std::lock_guard lock(mu_);
    arrays_[id] = r;
  }
  void add_mipmap(uint64_t id, const MipmapRecord& r) {
    std::lock_guard lock(mu_);
    mipmaps_[id] = r;
  }
  // The id already handed out for (owner, index): a mipmap level or a plane.
  uint64_t part(uint64_t owner, unsigned index) {
    std::lock_guard lock(mu_);
    auto it = parts_.find({owner, index});
    return it == parts_.end() ? 0 : it->second;
  }
  void add_part(uint64_t owner, unsigned index, uint64_t id, const ArrayRecord& r) {
    std::lock_guard lock(mu_);
    arrays_[id] = r;
    parts_[{owner, index}] = id;
  }
  // Forgets an array or mipmap and the parts it owns.
  void remove(uint64_t id) {
    std::lock_guard lock(mu_);
    arrays_.erase(id);
    mipmaps_.erase(id);
    std::erase_if(arrays_, [id](const auto& kv) { return kv.second.owner == id; });
    std::erase_if(parts_, [id](const auto& kv) { return kv.first.first == id; });
  }
  void forget_device(int device) {
    std::lock_guard lock(mu_);
    std::erase_if(arrays_, [device](const auto& kv) { return kv.second.device == device; });
    std::erase_if(mipmaps_, [device](const auto& kv) { return kv.second.base.device == device; });
    std::erase_if(parts_, [this](const auto& kv) { return !arrays_.count(kv.second); });
  }

 private:
  struct PartHash {
    size_t operator()(const std::pair<uint64_t, unsigned>& k) const { return std::hash<uint64_t>()(k.first * 64 + k.second); }
  };
  std::mutex mu_;
  std::unordered_map<uint64_t, ArrayRecord> arrays_;
  std::unordered_map<uint64_t, MipmapRecord> mipmaps_;
  std::unordered_map<std::pair<uint64_t, unsigned>, uint64_t, PartHash> parts_;
};

uint64_t id_of(const void* handle) { return reinterpret_cast<uint64_t>(handle); }

ArrayRecord made(const cudaChannelFormatDesc* desc, const cudaExtent& extent, unsigned flags) {
  return ArrayRecord{*desc, extent, flags, current_device(), 0};
}

// A level or plane: asked of the server once (`ask` makes the id), then the same id every time.
template <typename Ask>
cudaError_t part_of(uint64_t owner, unsigned index, cudaArray_t* out, Ask&& ask) {
  if (uint64_t id = ArrayRegistry::get().part(owner, index)) {
    *out = reinterpret_cast<cudaArray_t>(id);
    return cudaSuccess;
  }
  cudaError_t st = ask();
  if (st != cudaSuccess) return cudart_finish(st);
  ArrayRecord r{};
  st = remote::cudaArrayGetInfo(&r.desc, &r.extent, &r.flags, *out);
  if (st != cudaSuccess) return cudart_finish(st);
  r.device = current_device();
  r.owner = owner;
  ArrayRegistry::get().add_part(owner, index, id_of(*out), r);
  return cudaSuccess;
}

}  // namespace

std::optional<ArrayRecord> find_array(cudaArray_const_t array) { return ArrayRegistry::get().array(id_of(array)); }

void forget_arrays(int device) { ArrayRegistry::get().forget_device(device); }

}  // namespace rgpu::client

using rgpu::client::ArrayRecord;
using rgpu::client::ArrayRegistry;
using rgpu::client::cudart_finish;
namespace remote = rgpu::gen::cudart::remote;

extern "C" cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

extern "C" cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  if (!desc) return cudart_finish(cudaErrorInvalidValue);
  auto r = rgpu::client::find_array(array);
  if (!r) return cudart_finish(cudaErrorInvalidResourceHandle);
  *desc = r->desc;
  return cudaSuccess;
}

extern "C" cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                                        cudaArray_t array) {
  auto r = rgpu::client::find_array(array);
  if (!r) return cudart_finish(cudaErrorInvalidResourceHandle);
  if (desc) *desc = r->desc;
  if (extent) *extent = r->extent;
  if (flags) *flags = r->flags;
  return cudaSuccess;
}

extern "C" cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                                       size_t height, unsigned int flags) {
  if (!array || !desc) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st = remote::cudaMallocArray(array, desc, width, height, flags);
  if (st == cudaSuccess)
    ArrayRegistry::get().add_array(rgpu::client::id_of(*array), rgpu::client::made(desc, {width, height, 0}, flags));
  return cudart_finish(st);
}

extern "C" cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                         unsigned int flags) {
  if (!array || !desc) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st = remote::cudaMalloc3DArray(array, desc, extent, flags);
  if (st == cudaSuccess)
    ArrayRegistry::get().add_array(rgpu::client::id_of(*array), rgpu::client::made(desc, extent, flags));
  return cudart_finish(st);
}

namespace {

// Records the mipmapped array the server made at *made (st = its answer), and finishes the call.
// (`made` is read here, after the call that sets it: an argument of the call's own would not be.)
cudaError_t record_mipmap(cudaError_t st, const cudaMipmappedArray_t* made, const cudaChannelFormatDesc& desc,
                          cudaExtent extent, unsigned numLevels, unsigned flags) {
  if (st == cudaSuccess) {
    // CUDA clamps the level count to the full chain of the extent.
    unsigned levels = std::clamp(numLevels, 1u, rgpu::mip_level_count(extent));
    ArrayRegistry::get().add_mipmap(rgpu::client::id_of(*made), {rgpu::client::made(&desc, extent, flags), levels});
  }
  return cudart_finish(st);
}

}  // namespace

extern "C" cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* mipmappedArray, const cudaChannelFormatDesc* desc,
                                                cudaExtent extent, unsigned int numLevels, unsigned int flags) {
  if (!mipmappedArray || !desc) return cudart_finish(cudaErrorInvalidValue);
  return record_mipmap(remote::cudaMallocMipmappedArray(mipmappedArray, desc, extent, numLevels, flags),
                       mipmappedArray, *desc, extent, numLevels, flags);
}

// A mipmapped array over imported external memory (external_resources.cpp) is an array like any.
extern "C" cudaError_t cudaExternalMemoryGetMappedMipmappedArray(cudaMipmappedArray_t* mipmap,
                                                                 cudaExternalMemory_t extMem,
                                                                 const cudaExternalMemoryMipmappedArrayDesc* mipmapDesc) {
  if (!mipmap || !mipmapDesc) return cudart_finish(cudaErrorInvalidValue);
  return record_mipmap(remote::cudaExternalMemoryGetMappedMipmappedArray(mipmap, extMem, mipmapDesc), mipmap,
                       mipmapDesc->formatDesc, mipmapDesc->extent, mipmapDesc->numLevels, mipmapDesc->flags);
}

extern "C" cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                                  unsigned int level) {
  if (!levelArray) return cudart_finish(cudaErrorInvalidValue);
  auto m = ArrayRegistry::get().mipmap(rgpu::client::id_of(mipmappedArray));
  if (!m) return cudart_finish(cudaErrorInvalidResourceHandle);
  if (level >= m->levels) return cudart_finish(cudaErrorInvalidValue);
  return rgpu::client::part_of(rgpu::client::id_of(mipmappedArray), level, levelArray, [&] {
    return remote::cudaGetMipmappedArrayLevel(levelArray, mipmappedArray, level);
  });
}

extern "C" cudaError_t cudaArrayGetPlane(cudaArray_t* pPlaneArray, cudaArray_t hArray, unsigned int planeIdx) {
  if (!pPlaneArray) return cudart_finish(cudaErrorInvalidValue);
  if (!rgpu::client::find_array(hArray)) return cudart_finish(cudaErrorInvalidResourceHandle);
  return rgpu::client::part_of(rgpu::client::id_of(hArray), planeIdx, pPlaneArray,
                               [&] { return remote::cudaArrayGetPlane(pPlaneArray, hArray, planeIdx); });
}

// Freed without waiting: the client knows its arrays, so an unknown one fails here, and one that
// belongs to a mipmapped array (a level) cannot be freed on its own.
extern "C" cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array) return cudaSuccess;
  auto r = rgpu::client::find_array(array);
  if (!r) return cudart_finish(cudaErrorInvalidResourceHandle);
  if (r->owner) return cudart_finish(cudaErrorInvalidValue);
  ArrayRegistry::get().remove(rgpu::client::id_of(array));
  return cudart_finish(remote::cudaFreeArray(array));
}

extern "C" cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
  if (!mipmappedArray) return cudaSuccess;
  if (!ArrayRegistry::get().mipmap(rgpu::client::id_of(mipmappedArray)))
    return cudart_finish(cudaErrorInvalidResourceHandle);
  ArrayRegistry::get().remove(rgpu::client::id_of(mipmappedArray));
  return cudart_finish(remote::cudaFreeMipmappedArray(mipmappedArray));
}

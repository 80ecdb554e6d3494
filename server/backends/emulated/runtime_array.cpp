// Emulated CUDA Runtime: CUDA arrays, mipmapped arrays, and texture and surface objects. An array
// is device memory holding its elements row after row (what copies need: no texture layout is
// modelled); a mipmapped array owns one such array per level. Texture and surface objects are
// opaque values naming a checked resource: kernels are not run here, so nothing samples them.
#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/wire/array_geometry.h"
#include "server/backends/emulated/arrays.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Array {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};  // as created (0 for an absent height or depth)
  unsigned flags = 0;
  ArrayLayout layout;
  const void* owner = nullptr;  // the mipmapped array of a level
};

struct Mipmap {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};
  unsigned flags = 0;
  std::vector<Array*> levels;
};

// Handles are the addresses of these records; every use looks them up first.
class Arrays {
 public:
  static Arrays& get() {
    static Arrays* a = new Arrays;
    return *a;
  }

  std::mutex mu;
  std::unordered_map<const void*, std::unique_ptr<Array>> arrays;
  std::unordered_map<const void*, std::unique_ptr<Mipmap>> mipmaps;
  std::unordered_set<unsigned long long> objects;  // live texture and surface objects
  unsigned long long next_object = 1;
};

// A new array of `extent` (with mu held): its memory from the current device.
cudaError_t make_array(const cudaChannelFormatDesc* desc, const cudaExtent& extent, unsigned flags, const void* owner,
                       Array** out) {
  if (!desc) return cudaErrorInvalidValue;
  size_t elem = channel_bytes(*desc);
  if (!elem) return cudaErrorInvalidChannelDescriptor;
  if (extent.width == 0 || (extent.height == 0 && extent.depth != 0)) return cudaErrorInvalidValue;
  int device = current_device();
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  auto a = std::make_unique<Array>();
  a->desc = *desc;
  a->extent = extent;
  a->flags = flags;
  a->owner = owner;
  a->layout = ArrayLayout{nullptr, elem, extent.width, std::max<size_t>(extent.height, 1),
                          std::max<size_t>(extent.depth, 1), device};
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(uint64_t{elem}, extent.width, &bytes) ||
      __builtin_mul_overflow(bytes, a->layout.height, &bytes) || __builtin_mul_overflow(bytes, a->layout.depth, &bytes))
    return cudaErrorMemoryAllocation;
  if (cudaError_t err = state().memory.allocate(device, bytes, &a->layout.memory); err != cudaSuccess) return err;
  *out = a.get();
  Arrays::get().arrays[a.get()] = std::move(a);
  return cudaSuccess;
}

// Frees an array's memory and forgets it (mu held).
void drop_array(const void* handle) {
  auto& arrays = Arrays::get().arrays;
  auto it = arrays.find(handle);
  if (it == arrays.end()) return;
  (void)state().memory.free(it->second->layout.memory);
  arrays.erase(it);
}

cudaError_t check_resource(const cudaResourceDesc* r, bool surface) {
  if (!r) return cudaErrorInvalidValue;
  Arrays& t = Arrays::get();
  switch (r->resType) {
    case cudaResourceTypeArray: {
      auto it = t.arrays.find(r->res.array.array);
      if (it == t.arrays.end()) return cudaErrorInvalidResourceHandle;
      // Any array takes a surface object: CUDA documents cudaArraySurfaceLoadStore as needed, but the
      // driver does not check it at creation (H100, driver 580, 2026-12-05), so neither does this.
      return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray:
      if (surface) return cudaErrorInvalidValue;
      return t.mipmaps.count(r->res.mipmap.mipmap) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    case cudaResourceTypeLinear:
      if (surface) return cudaErrorInvalidValue;
      return state().memory.find(r->res.linear.devPtr, r->res.linear.sizeInBytes) ? cudaSuccess
                                                                                    : cudaErrorInvalidValue;
    case cudaResourceTypePitch2D: {
      if (surface) return cudaErrorInvalidValue;
      uint64_t bytes = 0;
      if (__builtin_mul_overflow(uint64_t{r->res.pitch2D.pitchInBytes}, r->res.pitch2D.height, &bytes))
        return cudaErrorInvalidValue;
      return state().memory.find(r->res.pitch2D.devPtr, bytes) ? cudaSuccess : cudaErrorInvalidValue;
    }
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t create_object(unsigned long long* out, const cudaResourceDesc* r, bool surface) {
  if (!out) return cudaErrorInvalidValue;
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  if (cudaError_t err = check_resource(r, surface); err != cudaSuccess) return err;
  *out = t.next_object++;
  t.objects.insert(*out);
  return cudaSuccess;
}

cudaError_t destroy_object(unsigned long long object) {
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  return t.objects.erase(object) ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace

bool array_layout(cudaArray_const_t array, ArrayLayout* out) {
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto it = t.arrays.find(array);
  if (it == t.arrays.end()) return false;
  *out = it->second->layout;
  return true;
}

cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  return emulated::cudaMalloc3DArray(array, desc, cudaExtent{width, height, 0}, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                              unsigned int flags) {
  if (!array) return cudaErrorInvalidValue;
  std::lock_guard lock(Arrays::get().mu);
  Array* a = nullptr;
  if (cudaError_t err = make_array(desc, extent, flags, nullptr, &a); err != cudaSuccess) return err;
  *array = reinterpret_cast<cudaArray_t>(a);
  return cudaSuccess;
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* mipmappedArray, const struct cudaChannelFormatDesc* desc,
                                     struct cudaExtent extent, unsigned int numLevels, unsigned int flags) {
  if (!mipmappedArray || !desc) return cudaErrorInvalidValue;
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto m = std::make_unique<Mipmap>();
  m->desc = *desc;
  m->extent = extent;
  m->flags = flags;
  unsigned levels = std::clamp(numLevels, 1u, mip_level_count(extent));
  for (unsigned l = 0; l < levels; ++l) {
    Array* a = nullptr;
    if (cudaError_t err = make_array(desc, mip_level_extent(extent, l), flags, m.get(), &a); err != cudaSuccess) {
      for (Array* made : m->levels) drop_array(made);
      return err;
    }
    m->levels.push_back(a);
  }
  *mipmappedArray = reinterpret_cast<cudaMipmappedArray_t>(m.get());
  t.mipmaps[m.get()] = std::move(m);
  return cudaSuccess;
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                       unsigned int level) {
  if (!levelArray) return cudaErrorInvalidValue;
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto it = t.mipmaps.find(mipmappedArray);
  if (it == t.mipmaps.end()) return cudaErrorInvalidResourceHandle;
  if (level >= it->second->levels.size()) return cudaErrorInvalidValue;
  *levelArray = reinterpret_cast<cudaArray_t>(it->second->levels[level]);
  return cudaSuccess;
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array) return cudaSuccess;
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto it = t.arrays.find(array);
  if (it == t.arrays.end()) return cudaErrorInvalidResourceHandle;
  if (it->second->owner) return cudaErrorInvalidValue;  // a level goes with its mipmapped array
  drop_array(array);
  return cudaSuccess;
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
  if (!mipmappedArray) return cudaSuccess;
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto it = t.mipmaps.find(mipmappedArray);
  if (it == t.mipmaps.end()) return cudaErrorInvalidResourceHandle;
  for (Array* level : it->second->levels) drop_array(level);
  t.mipmaps.erase(it);
  return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  Arrays& t = Arrays::get();
  std::lock_guard lock(t.mu);
  auto it = t.arrays.find(array);
  if (it == t.arrays.end()) return cudaErrorInvalidResourceHandle;
  if (desc) *desc = it->second->desc;
  if (extent) *extent = it->second->extent;
  if (flags) *flags = it->second->flags;
  return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc,
                                    const struct cudaResourceViewDesc* pResViewDesc) {
  (void)pResViewDesc;
  if (!pTexDesc) return cudaErrorInvalidValue;
  return create_object(pTexObject, pResDesc, false);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) { return destroy_object(texObject); }

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc) {
  return create_object(pSurfObject, pResDesc, true);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) { return destroy_object(surfObject); }

}  // namespace rgpu::server::emulated

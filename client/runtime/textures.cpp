// Texture and surface objects on the client. A kernel receives the object as a launch argument, so
// the value handed out is the server's own cudaTextureObject_t / cudaSurfaceObject_t: creating
// one is a round trip (the server puts its real arrays in place of the array ids the resource
// description names). What each object was made with is kept here, so the getters stay local and
// give back exactly what was set.
#include <cuda_runtime_api.h>

#include <mutex>
#include <optional>
#include <unordered_map>

#include "client/runtime/arrays.h"
#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {
namespace ids = gen::cudart;

struct ObjectRecord {
  cudaResourceDesc res{};
  cudaTextureDesc tex{};
  std::optional<cudaResourceViewDesc> view;
};

// Texture and surface objects share one table: CUDA draws both from the same space of values.
class ObjectRegistry {
 public:
  static ObjectRegistry& get() {
    static ObjectRegistry* r = new ObjectRegistry;  // outlives static destructors that destroy objects
    return *r;
  }
  void add(uint64_t object, ObjectRecord r) {
    std::lock_guard lock(mu_);
    objects_[object] = std::move(r);
  }
  std::optional<ObjectRecord> find(uint64_t object) {
    std::lock_guard lock(mu_);
    auto it = objects_.find(object);
    if (it == objects_.end()) return std::nullopt;
    return it->second;
  }
  void remove(uint64_t object) {
    std::lock_guard lock(mu_);
    objects_.erase(object);
  }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, ObjectRecord> objects_;
};

// A resource naming an array this client does not know fails here, as the server would.
bool known_resource(const cudaResourceDesc& r) {
  if (r.resType == cudaResourceTypeArray) return find_array(r.res.array.array).has_value();
  return true;
}

// cudaCreateTextureObject (tex set) or cudaCreateSurfaceObject: the reply is the server's value.
cudaError_t create_object(uint32_t id, uint64_t* object, const cudaResourceDesc* res, const cudaTextureDesc* tex,
                          const cudaResourceViewDesc* view) {
  if (!object || !res || (id == ids::k_cudaCreateTextureObject && !tex)) return cudart_finish(cudaErrorInvalidValue);
  if (!known_resource(*res)) return cudart_finish(cudaErrorInvalidResourceHandle);
  Call call(id, CallClass::kSync);
  call.args().put(*res);
  if (tex) {
    call.args().put(*tex);
    call.args().put<uint8_t>(view != nullptr);
    if (view) call.args().put(*view);
  }
  int32_t st = call.invoke();
  if (st == kStatusUnavailable) return cudart_finish(cudaErrorNoDevice);
  if (st != cudaSuccess) return cudart_finish(static_cast<cudaError_t>(st));
  uint64_t value = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudart_finish(cudaErrorUnknown);
  ObjectRecord r{*res, tex ? *tex : cudaTextureDesc{}, view ? std::optional(*view) : std::nullopt};
  ObjectRegistry::get().add(value, std::move(r));
  *object = value;
  return cudaSuccess;
}

// A getter's record, or the status for an unknown object.
template <typename Fn>
cudaError_t with_record(uint64_t object, void* out, Fn&& fn) {
  if (!out) return cudart_finish(cudaErrorInvalidValue);
  auto r = ObjectRegistry::get().find(object);
  if (!r) return cudart_finish(cudaErrorInvalidValue);
  return fn(*r);
}

}  // namespace
}  // namespace rgpu::client

using rgpu::client::cudart_finish;
using rgpu::client::ObjectRecord;
using rgpu::client::ObjectRegistry;
namespace ids = rgpu::gen::cudart;
namespace remote = rgpu::gen::cudart::remote;

extern "C" cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const cudaResourceDesc* pResDesc,
                                               const cudaTextureDesc* pTexDesc,
                                               const cudaResourceViewDesc* pResViewDesc) {
  return rgpu::client::create_object(ids::k_cudaCreateTextureObject, reinterpret_cast<uint64_t*>(pTexObject),
                                     pResDesc, pTexDesc, pResViewDesc);
}

extern "C" cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const cudaResourceDesc* pResDesc) {
  return rgpu::client::create_object(ids::k_cudaCreateSurfaceObject, reinterpret_cast<uint64_t*>(pSurfObject),
                                     pResDesc, nullptr, nullptr);
}

// Destroyed without waiting: the client knows its objects.
extern "C" cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  if (!texObject) return cudaSuccess;
  if (!ObjectRegistry::get().find(texObject)) return cudart_finish(cudaErrorInvalidValue);
  ObjectRegistry::get().remove(texObject);
  return cudart_finish(remote::cudaDestroyTextureObject(texObject));
}

extern "C" cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  if (!surfObject) return cudaSuccess;
  if (!ObjectRegistry::get().find(surfObject)) return cudart_finish(cudaErrorInvalidValue);
  ObjectRegistry::get().remove(surfObject);
  return cudart_finish(remote::cudaDestroySurfaceObject(surfObject));
}

extern "C" cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* pResDesc, cudaTextureObject_t texObject) {
  return rgpu::client::with_record(texObject, pResDesc, [&](const ObjectRecord& r) {
    *pResDesc = r.res;
    return cudaSuccess;
  });
}

extern "C" cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject) {
  return rgpu::client::with_record(texObject, pTexDesc, [&](const ObjectRecord& r) {
    *pTexDesc = r.tex;
    return cudaSuccess;
  });
}

// An object made without a view has none to give (the driver's cuTexObjectGetResourceViewDesc
// answers CUDA_ERROR_INVALID_VALUE then too).
extern "C" cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc* pResViewDesc,
                                                            cudaTextureObject_t texObject) {
  return rgpu::client::with_record(texObject, pResViewDesc, [&](const ObjectRecord& r) {
    if (!r.view) return cudart_finish(cudaErrorInvalidValue);
    *pResViewDesc = *r.view;
    return cudaSuccess;
  });
}

extern "C" cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* pResDesc, cudaSurfaceObject_t surfObject) {
  return rgpu::client::with_record(surfObject, pResDesc, [&](const ObjectRecord& r) {
    *pResDesc = r.res;
    return cudaSuccess;
  });
}

// DescriptorCache: real legacy descriptors built from client records with the backend's cuDNN.
#include "server/session/cudnn_descriptor_cache.h"

#include "gen/cudnn/cudnn_api.h"

namespace rgpu::server::cudnn {
namespace {

// Finds the record's descriptor in `map`, or creates one, sets it with `set` and keeps it. A
// descriptor cuDNN refuses to set is destroyed, not kept.
template <typename Desc, typename Create, typename Destroy, typename Set>
cudnnStatus_t find_or_build(std::map<std::string, Desc, std::less<>>& map, std::string_view key, Create create,
                            Destroy destroy, Set set, Desc* out) {
  auto it = map.find(key);
  if (it != map.end()) {
    *out = it->second;
    return CUDNN_STATUS_SUCCESS;
  }
  if (!create || !destroy) return CUDNN_STATUS_NOT_SUPPORTED;
  Desc d{};
  cudnnStatus_t status = create(&d);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  status = set(d);
  if (status != CUDNN_STATUS_SUCCESS) {
    destroy(d);
    return status;
  }
  map.emplace(std::string(key), d);
  *out = d;
  return CUDNN_STATUS_SUCCESS;
}

template <typename Desc, typename Destroy>
void drop_if_full(std::map<std::string, Desc, std::less<>>& map, Destroy destroy) {
  if (map.size() <= DescriptorCache::kLimit) return;
  for (auto& [key, d] : map) destroy(d);
  map.clear();
}

}  // namespace

cudnnStatus_t DescriptorCache::tensor(const gen::cudnn::Api& api, const wire::cudnn::TensorRecord& r,
                                      cudnnTensorDescriptor_t* out) {
  return find_or_build(
      tensors_, key(r), api.cudnnCreateTensorDescriptor, api.cudnnDestroyTensorDescriptor,
      [&](cudnnTensorDescriptor_t d) {
        if (!api.cudnnSetTensorNdDescriptor) return CUDNN_STATUS_NOT_SUPPORTED;
        return api.cudnnSetTensorNdDescriptor(d, static_cast<cudnnDataType_t>(r.data_type), r.nb_dims, r.dims,
                                              r.strides);
      },
      out);
}

cudnnStatus_t DescriptorCache::filter(const gen::cudnn::Api& api, const wire::cudnn::FilterRecord& r,
                                      cudnnFilterDescriptor_t* out) {
  return find_or_build(
      filters_, key(r), api.cudnnCreateFilterDescriptor, api.cudnnDestroyFilterDescriptor,
      [&](cudnnFilterDescriptor_t d) {
        if (!api.cudnnSetFilterNdDescriptor) return CUDNN_STATUS_NOT_SUPPORTED;
        return api.cudnnSetFilterNdDescriptor(d, static_cast<cudnnDataType_t>(r.data_type),
                                              static_cast<cudnnTensorFormat_t>(r.format), r.nb_dims, r.dims);
      },
      out);
}

cudnnStatus_t DescriptorCache::convolution(const gen::cudnn::Api& api, const wire::cudnn::ConvolutionRecord& r,
                                           cudnnConvolutionDescriptor_t* out) {
  return find_or_build(
      convolutions_, key(r), api.cudnnCreateConvolutionDescriptor, api.cudnnDestroyConvolutionDescriptor,
      [&](cudnnConvolutionDescriptor_t d) {
        if (!api.cudnnSetConvolutionNdDescriptor || !api.cudnnSetConvolutionMathType ||
            !api.cudnnSetConvolutionGroupCount || !api.cudnnSetConvolutionReorderType)
          return CUDNN_STATUS_NOT_SUPPORTED;
        cudnnStatus_t s = api.cudnnSetConvolutionNdDescriptor(d, r.array_length, r.pads, r.strides, r.dilations,
                                                              static_cast<cudnnConvolutionMode_t>(r.mode),
                                                              static_cast<cudnnDataType_t>(r.compute_type));
        if (s == CUDNN_STATUS_SUCCESS) s = api.cudnnSetConvolutionMathType(d, static_cast<cudnnMathType_t>(r.math_type));
        if (s == CUDNN_STATUS_SUCCESS) s = api.cudnnSetConvolutionGroupCount(d, r.group_count);
        if (s == CUDNN_STATUS_SUCCESS)
          s = api.cudnnSetConvolutionReorderType(d, static_cast<cudnnReorderType_t>(r.reorder_type));
        return s;
      },
      out);
}

cudnnStatus_t DescriptorCache::activation(const gen::cudnn::Api& api, const wire::cudnn::ActivationRecord& r,
                                          cudnnActivationDescriptor_t* out) {
  return find_or_build(
      activations_, key(r), api.cudnnCreateActivationDescriptor, api.cudnnDestroyActivationDescriptor,
      [&](cudnnActivationDescriptor_t d) {
        if (!api.cudnnSetActivationDescriptor) return CUDNN_STATUS_NOT_SUPPORTED;
        cudnnStatus_t s = api.cudnnSetActivationDescriptor(d, static_cast<cudnnActivationMode_t>(r.mode),
                                                           static_cast<cudnnNanPropagation_t>(r.nan_opt), r.coef);
        // The swish beta matters only to swish (and older libraries may lack its setter).
        if (s == CUDNN_STATUS_SUCCESS && r.mode == CUDNN_ACTIVATION_SWISH) {
          s = api.cudnnSetActivationDescriptorSwishBeta ? api.cudnnSetActivationDescriptorSwishBeta(d, r.swish_beta)
                                                        : CUDNN_STATUS_NOT_SUPPORTED;
        }
        return s;
      },
      out);
}

void DescriptorCache::trim(const gen::cudnn::Api& api) {
  // The destroy entries exist whenever anything was cached (find_or_build requires them).
  drop_if_full(tensors_, [&](cudnnTensorDescriptor_t d) { api.cudnnDestroyTensorDescriptor(d); });
  drop_if_full(filters_, [&](cudnnFilterDescriptor_t d) { api.cudnnDestroyFilterDescriptor(d); });
  drop_if_full(convolutions_, [&](cudnnConvolutionDescriptor_t d) { api.cudnnDestroyConvolutionDescriptor(d); });
  drop_if_full(activations_, [&](cudnnActivationDescriptor_t d) { api.cudnnDestroyActivationDescriptor(d); });
}

DescriptorCache& descriptor_cache() {
  static DescriptorCache* cache = new DescriptorCache;  // lives as long as the worker process
  return *cache;
}

}  // namespace rgpu::server::cudnn

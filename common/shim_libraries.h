// The client libraries rgpu puts in place of NVIDIA's, under their real SONAMEs, in the order they
// are preloaded: cudart first, since the other shims send their calls down cudart's call pipe.
// `rgpu run` and the Kubernetes device plugin both preload exactly these.
#pragma once

namespace rgpu {

inline constexpr const char* kShimLibraries[] = {
    "libcudart.so.13", "libcublas.so.13", "libnvidia-ml.so.1", "libcublasLt.so.13", "libcuda.so.1",
    "libcudnn.so.9",   "libcurand.so.10", "libcufft.so.12",    "libcusparse.so.12", "libcusolver.so.12"};

}  // namespace rgpu

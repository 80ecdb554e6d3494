# Every dependency is a Debian 12 package (README lists them). CUDA is read for headers only on the
# client side: nothing NVIDIA-made is linked into the shims; the server dlopens the real libraries.
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)
find_program(FLATC flatc REQUIRED)
find_path(FLATBUFFERS_INCLUDE flatbuffers/flatbuffers.h REQUIRED)

if(NOT EXISTS "${RGPU_CUDA_ROOT}/include/cuda_runtime_api.h")
  message(FATAL_ERROR "CUDA headers not found in ${RGPU_CUDA_ROOT}/include: install the CUDA 13 toolkit or set RGPU_CUDA_ROOT")
endif()
add_library(rgpu_cuda_headers INTERFACE)
target_include_directories(rgpu_cuda_headers SYSTEM INTERFACE "${RGPU_CUDA_ROOT}/include")

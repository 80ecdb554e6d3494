// The emulated cuFFT (cufft.h): plans and their settings, transforms of the virtual device's memory
// by direct DFT, issued in the plan's stream, and one-GPU descriptors.
#include "server/backends/emulated/cufft.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// What every emulated plan asks for as its work area, so that callers' work-area handling runs.
constexpr size_t kWorkSize = 4096;

// One side of a transform's data: its embedding (the array the data sits in, dimension 0 unused),
// element stride, batch distance, and whether its elements are complex.
struct Layout {
  long long embed[3] = {0, 0, 0};
  long long stride = 1, dist = 0;
  bool complex = true;
};

struct Plan {
  bool made = false;
  int rank = 0;
  long long n[3] = {1, 1, 1};
  long long batch = 1;
  cufftType type = CUFFT_C2C;
  Layout in, out;
  cudaStream_t stream = nullptr;
};

HandleTable<cufftHandle, Plan>& plans() {
  static HandleTable<cufftHandle, Plan> table;
  return table;
}

bool real_input(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_output(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }
bool double_precision(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
bool known_type(int t) {
  return t == CUFFT_C2C || t == CUFFT_R2C || t == CUFFT_C2R || t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D;
}

// The logical extent of dimension d on a side: the complex side of a real transform keeps half of
// the last dimension (n/2 + 1), as cuFFT stores it.
long long extent(const Plan& p, int d, bool complex_side) {
  const bool half = complex_side && (real_input(p.type) || real_output(p.type)) && d == p.rank - 1;
  return half ? p.n[d] / 2 + 1 : p.n[d];
}

// The basic layout: packed, dimension after dimension, one batch after the other.
Layout basic_layout(const Plan& p, bool complex_side) {
  Layout l;
  l.complex = complex_side;
  l.dist = 1;
  for (int d = 0; d < p.rank; ++d) {
    l.embed[d] = extent(p, d, complex_side);
    l.dist *= l.embed[d];
  }
  return l;
}

long long offset_of(const Layout& l, int rank, const long long* index) {
  long long o = index[0];
  for (int d = 1; d < rank; ++d) o = o * l.embed[d] + index[d];
  return o * l.stride;
}

// Elements one batch of transforms spans on a side: the last element's offset plus one.
long long span_of(const Plan& p, const Layout& l, bool complex_side) {
  long long last[3] = {0, 0, 0};
  for (int d = 0; d < p.rank; ++d) last[d] = extent(p, d, complex_side) - 1;
  return (p.batch - 1) * l.dist + offset_of(l, p.rank, last) + 1;
}

// Bytes one side of a plan's transforms spans in memory.
uint64_t bytes_of(const Plan& p, const Layout& l) {
  const size_t real_bytes = double_precision(p.type) ? sizeof(double) : sizeof(float);
  return uint64_t(span_of(p, l, l.complex)) * real_bytes * (l.complex ? 2 : 1);
}

cufftResult make_plan(cufftHandle handle, int rank, const long long* n, const long long* inembed, long long istride,
                      long long idist, const long long* onembed, long long ostride, long long odist, cufftType type,
                      long long batch, size_t* work_size) {
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_VALUE;
  if (!known_type(type)) return CUFFT_INVALID_TYPE;
  if (batch < 1) return CUFFT_INVALID_SIZE;
  Plan p;
  p.rank = rank;
  p.type = type;
  p.batch = batch;
  for (int d = 0; d < rank; ++d) {
    if (n[d] < 1 || n[d] > (1 << 20)) return CUFFT_INVALID_SIZE;
    p.n[d] = n[d];
  }
  p.in = basic_layout(p, !real_input(type));
  p.out = basic_layout(p, !real_output(type));
  // With both embeddings given the strides and distances count; with either null, the basic layout.
  if (inembed && onembed) {
    for (auto [layout, embed, stride, dist] : {std::tuple{&p.in, inembed, istride, idist},
                                               std::tuple{&p.out, onembed, ostride, odist}}) {
      if (stride < 1 || dist < 0) return CUFFT_INVALID_VALUE;
      for (int d = 1; d < rank; ++d) {
        if (embed[d] < extent(p, d, layout->complex)) return CUFFT_INVALID_VALUE;
        layout->embed[d] = embed[d];
      }
      layout->stride = stride;
      layout->dist = dist;
    }
  }
  p.made = true;
  if (!plans().update(handle, [&](Plan& plan) {
        p.stream = plan.stream;
        plan = p;
      }))
    return CUFFT_INVALID_PLAN;
  if (work_size) *work_size = kWorkSize;
  return CUFFT_SUCCESS;
}

template <typename Int>
cufftResult make_plan_ints(cufftHandle handle, int rank, const Int* n, const Int* inembed, long long istride,
                           long long idist, const Int* onembed, long long ostride, long long odist, cufftType type,
                           long long batch, size_t* work_size) {
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_VALUE;
  long long n64[3], in64[3], on64[3];
  for (int d = 0; d < rank; ++d) {
    n64[d] = n[d];
    in64[d] = inembed ? inembed[d] : 0;
    on64[d] = onembed ? onembed[d] : 0;
  }
  return make_plan(handle, rank, n64, inembed ? in64 : nullptr, istride, idist, onembed ? on64 : nullptr, ostride,
                   odist, type, batch, work_size);
}

// cufftPlan*: a new plan that `make` makes, or none when making it fails.
template <typename Make>
cufftResult create_then(cufftHandle* plan, Make make) {
  if (!plan) return CUFFT_INVALID_VALUE;
  *plan = plans().create();
  const cufftResult r = make(*plan);
  if (r != CUFFT_SUCCESS) plans().destroy(*plan);
  return r;
}

// A plan of the basic layout.
cufftResult make_basic(cufftHandle plan, int rank, const long long* n, cufftType type, long long batch) {
  return make_plan(plan, rank, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, nullptr);
}

using Complex = std::complex<double>;

// One-dimensional DFTs along dimension `d` of a packed array of the plan's logical dimensions.
void dft_along(std::vector<Complex>& data, const long long* n, int rank, int d, int sign) {
  long long inner = 1, outer = 1;
  for (int k = d + 1; k < rank; ++k) inner *= n[k];
  for (int k = 0; k < d; ++k) outer *= n[k];
  const long long len = n[d];
  std::vector<Complex> line(static_cast<size_t>(len)), twiddle(static_cast<size_t>(len));
  for (long long k = 0; k < len; ++k)
    twiddle[static_cast<size_t>(k)] = std::polar(1.0, sign * 2.0 * M_PI * double(k) / double(len));
  for (long long o = 0; o < outer; ++o)
    for (long long i = 0; i < inner; ++i) {
      const long long base = o * len * inner + i;
      for (long long k = 0; k < len; ++k) {
        Complex sum = 0;
        for (long long j = 0; j < len; ++j) sum += data[static_cast<size_t>(base + j * inner)] * twiddle[static_cast<size_t>((j * k) % len)];
        line[static_cast<size_t>(k)] = sum;
      }
      for (long long k = 0; k < len; ++k) data[static_cast<size_t>(base + k * inner)] = line[static_cast<size_t>(k)];
    }
}

template <typename Real>
Complex load(const uint8_t* base, long long element, bool complex) {
  const Real* p = reinterpret_cast<const Real*>(base);
  return complex ? Complex(p[2 * element], p[2 * element + 1]) : Complex(p[element], 0);
}

template <typename Real>
void store(uint8_t* base, long long element, bool complex, Complex v) {
  Real* p = reinterpret_cast<Real*>(base);
  if (complex) {
    p[2 * element] = static_cast<Real>(v.real());
    p[2 * element + 1] = static_cast<Real>(v.imag());
  } else {
    p[element] = static_cast<Real>(v.real());
  }
}

// Every index of the logical array, in order, as fn(flat, index).
template <typename Fn>
void for_each_index(const long long* n, int rank, Fn fn) {
  long long index[3] = {0, 0, 0}, total = 1;
  for (int d = 0; d < rank; ++d) total *= n[d];
  for (long long flat = 0; flat < total; ++flat) {
    long long rest = flat;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % n[d];
      rest /= n[d];
    }
    fn(flat, index);
  }
}

template <typename Real>
void transform(const Plan& p, const uint8_t* in, uint8_t* out, int sign) {
  long long total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.n[d];
  std::vector<Complex> data(static_cast<size_t>(total));
  for (long long b = 0; b < p.batch; ++b) {
    const uint8_t* src = in + b * p.in.dist * (p.in.complex ? 2 : 1) * long(sizeof(Real));
    uint8_t* dst = out + b * p.out.dist * (p.out.complex ? 2 : 1) * long(sizeof(Real));
    // Gathered whole; a half spectrum (C2R) is completed by its Hermitian symmetry.
    for_each_index(p.n, p.rank, [&](long long flat, const long long* index) {
      if (!real_output(p.type) || index[p.rank - 1] <= p.n[p.rank - 1] / 2) {
        data[static_cast<size_t>(flat)] = load<Real>(src, offset_of(p.in, p.rank, index), p.in.complex);
        return;
      }
      long long mirror[3] = {0, 0, 0};
      for (int d = 0; d < p.rank; ++d) mirror[d] = (p.n[d] - index[d]) % p.n[d];
      data[static_cast<size_t>(flat)] = std::conj(load<Real>(src, offset_of(p.in, p.rank, mirror), true));
    });
    for (int d = 0; d < p.rank; ++d) dft_along(data, p.n, p.rank, d, sign);
    for_each_index(p.n, p.rank, [&](long long flat, const long long* index) {
      if (real_input(p.type) && index[p.rank - 1] > p.n[p.rank - 1] / 2) return;
      store<Real>(dst, offset_of(p.out, p.rank, index), p.out.complex, data[static_cast<size_t>(flat)]);
    });
  }
}

cufftResult exec(cufftHandle handle, void* idata, void* odata, int direction, std::initializer_list<cufftType> types) {
  std::optional<Plan> plan = plans().get(handle);
  if (!plan) return CUFFT_INVALID_PLAN;
  const Plan p = *plan;
  if (!p.made) return CUFFT_INVALID_PLAN;
  if (types.size() && std::find(types.begin(), types.end(), p.type) == types.end()) return CUFFT_INVALID_TYPE;
  int sign = direction;
  if (real_input(p.type)) sign = CUFFT_FORWARD;
  else if (real_output(p.type)) sign = CUFFT_INVERSE;
  else if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
  const uint64_t in_bytes = bytes_of(p, p.in);
  DeviceRange in = state().memory.find(idata, in_bytes);
  DeviceRange out = state().memory.find(odata, bytes_of(p, p.out));
  if (!in || !out) return CUFFT_EXEC_FAILED;  // as a kernel reading or writing outside memory would
  const cudaError_t err = state().enqueue(p.stream, cudaGraphNodeTypeKernel, [=] {
    // Out of place through a copy of the input, so an in-place transform reads what it had.
    std::vector<uint8_t> input(in.data, in.data + in_bytes);
    if (double_precision(p.type)) transform<double>(p, input.data(), out.data, sign);
    else transform<float>(p, input.data(), out.data, sign);
    return cudaSuccess;
  });
  return err == cudaSuccess ? CUFFT_SUCCESS : CUFFT_EXEC_FAILED;
}

}  // namespace

cufftResult cufftCreate(cufftHandle* plan) {
  if (!plan) return CUFFT_INVALID_VALUE;
  *plan = plans().create();
  return CUFFT_SUCCESS;
}

cufftResult cufftDestroy(cufftHandle plan) { return plans().destroy(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN; }

cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  const long long n[] = {nx};
  return create_then(plan, [&](cufftHandle h) { return make_basic(h, 1, n, type, batch); });
}

cufftResult cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type) {
  const long long n[] = {nx, ny};
  return create_then(plan, [&](cufftHandle h) { return make_basic(h, 2, n, type, 1); });
}

cufftResult cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  const long long n[] = {nx, ny, nz};
  return create_then(plan, [&](cufftHandle h) { return make_basic(h, 3, n, type, 1); });
}

cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                          int ostride, int odist, cufftType type, int batch) {
  return create_then(plan, [&](cufftHandle h) {
    return make_plan_ints(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, nullptr);
  });
}

cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t* workSize) {
  const long long n[] = {nx};
  return make_plan(plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, workSize);
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                              int ostride, int odist, cufftType type, int batch, size_t* workSize) {
  return make_plan_ints(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                long long int istride, long long int idist, long long int* onembed,
                                long long int ostride, long long int odist, cufftType type, long long int batch,
                                size_t* workSize) {
  return make_plan(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                long long int istride, long long int idist, cudaDataType inputtype,
                                long long int* onembed, long long int ostride, long long int odist,
                                cudaDataType outputtype, long long int batch, size_t* workSize,
                                cudaDataType executiontype) {
  struct Form {
    cudaDataType in, out, exec;
    cufftType type;
  };
  static constexpr Form kForms[] = {
      {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_C2C}, {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_R2C},
      {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, CUFFT_C2R}, {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_Z2Z},
      {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_D2Z}, {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, CUFFT_Z2D},
  };
  for (const Form& f : kForms)
    if (f.in == inputtype && f.out == outputtype && f.exec == executiontype)
      return make_plan(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, f.type, batch, workSize);
  return CUFFT_NOT_SUPPORTED;  // half precision and mixed forms: not emulated
}

cufftResult cufftGetSize(cufftHandle plan, size_t* workSize) {
  std::optional<Plan> p = plans().get(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  if (!workSize) return CUFFT_INVALID_VALUE;
  *workSize = p->made ? kWorkSize : 0;
  return CUFFT_SUCCESS;
}

cufftResult cufftSetWorkArea(cufftHandle plan, void* workArea) {
  if (!plans().get(plan)) return CUFFT_INVALID_PLAN;
  // The library writes its scratch there during a transform: it must be device memory.
  return !workArea || state().memory.find(workArea, kWorkSize) ? CUFFT_SUCCESS : CUFFT_INVALID_VALUE;
}

cufftResult cufftSetAutoAllocation(cufftHandle plan, int) {
  return plans().get(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  return plans().update(plan, [&](Plan& p) { p.stream = stream; }) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction) {
  return exec(plan, idata, odata, direction, {CUFFT_C2C});
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata) {
  return exec(plan, idata, odata, CUFFT_FORWARD, {CUFFT_R2C});
}

cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata) {
  return exec(plan, idata, odata, CUFFT_INVERSE, {CUFFT_C2R});
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata, int direction) {
  return exec(plan, idata, odata, direction, {CUFFT_Z2Z});
}

cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata) {
  return exec(plan, idata, odata, CUFFT_FORWARD, {CUFFT_D2Z});
}

cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata) {
  return exec(plan, idata, odata, CUFFT_INVERSE, {CUFFT_Z2D});
}

cufftResult cufftXtExec(cufftHandle plan, void* input, void* output, int direction) {
  return exec(plan, input, output, direction, {});
}

cufftResult cufftGetVersion(int* version) {
  if (!version) return CUFFT_INVALID_VALUE;
  *version = CUFFT_VERSION;
  return CUFFT_SUCCESS;
}

namespace {

struct Descriptor {
  cudaLibXtDesc lib{};
  cudaXtDesc xt{};
};

cufftResult exec_descriptors(cufftHandle plan, const cudaLibXtDesc* input, const cudaLibXtDesc* output, int direction,
                             std::initializer_list<cufftType> types) {
  if (!input || !output || !input->descriptor || !output->descriptor) return CUFFT_INVALID_VALUE;
  return exec(plan, input->descriptor->data[0], output->descriptor->data[0], direction, types);
}

}  // namespace

cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc** descriptor, cufftXtSubFormat format) {
  if (!descriptor) return CUFFT_INVALID_VALUE;
  if (format != CUFFT_XT_FORMAT_INPLACE && format != CUFFT_XT_FORMAT_INPUT && format != CUFFT_XT_FORMAT_OUTPUT)
    return CUFFT_NOT_SUPPORTED;  // the shuffled forms are multi-GPU ones
  std::optional<Plan> p = plans().get(plan);
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  auto d = std::make_unique<Descriptor>();
  d->xt.nGPUs = 1;
  d->xt.size[0] = std::max(bytes_of(*p, p->in), bytes_of(*p, p->out));
  if (state().memory.allocate(0, d->xt.size[0], &d->xt.data[0]) != cudaSuccess) return CUFFT_ALLOC_FAILED;
  d->lib.descriptor = &d->xt;
  d->lib.library = LIB_FORMAT_CUFFT;
  d->lib.subFormat = format;
  *descriptor = &d.release()->lib;
  return CUFFT_SUCCESS;
}

cufftResult cufftXtFree(cudaLibXtDesc* descriptor) {
  if (!descriptor || !descriptor->descriptor) return CUFFT_INVALID_VALUE;
  (void)state().memory.free(descriptor->descriptor->data[0]);
  delete reinterpret_cast<Descriptor*>(descriptor);  // lib is Descriptor's first member
  return CUFFT_SUCCESS;
}

cufftResult cufftXtExecDescriptor(cufftHandle plan, cudaLibXtDesc* input, cudaLibXtDesc* output, int direction) {
  return exec_descriptors(plan, input, output, direction, {});
}

cufftResult cufftXtExecDescriptorC2C(cufftHandle plan, cudaLibXtDesc* input, cudaLibXtDesc* output, int direction) {
  return exec_descriptors(plan, input, output, direction, {CUFFT_C2C});
}

namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cufftCreate),         RGPU_EMULATED(cufftDestroy),       RGPU_EMULATED(cufftPlan1d),
    RGPU_EMULATED(cufftPlan2d),         RGPU_EMULATED(cufftPlan3d),        RGPU_EMULATED(cufftPlanMany),
    RGPU_EMULATED(cufftMakePlan1d),     RGPU_EMULATED(cufftMakePlanMany),  RGPU_EMULATED(cufftMakePlanMany64),
    RGPU_EMULATED(cufftXtMakePlanMany), RGPU_EMULATED(cufftGetSize),       RGPU_EMULATED(cufftSetWorkArea),
    RGPU_EMULATED(cufftSetAutoAllocation), RGPU_EMULATED(cufftSetStream),  RGPU_EMULATED(cufftExecC2C),
    RGPU_EMULATED(cufftExecR2C),        RGPU_EMULATED(cufftExecC2R),       RGPU_EMULATED(cufftExecZ2Z),
    RGPU_EMULATED(cufftExecD2Z),        RGPU_EMULATED(cufftExecZ2D),       RGPU_EMULATED(cufftXtExec),
    RGPU_EMULATED(cufftGetVersion),     RGPU_EMULATED(cufftXtMalloc),      RGPU_EMULATED(cufftXtFree),
    RGPU_EMULATED(cufftXtExecDescriptor), RGPU_EMULATED(cufftXtExecDescriptorC2C),
};

}  // namespace

void* resolve_cufft(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated

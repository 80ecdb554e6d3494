// cuFFT through the libcufft.so.12 shim: a batched 1D C2C round trip on a stream, R2C and C2R of a
// real signal, a 2D Z2Z transform against a direct DFT, a 2D convolution by FFT (R2C of an image and
// a kernel, a pointwise product by a kernel, C2R) against the direct convolution, an advanced
// layout through cufftPlanMany, PyTorch's way (cufftXtMakePlanMany with the caller's work area,
// cufftXtExec), and a descriptor of cufftXt.h (cufftXtMalloc, cufftXtMemcpy,
// cufftXtExecDescriptorC2C). Checks against the host within tolerances; checksums printed to 4
// decimals, so a remote run must print what the native one does.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "fft_reference.h"
#include "suite_check.h"

#define CHECK_FFT(call) check_fft((call), #call, __LINE__)
inline void check_fft(cufftResult status, const char* call, int line) {
  if (status != CUFFT_SUCCESS) {
    say("FAIL: %s returned cufftResult %d (line %d)\n", call, static_cast<int>(status), line);
    exit(1);
  }
}

namespace {

using fft_reference::Complex;
using fft_reference::dft;
using fft_reference::value;

double checksum(const cufftComplex* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += std::fabs(v[i].x) + 2 * std::fabs(v[i].y);
  return s;
}

// Multiplies the image's spectrum by the kernel's, scaled for the inverse transform's n.
__global__ void multiply_spectra(cufftComplex* image, const cufftComplex* kernel, int n, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const cufftComplex a = image[i], b = kernel[i];
  image[i] = {(a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale};
}

}  // namespace

int main() {
  int version = 0;
  CHECK_FFT(cufftGetVersion(&version));
  say("cufft version: %d\n", version);

  // 1. A batched 1D C2C round trip, in place on a stream: 8 transforms of 1000.
  const int n = 1000, batch = 8;
  std::vector<cufftComplex> signal(n * batch);
  for (size_t i = 0; i < signal.size(); ++i) signal[i] = {value(i), value(i + 3)};
  cufftComplex* d = to_device(signal);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cufftHandle plan = 0;
  CHECK_FFT(cufftPlan1d(&plan, n, CUFFT_C2C, batch));
  CHECK_FFT(cufftSetStream(plan, stream));
  CHECK_FFT(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<cufftComplex> spectrum = to_host(d, signal.size());
  std::vector<Complex> x(n);
  for (int i = 0; i < n; ++i) x[i] = Complex(signal[5 * n + i].x, signal[5 * n + i].y);
  std::vector<Complex> want = dft(x, -1);
  double err = 0, scale = 0;
  for (int k = 0; k < n; ++k) {
    err = std::fmax(err, std::abs(want[k] - Complex(spectrum[5 * n + k].x, spectrum[5 * n + k].y)));
    scale = std::fmax(scale, std::abs(want[k]));
  }
  expect(err / scale < 1e-5, "C2C forward of batch 5 matches the direct DFT to 1e-5");
  say("c2c spectrum checksum: %.4f\n", checksum(spectrum.data(), spectrum.size()));
  CHECK_FFT(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<cufftComplex> back = to_host(d, signal.size());
  err = 0;
  for (size_t i = 0; i < signal.size(); ++i)
    err = std::fmax(err, std::abs(Complex(back[i].x, back[i].y) / double(n) - Complex(signal[i].x, signal[i].y)));
  expect(err < 1e-4, "the inverse over n brings the signal back to 1e-4");

  // 2. R2C and C2R of 4 real signals of 512.
  const int rn = 512, rbatch = 4, bins = rn / 2 + 1;
  std::vector<float> real(rn * rbatch);
  for (size_t i = 0; i < real.size(); ++i) real[i] = std::sin(0.01f * float(i)) + value(i) * 0.25f;
  float* dr = to_device(real);
  cufftComplex* dc = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, bins * rbatch * sizeof(cufftComplex)));
  cufftHandle r2c = 0, c2r = 0;
  CHECK_FFT(cufftPlan1d(&r2c, rn, CUFFT_R2C, rbatch));
  CHECK_FFT(cufftPlan1d(&c2r, rn, CUFFT_C2R, rbatch));
  CHECK_FFT(cufftExecR2C(r2c, dr, dc));
  std::vector<cufftComplex> half = to_host(dc, bins * rbatch);
  say("r2c half-spectrum checksum: %.4f\n", checksum(half.data(), half.size()));
  CHECK_FFT(cufftExecC2R(c2r, dc, dr));
  std::vector<float> real_back = to_host(dr, real.size());
  err = 0;
  for (size_t i = 0; i < real.size(); ++i) err = std::fmax(err, std::fabs(real_back[i] / rn - real[i]));
  expect(err < 1e-5, "C2R of R2C over n is the real signal to 1e-5");

  // 3. 2D Z2Z, 48 x 40, against the direct 2D DFT in double precision.
  const int nx = 48, ny = 40;
  std::vector<cufftDoubleComplex> z(nx * ny);
  for (size_t i = 0; i < z.size(); ++i) z[i] = {value(i), -value(i + 1)};
  cufftDoubleComplex* dz = to_device(z);
  cufftHandle plan2d = 0;
  CHECK_FFT(cufftPlan2d(&plan2d, nx, ny, CUFFT_Z2Z));
  CHECK_FFT(cufftExecZ2Z(plan2d, dz, dz, CUFFT_FORWARD));
  std::vector<cufftDoubleComplex> zf = to_host(dz, z.size());
  err = 0;
  double zsum = 0;
  for (int kx = 0; kx < nx; ++kx)
    for (int ky = 0; ky < ny; ++ky) {
      Complex sum = 0;
      for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j)
          sum += Complex(z[i * ny + j].x, z[i * ny + j].y) *
                 std::polar(1.0, -2 * M_PI * (double(kx * i % nx) / nx + double(ky * j % ny) / ny));
      const Complex got(zf[kx * ny + ky].x, zf[kx * ny + ky].y);
      err = std::fmax(err, std::abs(sum - got));
      zsum += std::abs(got);
    }
  expect(err < 1e-9, "Z2Z 2D matches the direct DFT to 1e-9");
  say("z2z 2D spectrum |sum|: %.4f\n", zsum);

  // 4. A 2D convolution by FFT: a 64 x 64 image with a 3 x 3 kernel (circular), against the direct sum.
  const int w = 64, cbins = w * (w / 2 + 1);
  std::vector<float> image(w * w), kernel(w * w, 0.0f);
  for (size_t i = 0; i < image.size(); ++i) image[i] = value(i * 13);
  const float taps[3][3] = {{0, 1, 0}, {1, -4, 1}, {0, 1, 0}};  // a Laplacian
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j) kernel[((i + w) % w) * w + (j + w) % w] = taps[i + 1][j + 1];
  float* dimage = to_device(image);
  float* dkernel = to_device(kernel);
  cufftComplex *fimage = nullptr, *fkernel = nullptr;
  CHECK_CUDA(cudaMalloc(&fimage, cbins * sizeof(cufftComplex)));
  CHECK_CUDA(cudaMalloc(&fkernel, cbins * sizeof(cufftComplex)));
  cufftHandle fwd2 = 0, inv2 = 0;
  CHECK_FFT(cufftPlan2d(&fwd2, w, w, CUFFT_R2C));
  CHECK_FFT(cufftPlan2d(&inv2, w, w, CUFFT_C2R));
  CHECK_FFT(cufftExecR2C(fwd2, dimage, fimage));
  CHECK_FFT(cufftExecR2C(fwd2, dkernel, fkernel));
  multiply_spectra<<<(cbins + 255) / 256, 256>>>(fimage, fkernel, cbins, 1.0f / float(w * w));
  CHECK_CUDA(cudaGetLastError());
  CHECK_FFT(cufftExecC2R(inv2, fimage, dimage));
  std::vector<float> filtered = to_host(dimage, image.size());
  err = 0;
  double fsum = 0;
  for (int i = 0; i < w; ++i)
    for (int j = 0; j < w; ++j) {
      double direct = 0;
      for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b) direct += taps[a + 1][b + 1] * image[((i - a + w) % w) * w + (j - b + w) % w];
      err = std::fmax(err, std::fabs(direct - filtered[i * w + j]));
      fsum += std::fabs(filtered[i * w + j]);
    }
  expect(err < 1e-4, "the 2D convolution by FFT matches the direct convolution to 1e-4");
  say("convolution |sum|: %.2f\n", fsum);

  // 5. An advanced layout: 6 transforms of 128, every other element of slots of 300, out packed.
  const int an = 128, abatch = 6, istride = 2, idist = 300;
  std::vector<cufftComplex> spread(abatch * idist);
  for (size_t i = 0; i < spread.size(); ++i) spread[i] = {value(i), value(i * 5)};
  cufftComplex* din = to_device(spread);
  cufftComplex* dout = nullptr;
  CHECK_CUDA(cudaMalloc(&dout, an * abatch * sizeof(cufftComplex)));
  int dims[] = {an}, inembed[] = {an * istride}, onembed[] = {an};
  cufftHandle many = 0;
  CHECK_FFT(cufftPlanMany(&many, 1, dims, inembed, istride, idist, onembed, 1, an, CUFFT_C2C, abatch));
  CHECK_FFT(cufftExecC2C(many, din, dout, CUFFT_FORWARD));
  std::vector<cufftComplex> packed = to_host(dout, an * abatch);
  err = 0;
  for (int b = 0; b < abatch; ++b) {
    std::vector<Complex> xb(an);
    for (int i = 0; i < an; ++i) xb[i] = Complex(spread[b * idist + i * istride].x, spread[b * idist + i * istride].y);
    std::vector<Complex> wb = dft(xb, -1);
    for (int k = 0; k < an; ++k) err = std::fmax(err, std::abs(wb[k] - Complex(packed[b * an + k].x, packed[b * an + k].y)));
  }
  expect(err < 1e-3, "cufftPlanMany with strides and distances matches the DFT of each transform");

  // 6. PyTorch's way: an empty plan, no auto-allocation, cufftXtMakePlanMany, the caller's work area.
  cufftHandle xt = 0;
  CHECK_FFT(cufftCreate(&xt));
  CHECK_FFT(cufftSetAutoAllocation(xt, 0));
  long long xn[] = {rn};
  size_t work = 0;
  CHECK_FFT(cufftXtMakePlanMany(xt, 1, xn, nullptr, 1, rn, CUDA_R_32F, nullptr, 1, bins, CUDA_C_32F, rbatch, &work,
                                CUDA_C_32F));
  void* area = nullptr;
  CHECK_CUDA(cudaMalloc(&area, work > 0 ? work : 1));
  CHECK_FFT(cufftSetWorkArea(xt, area));
  CHECK_FFT(cufftSetStream(xt, stream));
  size_t asked = 0;
  CHECK_FFT(cufftGetSize(xt, &asked));
  expect(asked == work, "cufftGetSize answers cufftXtMakePlanMany's work size");
  float* dr2 = to_device(real);
  CHECK_FFT(cufftXtExec(xt, dr2, dc, CUFFT_FORWARD));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<cufftComplex> xt_half = to_host(dc, half.size());
  err = 0;
  for (size_t i = 0; i < half.size(); ++i)
    err = std::fmax(err, std::abs(Complex(half[i].x, half[i].y) - Complex(xt_half[i].x, xt_half[i].y)));
  expect(err < 1e-3, "cufftXtExec on the caller's work area gives cufftExecR2C's spectrum");

  // 7. A descriptor (cufftXt.h) of the 1D plan: each status printed, so native and remote must agree.
  // The H200's cuFFT makes a one-GPU plan's descriptor (a buffer smaller than the signal) but refuses
  // to transform it (CUFFT_EXEC_FAILED: descriptors are for plans of cufftXtSetGPUs, which wants two
  // GPUs or more); where the transform runs, as on the emulated backend, its result is checked.
  cudaLibXtDesc* desc = nullptr;
  const cufftResult made = cufftXtMalloc(plan, &desc, CUFFT_XT_FORMAT_INPLACE);
  say("cufftXtMalloc of the C2C plan: cufftResult %d\n", static_cast<int>(made));
  if (made == CUFFT_SUCCESS) {
    const bool fits = desc->descriptor->size[0] >= signal.size() * sizeof(cufftComplex);
    say("descriptor GPUs: %d, buffer large enough: %s\n", desc->descriptor->nGPUs, fits ? "yes" : "no");
    CHECK_FFT(cufftXtMemcpy(plan, desc, signal.data(), CUFFT_COPY_HOST_TO_DEVICE));
    const cufftResult ran = cufftXtExecDescriptorC2C(plan, desc, desc, CUFFT_FORWARD);
    say("cufftXtExecDescriptorC2C of it: cufftResult %d\n", static_cast<int>(ran));
    if (ran == CUFFT_SUCCESS && fits) {
      std::vector<cufftComplex> via_desc(signal.size());
      CHECK_FFT(cufftXtMemcpy(plan, via_desc.data(), desc, CUFFT_COPY_DEVICE_TO_HOST));
      std::vector<cufftComplex> via_runtime = to_host(static_cast<const cufftComplex*>(desc->descriptor->data[0]), signal.size());
      err = 0;
      for (size_t i = 0; i < signal.size(); ++i)
        err = std::fmax(err, std::abs(Complex(via_desc[i].x, via_desc[i].y) - Complex(spectrum[i].x, spectrum[i].y)));
      expect(err < 1e-3, "a descriptor's in-place transform is the plan's spectrum");
      expect(std::memcmp(via_desc.data(), via_runtime.data(), via_desc.size() * sizeof(cufftComplex)) == 0,
             "cufftXtMemcpy and the runtime read the same buffer");
    }
    CHECK_FFT(cufftXtFree(desc));
  }

  // 8. A plan's failure is answered at once.
  cufftHandle bad = 0;
  const cufftResult refused = cufftPlan1d(&bad, 0, CUFFT_C2C, 1);
  say("a plan of size 0: cufftResult %d\n", static_cast<int>(refused));
  expect(refused != CUFFT_SUCCESS, "a plan of size 0 is refused");

  for (cufftHandle p : {plan, r2c, c2r, plan2d, fwd2, inv2, many, xt}) CHECK_FFT(cufftDestroy(p));
  for (void* p : {static_cast<void*>(d), static_cast<void*>(dr), static_cast<void*>(dc), static_cast<void*>(dz),
                  static_cast<void*>(dimage), static_cast<void*>(dkernel), static_cast<void*>(fimage),
                  static_cast<void*>(fkernel), static_cast<void*>(din), static_cast<void*>(dout), area,
                  static_cast<void*>(dr2)})
    CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("30_cufft");
}

// The reference both cuFFT programs check against (30_cufft here, cufft_tour in tests/integration):
// the direct DFT as cuFFT defines it, and input values that make every bin differ.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

namespace fft_reference {

using Complex = std::complex<double>;

// The DFT of `x`: sign -1 forward, +1 inverse, unnormalised.
inline std::vector<Complex> dft(const std::vector<Complex>& x, int sign) {
  const size_t n = x.size();
  std::vector<Complex> y(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j) y[k] += x[j] * std::polar(1.0, sign * 2 * M_PI * double(j * k % n) / double(n));
  return y;
}

// Small integers and their halves, in a pattern of 11.
inline float value(size_t i) { return float((i * 7 + 3) % 11) * 0.5f - 2.0f; }

}  // namespace fft_reference

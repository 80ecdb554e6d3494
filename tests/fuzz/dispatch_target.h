// The argument decoders of each forwarded library: the generated server dispatch and the
// hand-written handlers that need no session (cuBLASLt's matmul and descriptors, every cuDNN
// handler), fed one call from the peer, against a backend with no entry points, so nothing is ever
// called and every call that decodes must answer "not supported" (or a bad-handle or bad-value
// status) and send nothing back.
//
// An input is a call: a u16 (little-endian) that picks the library's call id by its index
// (modulo their count), then the call's argument payload.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rgpu::fuzz {

enum class Library { kCudart, kCublas, kCublasLt, kCudnn, kCurand, kCufft, kCusparse, kCusolver };

// Empty when the call was refused as malformed or answered as it must be; else what went wrong.
std::string dispatch_violation(Library library, std::span<const uint8_t> input);

// Seeds: for every call id of the library, an empty payload and a near-valid one (small numbers
// and the handle id the fuzz context knows), plus whole valid calls where one is known.
std::vector<std::vector<uint8_t>> dispatch_seeds(Library library);

}  // namespace rgpu::fuzz

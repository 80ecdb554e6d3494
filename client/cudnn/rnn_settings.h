// What the setters last set on an RNN descriptor, an RNN data descriptor and a dropout descriptor
// (ids on the server), mirrored on the client: cudnnGetRNNDescriptor_v8 answers from the first, and
// the size queries key their cached answers by them (rnn_calls.cpp): PyTorch makes new descriptors
// for every call, so an id says nothing about what was asked before.
#pragma once

#include <cudnn.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rgpu::client::cudnn {

struct RnnSettings {
  cudnnRNNAlgo_t algo;
  cudnnRNNMode_t cell_mode;
  cudnnRNNBiasMode_t bias_mode;
  cudnnDirectionMode_t dir_mode;
  cudnnRNNInputMode_t input_mode;
  cudnnDataType_t data_type, math_prec;
  cudnnMathType_t math_type;
  int32_t input_size, hidden_size, proj_size, num_layers;
  cudnnDropoutDescriptor_t dropout;
  uint32_t aux_flags;

  auto operator<=>(const RnnSettings&) const = default;
};

// What cudnnSetRNNDataDescriptor set (cudnnSetRNNDataDescriptor, rnn_descriptors.cpp).
struct RnnDataSettings {
  cudnnDataType_t data_type;
  cudnnRNNDataLayout_t layout;
  int32_t max_seq_length, batch_size, vector_size;
  std::vector<int32_t> seq_lengths;  // batch_size of them
  uint64_t padding_fill;             // the fill value's bytes (as many as the data type has), or 0

  auto operator<=>(const RnnDataSettings&) const = default;
};

// The bytes of one value of `type`, as a padding fill is given (the largest, double, is 8).
inline size_t fill_bytes(cudnnDataType_t type) {
  return type == CUDNN_DATA_DOUBLE ? 8 : (type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16) ? 2 : 4;
}

// False for a descriptor never set (or destroyed).
bool find_rnn_settings(cudnnRNNDescriptor_t d, RnnSettings* out);
bool find_rnn_data_settings(cudnnRNNDataDescriptor_t d, RnnDataSettings* out);
// The probability a dropout descriptor was last set or restored to (dropout_calls.cpp); false for
// one never set (or destroyed).
bool find_dropout_probability(cudnnDropoutDescriptor_t d, float* out);

}  // namespace rgpu::client::cudnn

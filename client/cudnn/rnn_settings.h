// What cudnnSetRNNDescriptor_v8 last set on an RNN descriptor (an id on the server), mirrored on
// the client: cudnnGetRNNDescriptor_v8 answers from it, and the weight-space queries key their
// cached answers by it (rnn_calls.cpp).
#pragma once

#include <cudnn.h>

#include <compare>
#include <cstdint>

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

// False for a descriptor never set (or destroyed).
bool find_rnn_settings(cudnnRNNDescriptor_t d, RnnSettings* out);

}  // namespace rgpu::client::cudnn

// The emulated cuDNN's RNN, RNN data, dropout and CTC loss descriptors and calls (cudnn_rnn.cpp),
// with exactly the signatures of cudnn*.h (checked by the table in cudnn_rnn.cpp). Descriptors
// keep what they are set to and read back; sizes follow the emulator's own layouts (RNN weights:
// per pseudo-layer, its matrices then its biases, packed; dropout: one mask byte per element and
// a 16-byte generator state; no workspace); compute is validated (every buffer inside live device
// memory, CTC labels and lengths in range) and recorded in the handle's stream, not computed.
#pragma once

#include <cudnn.h>

namespace rgpu::server::emulated {

// The read-back of a tensor descriptor (its record: cudnn_objects.h)
cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                         cudnnDataType_t* dataType, int* nbDims, int dimA[], int strideA[]);

// The emulated RNN, RNN data, dropout and CTC loss entry points by name, or null.
void* resolve_cudnn_rnn(const char* name);

}  // namespace rgpu::server::emulated

// rgpu::cublaslt::Descriptor: attribute sizes and defaults from cublasLt.h, the get protocol, the
// byte form and its decoder's refusals.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "common/cublaslt/lt_descriptor.h"

using rgpu::cublaslt::DescKind;
using rgpu::cublaslt::Descriptor;

TEST_CASE("a descriptor refuses unknown attributes and wrong sizes") {
  Descriptor m(DescKind::kMatmul);
  int32_t op = CUBLAS_OP_T;
  int64_t wide = CUBLAS_OP_T;
  CHECK(m.set(CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op) == CUBLAS_STATUS_SUCCESS);
  CHECK(m.set(CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(m.set(CUBLASLT_MATMUL_DESC_TRANSA, nullptr, sizeof op) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(m.set(9, &op, sizeof op) == CUBLAS_STATUS_INVALID_VALUE);    // no attribute 9
  CHECK(m.set(63, &op, sizeof op) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(m.set(1000, &op, sizeof op) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(m.set(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, &wide, sizeof wide) == CUBLAS_STATUS_INVALID_VALUE);
  // A layout attribute id on a preference is not a preference attribute.
  Descriptor p(DescKind::kPreference);
  CHECK(p.set(CUBLASLT_MATRIX_LAYOUT_ORDER, &op, sizeof op) == CUBLAS_STATUS_INVALID_VALUE);
}

TEST_CASE("attribute sizes follow cublasLt.h") {
  CHECK(Descriptor::size_of(DescKind::kMatmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER) == sizeof(void*));
  CHECK(Descriptor::size_of(DescKind::kMatmul, CUBLASLT_MATMUL_DESC_EPILOGUE) == sizeof(uint32_t));
  CHECK(Descriptor::size_of(DescKind::kMatmul, CUBLASLT_MATMUL_DESC_FAST_ACCUM) == sizeof(int8_t));
  CHECK(Descriptor::size_of(DescKind::kLayout, CUBLASLT_MATRIX_LAYOUT_ROWS) == sizeof(uint64_t));
  CHECK(Descriptor::size_of(DescKind::kLayout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) == sizeof(int32_t));
  CHECK(Descriptor::size_of(DescKind::kPreference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) == sizeof(uint64_t));
  CHECK(Descriptor::size_of(DescKind::kPreference, CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT) == sizeof(float));
}

TEST_CASE("get answers set values, documented defaults and the sizeWritten protocol") {
  Descriptor p(DescKind::kPreference);
  uint32_t align = 0;
  size_t written = 0;
  REQUIRE(p.get(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align, sizeof align, &written) == CUBLAS_STATUS_SUCCESS);
  CHECK(align == 256);
  CHECK(written == sizeof align);
  uint64_t mask = 0;
  REQUIRE(p.get(CUBLASLT_MATMUL_PREF_IMPL_MASK, &mask, sizeof mask, nullptr) == CUBLAS_STATUS_SUCCESS);
  CHECK(mask == ~uint64_t{0});
  uint64_t workspace = 1 << 22;
  REQUIRE(p.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace) == CUBLAS_STATUS_SUCCESS);
  uint64_t back = 0;
  REQUIRE(p.get(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &back, sizeof back, nullptr) == CUBLAS_STATUS_SUCCESS);
  CHECK(back == workspace);

  // sizeInBytes 0 asks for the size, which needs sizeWritten.
  written = 0;
  CHECK(p.get(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, nullptr, 0, &written) == CUBLAS_STATUS_SUCCESS);
  CHECK(written == sizeof(uint64_t));
  CHECK(p.get(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, nullptr, 0, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(p.get(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, nullptr, 8, &written) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(p.get(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &back, 4, &written) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(p.get(2, &back, 8, &written) == CUBLAS_STATUS_INVALID_VALUE);

  Descriptor m(DescKind::kMatmul);
  CHECK(m.value(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE) == -1);  // signed defaults stay signed
  CHECK(m.value(CUBLASLT_MATMUL_DESC_EPILOGUE) == CUBLASLT_EPILOGUE_DEFAULT);
  int32_t minus = -1;
  m.set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, &minus, sizeof minus);
  CHECK(m.value(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE) == -1);
}

TEST_CASE("the byte form round-trips and is the same for equal descriptors") {
  Descriptor a(DescKind::kLayout), b(DescKind::kLayout);
  uint64_t rows = 7;
  int32_t batch = 3;
  a.set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
  a.set(CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows);
  b.set(CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows);  // another order of setting
  b.set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
  std::vector<uint8_t> x, y;
  a.serialize(&x);
  b.serialize(&y);
  CHECK(x == y);
  Descriptor back;
  std::string error;
  REQUIRE(rgpu::cublaslt::parse(x, DescKind::kLayout, &back, &error));
  CHECK(back.value(CUBLASLT_MATRIX_LAYOUT_ROWS) == 7);
  CHECK(back.value(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) == 3);
  CHECK_FALSE(back.is_set(CUBLASLT_MATRIX_LAYOUT_COLS));
}

TEST_CASE("the decoder refuses bytes that are not a descriptor, saying why") {
  Descriptor d(DescKind::kMatmul);
  int32_t op = CUBLAS_OP_T;
  d.set(CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op);
  std::vector<uint8_t> good;
  d.serialize(&good);
  Descriptor out;
  std::string error;
  auto refused = [&](std::vector<uint8_t> bytes, DescKind kind, const char* why) {
    error.clear();
    bool ok = rgpu::cublaslt::parse(bytes, kind, &out, &error);
    INFO(why << ": " << error);
    CHECK_FALSE(ok);
    CHECK(error.find(why) != std::string::npos);
  };
  refused({}, DescKind::kMatmul, "empty");
  refused(good, DescKind::kLayout, "kind");
  refused({good.begin(), good.end() - 1}, DescKind::kMatmul, "truncated");
  refused({good.begin(), good.begin() + 2}, DescKind::kMatmul, "truncated");
  refused({1, 9, 4, 0, 0, 0, 0}, DescKind::kMatmul, "not one of this kind");      // no attribute 9
  refused({1, 3, 8, 0, 0, 0, 0, 0, 0, 0, 0}, DescKind::kMatmul, "not one of this kind");  // TRANSA is 4 bytes
  refused({1, 4, 4, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0}, DescKind::kMatmul, "out of order");
  refused({1, 3, 4, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0}, DescKind::kMatmul, "repeated");
  refused({1, 200, 255}, DescKind::kMatmul, "truncated");
}

TEST_CASE("random bytes never crash the decoder") {
  std::mt19937 rng(7);
  Descriptor out;
  std::string error;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 4 ? rng() % 16 : rng());
    if (!bytes.empty() && rng() % 2) bytes[0] = static_cast<uint8_t>(1 + rng() % 3);
    rgpu::cublaslt::parse(bytes, static_cast<DescKind>(1 + rng() % 3), &out, &error);
  }
  SUCCEED();
}

TEST_CASE("scalars are of the scale type") {
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_R_32F) == 4);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_R_64F) == 8);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_R_16F) == 2);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_R_16BF) == 2);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_C_32F) == 8);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_C_64F) == 16);
  CHECK(rgpu::cublaslt::scalar_bytes(CUDA_R_8F_E4M3) == 0);
}

// Module image checks before cuModuleLoadData: fatbin containers, ELF cubins, PTX text.
#include <catch2/catch.hpp>

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

#include "server/backends/cuda/module_image.h"

using rgpu::server::cuda::ModuleImageKind;
using rgpu::server::cuda::prepare_module_image;
using rgpu::server::cuda::PreparedImage;

namespace {

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t offset, T value) {
  if (bytes.size() < offset + sizeof value) bytes.resize(offset + sizeof value);
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// A container with one ELF entry (64-byte header) of `payload` bytes, laid out as nvcc does.
std::vector<uint8_t> fatbin_with_entry(uint64_t payload) {
  std::vector<uint8_t> bytes(16 + 64 + payload);
  put<uint32_t>(bytes, 0, 0xBA55ED50);
  put<uint16_t>(bytes, 4, 1);
  put<uint16_t>(bytes, 6, 16);
  put<uint64_t>(bytes, 8, 64 + payload);
  put<uint16_t>(bytes, 16, 2);        // kind: ELF
  put<uint16_t>(bytes, 18, 0x0101);   // entry version
  put<uint32_t>(bytes, 20, 64);       // entry header size
  put<uint64_t>(bytes, 24, payload);  // entry payload size
  return bytes;
}

// An ELF64 header with one PROGBITS section of 8 bytes at offset 64, section table after it.
std::vector<uint8_t> small_elf() {
  std::vector<uint8_t> bytes(64 + 8 + 2 * sizeof(Elf64_Shdr));
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_shoff = 72;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 2;
  put(bytes, 0, header);
  Elf64_Shdr text{};
  text.sh_type = SHT_PROGBITS;
  text.sh_offset = 64;
  text.sh_size = 8;
  put(bytes, 72 + sizeof(Elf64_Shdr), text);
  return bytes;
}

}  // namespace

TEST_CASE("a consistent fatbin container is passed as it is", "[cuda_backend]") {
  std::vector<uint8_t> image = fatbin_with_entry(32);
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  REQUIRE(prepare_module_image(image, storage, &prepared) == cudaSuccess);
  CHECK(prepared.kind == ModuleImageKind::kFatbin);
  CHECK(prepared.data == image.data());
  CHECK(storage.empty());
}

TEST_CASE("a fatbin whose payload reaches past the image is refused", "[cuda_backend]") {
  std::vector<uint8_t> image = fatbin_with_entry(32);
  image.pop_back();
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  CHECK(prepare_module_image(image, storage, &prepared) == cudaErrorInvalidKernelImage);
}

TEST_CASE("a fatbin entry reaching past its container is refused", "[cuda_backend]") {
  std::vector<uint8_t> image = fatbin_with_entry(32);
  put<uint64_t>(image, 24, 33);
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  CHECK(prepare_module_image(image, storage, &prepared) == cudaErrorInvalidKernelImage);
  put<uint64_t>(image, 24, ~uint64_t{0});  // would wrap around
  CHECK(prepare_module_image(image, storage, &prepared) == cudaErrorInvalidKernelImage);
  put<uint64_t>(image, 24, 32);
  put<uint32_t>(image, 20, 4);  // an entry header too small to hold its own sizes
  CHECK(prepare_module_image(image, storage, &prepared) == cudaErrorInvalidKernelImage);
}

TEST_CASE("a truncated fatbin header is refused", "[cuda_backend]") {
  std::vector<uint8_t> image = fatbin_with_entry(0);
  image.resize(10);
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  CHECK(prepare_module_image(image, storage, &prepared) == cudaErrorInvalidKernelImage);
}

TEST_CASE("a consistent ELF is passed as it is", "[cuda_backend]") {
  std::vector<uint8_t> image = small_elf();
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  REQUIRE(prepare_module_image(image, storage, &prepared) == cudaSuccess);
  CHECK(prepared.kind == ModuleImageKind::kElf);
  CHECK(prepared.data == image.data());
}

TEST_CASE("an ELF whose section table or section lies outside the image is refused", "[cuda_backend]") {
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  std::vector<uint8_t> truncated = small_elf();
  truncated.resize(truncated.size() - 1);
  CHECK(prepare_module_image(truncated, storage, &prepared) == cudaErrorInvalidKernelImage);

  std::vector<uint8_t> lying = small_elf();
  put<uint64_t>(lying, 72 + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size), 1u << 20);
  CHECK(prepare_module_image(lying, storage, &prepared) == cudaErrorInvalidKernelImage);

  std::vector<uint8_t> header_only = small_elf();
  header_only.resize(40);
  CHECK(prepare_module_image(header_only, storage, &prepared) == cudaErrorInvalidKernelImage);
}

TEST_CASE("PTX with its NUL is passed as it is", "[cuda_backend]") {
  std::string ptx = ".version 9.0\n.target sm_90\n";
  std::vector<uint8_t> image(ptx.begin(), ptx.end());
  image.push_back(0);
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  REQUIRE(prepare_module_image(image, storage, &prepared) == cudaSuccess);
  CHECK(prepared.kind == ModuleImageKind::kPtx);
  CHECK(prepared.data == image.data());
}

TEST_CASE("PTX without a NUL is copied and terminated", "[cuda_backend]") {
  std::string ptx = ".version 9.0\n.target sm_90\n";
  std::vector<uint8_t> image(ptx.begin(), ptx.end());
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  REQUIRE(prepare_module_image(image, storage, &prepared) == cudaSuccess);
  CHECK(prepared.kind == ModuleImageKind::kPtx);
  REQUIRE(prepared.data == storage.data());
  CHECK(std::string(static_cast<const char*>(prepared.data)) == ptx);
}

TEST_CASE("an empty image is refused", "[cuda_backend]") {
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  CHECK(prepare_module_image({}, storage, &prepared) == cudaErrorInvalidKernelImage);
}

// Writes the valid inputs each fuzz target starts from into DIR/<target>/seed-NNNN, the part of
// tests/fuzz/corpus/ that is not found by fuzzing (scripts/fuzz.sh --seed-corpus runs it).
//   fuzz_seed_corpus DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/fuzz/dispatch_target.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/unit/fatbin/container_builder.h"

namespace {

using Inputs = std::vector<std::vector<uint8_t>>;

std::vector<uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }

Inputs handshake_seeds() {
  using namespace rgpu::fuzz;
  Inputs seeds;
  for (size_t side = 0; side < std::size(kHandshakeSides); ++side) {
    std::vector<uint8_t> input{static_cast<uint8_t>(side)};
    const auto stream = kHandshakeSides[side] == Target::kClient ? valid_server_stream() : valid_client_stream();
    input.insert(input.end(), stream.begin(), stream.end());
    seeds.push_back(input);
  }
  return seeds;
}

constexpr char kPtx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".global .align 4 .u32 counter = 7;\n"
    ".shared .align 4 .b8 tile[256];\n"
    ".visible .entry scale(\n  .param .u64 data,\n  .param .f32 factor,\n  .param .align 8 .b8 cfg[24]\n)\n"
    ".maxntid 256, 1, 1\n{\n  ret;\n}\n";

Inputs fatbin_seeds() {
  using rgpu::fatbin::testing::EntrySpec;
  Inputs seeds{bytes(kPtx)};
  EntrySpec ptx;
  ptx.kind = 1;
  ptx.payload = bytes(kPtx);
  ptx.payload.push_back(0);
  seeds.push_back(rgpu::fatbin::testing::build_container({ptx}));
  EntrySpec old_ptx = ptx;
  old_ptx.arch = 80;
  seeds.push_back(rgpu::fatbin::testing::build_container({old_ptx, ptx}));
  return seeds;
}

Inputs config_seeds() {
  return {bytes("tenants:\n  - {name: default, token: tok}\n"),
          bytes("listen: 127.0.0.1:7070\nadmin_token: s3cret-admin\n"
                "policy: {placement: spread, quantum_ms: 10, idle_release_ms: 10, min_share_percent: 5,\n"
                "         memory_overcommit: 2.0, swap_idle_ms: 2000, mps: false}\n"
                "tenants:\n"
                "  - name: inference\n    token: tok-inf\n    memory: 4096M\n    memory_host: 8G\n"
                "    compute: 30\n    compute_limit: 100\n    priority: high\n    queue_timeout: 600\n"
                "  - {name: training, token: tok-train, memory: 64G, compute: 70, priority: -20}\n")};
}

Inputs seeds_of(const std::string& target) {
  using rgpu::fuzz::Library;
  if (target == "fuzz_handshake") return handshake_seeds();
  if (target == "fuzz_frames") return {rgpu::fuzz::valid_frame_stream()};
  if (target == "fuzz_cudart_args") return rgpu::fuzz::dispatch_seeds(Library::kCudart);
  if (target == "fuzz_cublas_args") return rgpu::fuzz::dispatch_seeds(Library::kCublas);
  if (target == "fuzz_cublaslt_args") return rgpu::fuzz::dispatch_seeds(Library::kCublasLt);
  if (target == "fuzz_cudnn_args") return rgpu::fuzz::dispatch_seeds(Library::kCudnn);
  if (target == "fuzz_curand_args") return rgpu::fuzz::dispatch_seeds(Library::kCurand);
  if (target == "fuzz_cufft_args") return rgpu::fuzz::dispatch_seeds(Library::kCufft);
  if (target == "fuzz_cusparse_args") return rgpu::fuzz::dispatch_seeds(Library::kCusparse);
  if (target == "fuzz_cusolver_args") return rgpu::fuzz::dispatch_seeds(Library::kCusolver);
  if (target == "fuzz_fatbin") return fatbin_seeds();
  return config_seeds();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (const char* target : {"fuzz_handshake", "fuzz_frames", "fuzz_cudart_args", "fuzz_cublas_args",
                             "fuzz_cublaslt_args", "fuzz_cudnn_args", "fuzz_curand_args", "fuzz_cufft_args", "fuzz_cusparse_args",
                             "fuzz_cusolver_args",
                             "fuzz_fatbin",
                             "fuzz_config"}) {
    const std::filesystem::path dir = std::filesystem::path(argv[1]) / target;
    std::filesystem::create_directories(dir);
    const Inputs seeds = seeds_of(target);
    for (size_t i = 0; i < seeds.size(); ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "seed-%04zu", i);
      std::ofstream(dir / name, std::ios::binary)
          .write(reinterpret_cast<const char*>(seeds[i].data()), static_cast<std::streamsize>(seeds[i].size()));
    }
    std::printf("%s: %zu seeds\n", target, seeds.size());
  }
  return 0;
}

// Fixture loading and the expected layouts of tests/fixtures/fatbin/kernels.cu.
#include "fixtures.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

namespace rgpu::fatbin::testing {

std::string fixture_path(const std::string& name) {
  return std::string(RGPU_FATBIN_FIXTURES) + "/" + name;
}

const std::vector<uint8_t>& load_fixture(const std::string& name) {
  static std::map<std::string, std::vector<uint8_t>> loaded;
  auto it = loaded.find(name);
  if (it != loaded.end()) return it->second;
  std::ifstream in(fixture_path(name), std::ios::binary);
  INFO(fixture_path(name));
  REQUIRE(in.good());
  return loaded[name] = std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Layout layout_of(const KernelParams& kernel) {
  Layout out;
  for (const auto& p : kernel.params) out.emplace_back(p.offset, p.size);
  return out;
}

std::map<std::string, Layout> layouts_by_name(const std::vector<KernelParams>& kernels) {
  std::map<std::string, Layout> out;
  for (const auto& k : kernels) out.emplace(k.name, layout_of(k));
  return out;
}

const std::map<std::string, Layout>& expected_kernels_cu_layouts() {
  static const std::map<std::string, Layout> layouts = [] {
    std::map<std::string, Layout> m;
    // (const float*, const float*, float*, int)
    m["vector_add"] = {{0, 8}, {8, 8}, {16, 8}, {24, 4}};
    // (char, double, int, float, short, int64_t*)
    m["mixed_scalars"] = {{0, 1}, {8, 8}, {16, 4}, {20, 4}, {24, 2}, {32, 8}};
    // (Triple{3 floats}, char, Aligned{double, int}, int*, Big{int[40]})
    m["struct_args"] = {{0, 12}, {12, 1}, {16, 16}, {32, 8}, {40, 160}};
    m["no_params"] = {};
    // (int x8, char, double, float, int x9, int*)
    Layout many;
    for (uint32_t i = 0; i < 8; ++i) many.emplace_back(4 * i, 4);
    many.insert(many.end(), {{32, 1}, {40, 8}, {48, 4}});
    for (uint32_t i = 0; i < 9; ++i) many.emplace_back(52 + 4 * i, 4);
    many.emplace_back(88, 8);
    m["many_params"] = many;
    // (const float4* __restrict__, float* __restrict__, __grid_constant__ Triple, bool, short2,
    // double2)
    m["vector_types"] = {{0, 8}, {8, 8}, {16, 12}, {28, 1}, {32, 4}, {48, 16}};
    m["_Z5scaleIfEvPT_S0_i"] = {{0, 8}, {8, 4}, {12, 4}};  // scale<float>(float*, float, int)
    m["_Z5scaleIdEvPT_S0_i"] = {{0, 8}, {8, 8}, {16, 4}};  // scale<double>(double*, double, int)
    return m;
  }();
  return layouts;
}

}  // namespace rgpu::fatbin::testing

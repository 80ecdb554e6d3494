// parse_wrapper on the wrappers that nvcc-built host images register when loaded: this test
// plays libcudart, defining the registration functions that the dlopened images call.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <string>

#include "common/fatbin/mapped_memory.h"
#include "fixtures.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

struct Registration {
  const void* wrapper;
  std::set<std::string> functions;  // device-side names given to __cudaRegisterFunction
};

std::vector<Registration>& registrations() {
  static std::vector<Registration> all;
  return all;
}

// Loads a fixture image (running its registration constructors) and returns what it registered.
std::vector<Registration> load_image(const std::string& name) {
  const size_t before = registrations().size();
  void* handle = dlopen(fixture_path(name).c_str(), RTLD_LAZY | RTLD_LOCAL);
  INFO(dlerror());
  REQUIRE(handle != nullptr);  // kept open: the wrappers live in the image
  return {registrations().begin() + before, registrations().end()};
}

std::set<std::string> names_of(const std::map<std::string, Layout>& layouts) {
  std::set<std::string> names;
  for (const auto& [name, layout] : layouts) names.insert(name);
  return names;
}

}  // namespace

extern "C" {
void** __cudaRegisterFatBinary(void* wrapper) {
  registrations().push_back({wrapper, {}});
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char* device_name, int, void*, void*,
                            void*, void*, int*) {
  registrations().back().functions.insert(device_name);
}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
char __cudaInitModule(void**) { return 0; }
}

TEST_CASE("a plain host image registers a version 1 wrapper around the nvcc container") {
  static const int before_dlopen = 0;
  REQUIRE(readable_bytes_at(&before_dlopen) > 0);  // fills the map cache before the image exists

  auto regs = load_image("plain.so");
  REQUIRE(regs.size() == 1);
  auto containers = parse_wrapper(regs[0].wrapper, readable_bytes_at);
  REQUIRE(containers.is_ok());
  REQUIRE(containers->size() == 1);
  const Container& c = (*containers)[0];
  REQUIRE(c.entries.size() == 2);
  // The same container that nvcc -fatbin makes with the same flags.
  const auto fatbin = load_fixture("default.fatbin");
  CHECK(std::vector<uint8_t>(c.bytes.begin(), c.bytes.end()) == fatbin);

  auto kernels = kernel_params(c);
  REQUIRE(kernels.is_ok());
  CHECK(layouts_by_name(*kernels) == expected_kernels_cu_layouts());
  CHECK(regs[0].functions == names_of(expected_kernels_cu_layouts()));
}

TEST_CASE("an -rdc device-linked image registers a version 2 wrapper with its prelinked list") {
  auto regs = load_image("rdc.so");
  REQUIRE(regs.size() == 1);
  uint32_t version = 0;
  std::memcpy(&version, static_cast<const uint8_t*>(regs[0].wrapper) + 4, sizeof(version));
  CHECK(version == 2);
  auto containers = parse_wrapper(regs[0].wrapper, readable_bytes_at);
  REQUIRE(containers.is_ok());
  REQUIRE(containers->size() == 3);  // the linked image, then kernels.cu's and rdc_user.cu's

  auto all_kernels = expected_kernels_cu_layouts();
  all_kernels["bump_counter"] = {{0, 4}};
  const Container& linked = (*containers)[0];
  REQUIRE(linked.entries.size() == 1);
  CHECK(linked.entries[0].kind == EntryKind::kElf);
  CHECK(linked.entries[0].arch == 90);
  auto kernels = kernel_params(linked);
  REQUIRE(kernels.is_ok());
  CHECK(layouts_by_name(*kernels) == all_kernels);
  CHECK(regs[0].functions == names_of(all_kernels));

  // The prelinked containers hold relocatable SASS and PTX of one translation unit each.
  std::set<std::string> prelinked_names;
  for (size_t i = 1; i < containers->size(); ++i) {
    const Container& c = (*containers)[i];
    CHECK(c.entries.size() == 2);
    auto k = kernel_params(c);
    REQUIRE(k.is_ok());
    for (const auto& [name, layout] : layouts_by_name(*k)) {
      CHECK(all_kernels.at(name) == layout);
      prelinked_names.insert(name);
    }
  }
  CHECK(prelinked_names == names_of(all_kernels));
}

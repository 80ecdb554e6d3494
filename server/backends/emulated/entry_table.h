// The emulated backend's entry points by name, for the resolvers given to each library's generated
// load_api (runtime_table.cpp, cublas_table.cpp, nvml_table.cpp). Each entry is checked at compile
// time to have exactly the type of the real function the library's header declares.
#pragma once

#include <span>
#include <string_view>
#include <type_traits>

namespace rgpu::server::emulated {

struct Entry {
  const char* name;
  void* fn;
};

// `Real` comes from decltype only: the real function is declared, never linked.
template <typename Real, typename Emulated>
void* checked(Emulated fn) {
  static_assert(std::is_same_v<Emulated, Real>, "an emulated function's type differs from the library's header");
  return reinterpret_cast<void*>(fn);
}

// The entry of emulated::fn, under the real function's name.
#define RGPU_EMULATED(fn) ::rgpu::server::emulated::Entry{#fn, ::rgpu::server::emulated::checked<decltype(&::fn)>(&emulated::fn)}

// The function named `name` in `table`, or null.
inline void* find_entry(std::span<const Entry> table, std::string_view name) {
  for (const Entry& e : table)
    if (name == e.name) return e.fn;
  return nullptr;
}

}  // namespace rgpu::server::emulated

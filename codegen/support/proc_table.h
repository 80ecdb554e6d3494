// The table behind cuGetProcAddress: every entry point a program may ask for, by name and the CUDA
// version that introduced each ABI variant. The rows are generated (gen/<lib>/<lib>_proc_table.cpp,
// from cudaTypedefs.h and the exports: codegen/src/proc_versions.h); the lookup is here so that
// tests can run it on tables of their own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace rgpu::gen {

struct ProcEntry {
  const char* name;  // what a program asks for ("cuMemAlloc")
  int version;       // the CUDA version that introduced this variant; 0: any
  bool per_thread;   // a _ptds/_ptsz variant
  void (*fn)();      // the export that answers ("cuMemAlloc_v2")
};

// Sorted by (name, per_thread, version).
struct ProcTable {
  const ProcEntry* entries;
  size_t size;
};

enum class ProcLookup { kFound, kNotFound, kVersionTooOld };

// The newest variant of `name` not newer than `version`; with `per_thread`, a per-thread variant
// when the name has one at that version, else the ordinary one (as the driver answers).
inline ProcLookup find_proc(const ProcTable& t, std::string_view name, int version, bool per_thread,
                            const ProcEntry** out) {
  const ProcEntry* end = t.entries + t.size;
  const ProcEntry* first = std::lower_bound(t.entries, end, name,
                                            [](const ProcEntry& e, std::string_view n) { return e.name < n; });
  const ProcEntry* last = first;
  while (last != end && last->name == name) ++last;
  if (first == last) return ProcLookup::kNotFound;
  const ProcEntry* best = nullptr;
  for (bool pt : {per_thread, false}) {
    for (const ProcEntry* e = first; e != last; ++e)
      if (e->per_thread == pt && e->version <= version) best = e;  // ascending: the last one wins
    if (best) break;
  }
  if (!best) return ProcLookup::kVersionTooOld;
  *out = best;
  return ProcLookup::kFound;
}

}  // namespace rgpu::gen

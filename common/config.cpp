// The tunable registry.
#include "common/config.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace rgpu {
namespace {
std::vector<const Tunable*>& registry() {
  static std::vector<const Tunable*> r;
  return r;
}
}  // namespace

Tunable::Tunable(const char* name, const char* default_value, const char* doc)
    : name_(name), default_(default_value), doc_(doc) {
  registry().push_back(this);
}

bool Tunable::is_set() const { return std::getenv(name_) != nullptr; }

std::string Tunable::get() const {
  const char* v = std::getenv(name_);
  return v ? v : default_;
}

int64_t Tunable::get_int() const { return std::strtoll(get().c_str(), nullptr, 0); }

bool Tunable::get_bool() const {
  std::string v = get();
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

const std::vector<const Tunable*>& Tunable::all() { return registry(); }

std::string describe_tunables() {
  std::vector<const Tunable*> list = Tunable::all();
  std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return std::strcmp(a->name(), b->name()) < 0; });
  std::string out;
  for (const Tunable* t : list) {
    out += t->name();
    out += "=";
    out += t->get();
    out += "  (default \"";
    out += t->default_value();
    out += "\")  ";
    out += t->doc();
    out += "\n";
  }
  return out;
}

}  // namespace rgpu

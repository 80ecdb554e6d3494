// Tunables: each is declared where it is used, with its environment name, default and a one-line
// doc, and registers itself so that `rgpu config` (and `rgpud --config`) can print them all.
//
//   static const rgpu::Tunable kServer{"RGPU_SERVER", "127.0.0.1:7000", "rgpud address, host:port"};
//   std::string addr = kServer.get();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rgpu {

class Tunable {
 public:
  Tunable(const char* name, const char* default_value, const char* doc);
  const char* name() const { return name_; }
  const char* default_value() const { return default_; }
  const char* doc() const { return doc_; }
  // The environment's value, or the default.
  std::string get() const;
  int64_t get_int() const;
  bool get_bool() const;  // "1", "true", "yes", "on"
  bool is_set() const;

  static const std::vector<const Tunable*>& all();

 private:
  const char* name_;
  const char* default_;
  const char* doc_;
};

// Prints every registered tunable: name, current value, default, doc.
std::string describe_tunables();

}  // namespace rgpu

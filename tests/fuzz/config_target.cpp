// One configuration text through parse_config, and what an accepted one must satisfy.
#include "tests/fuzz/config_target.h"

#include <set>
#include <string_view>

#include "server/pool/pool_config.h"

namespace rgpu::fuzz {
namespace {

constexpr char kSource[] = "fuzz.yaml";
constexpr uint64_t kMiB = uint64_t{1} << 20;

std::string tenant_violation(const pool::TenantSpec& t) {
  const std::string who = "tenant '" + t.name + "': ";
  if (t.name.empty() || t.token.empty()) return "a tenant without a name or a token was accepted";
  if (t.memory_bytes % kMiB != 0) return who + "a memory slice that is no whole number of MiB";
  if (t.compute > 100 || t.compute_limit > 100 || t.compute_limit < t.compute)
    return who + "compute " + std::to_string(t.compute) + " and limit " + std::to_string(t.compute_limit);
  if (t.priority < -100 || t.priority > 100) return who + "priority " + std::to_string(t.priority);
  return {};
}

}  // namespace

std::string config_violation(std::span<const uint8_t> text) {
  const std::string_view view(reinterpret_cast<const char*>(text.data()), text.size());
  Result<pool::DaemonConfig> config = pool::parse_config(view, kSource);
  if (!config.is_ok()) {
    if (config.status().code() != Code::kInvalidArgument)
      return std::string("an error of kind '") + code_name(config.status().code()) + "': " + config.status().message();
    if (!config.status().message().starts_with(kSource)) return "an error that does not name the file: " + config.status().message();
    return {};
  }
  std::set<std::string> names, tokens;
  for (const pool::TenantSpec& t : config.value().tenants) {
    if (std::string v = tenant_violation(t); !v.empty()) return v;
    if (!names.insert(t.name).second) return "two tenants named '" + t.name + "'";
    if (!tokens.insert(t.token).second) return "two tenants share the token '" + t.token + "'";
    if (t.token == config.value().admin_token) return "tenant '" + t.name + "' holds the admin token";
  }
  if (config.value().policy.memory_overcommit < 1.0) return "a memory over-commit below 1";
  return {};
}

}  // namespace rgpu::fuzz

// The session's error log (see error_log.h).
#include "server/session/error_log.h"

namespace rgpu::server {

void ErrorLog::append(std::string_view line) {
  line = line.substr(0, kMaxEntryBytes);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\0')) line.remove_suffix(1);
  std::lock_guard<std::mutex> lock(mu_);
  entries_.emplace_back(line);
  bytes_ += line.size();
  while (bytes_ > kMaxBytes) {
    bytes_ -= entries_.front().size();
    entries_.pop_front();
    ++first_;
  }
}

uint32_t ErrorLog::end() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_ + static_cast<uint32_t>(entries_.size());
}

bool ErrorLog::read(uint32_t iterator, bool all, Since* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t end = first_ + static_cast<uint32_t>(entries_.size());
  if (all) iterator = first_;
  if (iterator > end) return false;
  out->end = end;
  out->dropped = iterator < first_ ? first_ - iterator : 0;
  for (size_t i = iterator < first_ ? 0 : iterator - first_; i < entries_.size(); ++i) out->entries.push_back(entries_[i]);
  return true;
}

}  // namespace rgpu::server

// The session's copy of the driver's error log (cudaLogs*): the entries its backend hands it
// (Backend::collect_error_log) and the client's own refusals, each numbered in order. An iterator
// (cudaLogIterator) is the number of the next entry; the log holds at most kMaxBytes of the latest
// entries, as the driver's own buffer does, so an old iterator may point before what is left.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace rgpu::server {

class ErrorLog {
 public:
  static constexpr size_t kMaxBytes = 25600;     // the driver's log buffer (cuLogsDumpToMemory's doc)
  static constexpr size_t kMaxEntryBytes = 1024;  // longer entries are cut there

  // Any thread (the driver calls back from the thread that failed).
  void append(std::string_view line);

  // The iterator of the log's end: the number the next entry gets.
  uint32_t end() const;

  struct Since {
    uint32_t end = 0;      // the log's end after the read
    uint32_t dropped = 0;  // entries from the iterator on that the log no longer holds
    std::vector<std::string> entries;
  };
  // The entries from `iterator` on (every held one when `all`); false for an iterator past the end.
  bool read(uint32_t iterator, bool all, Since* out) const;

 private:
  mutable std::mutex mu_;
  std::deque<std::string> entries_;
  uint32_t first_ = 0;  // the number of entries_.front()
  size_t bytes_ = 0;
};

}  // namespace rgpu::server

// The fuzz targets' driver where libFuzzer is not linked (GCC, CTest): every corpus file once, then
// a fixed number of seeded random mutations of them, each through the target's entry. Coverage
// guidance is scripts/fuzz.sh's (libFuzzer); this checks, on every CI build and under the
// sanitizers, that the committed corpus still passes and that its near neighbours do too.
//
//   fuzz_config [--mutations N] [--seed S] [--max-len BYTES] CORPUS_DIR_OR_FILE...
//
// Mutations are cut to --max-len (default: the larger of 4096 and the longest corpus file).
//
// A violated invariant or a sanitizer report aborts; the input is then in ./replay-crash-<pid>,
// which the libFuzzer build of the same target replays as is.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, for the abort handler to save.
const std::vector<uint8_t>* g_current = nullptr;
char g_crash_path[64];

void save_current_input(int sig) {
  if (g_current) {
    int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = write(fd, g_current->data(), g_current->size());
      (void)ignored;
      close(fd);
      const char note[] = "replay: the input is saved in ./";
      ignored = write(2, note, sizeof note - 1);
      ignored = write(2, g_crash_path, std::strlen(g_crash_path));
      ignored = write(2, "\n", 1);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run(const std::vector<uint8_t>& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(input.data(), input.size());
  g_current = nullptr;
}

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// libFuzzer's kinds of change, simply: bits, bytes, boundary values, inserts, erasures, cuts,
// copies inside the input and splices with another corpus file.
class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<std::vector<uint8_t>>& corpus, size_t max_len)
      : rng_(seed), corpus_(corpus), max_len_(max_len) {}

  std::vector<uint8_t> next() {
    std::vector<uint8_t> v = corpus_[pick(corpus_.size())];
    for (size_t changes = 1 + pick(4); changes > 0; --changes) change(v);
    if (v.size() > max_len_) v.resize(max_len_);
    return v;
  }

 private:
  size_t pick(size_t n) { return n ? static_cast<size_t>(rng_() % n) : 0; }

  void change(std::vector<uint8_t>& v) {
    static const uint64_t kBoundaries[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000,
                                           0xffffffff, 0x7fffffffffffffff, ~uint64_t{0}};
    const size_t at = pick(v.size() + 1);
    switch (pick(8)) {
      case 0:
        if (!v.empty()) v[pick(v.size())] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1:
        if (!v.empty()) v[pick(v.size())] = static_cast<uint8_t>(rng_());
        break;
      case 2: {  // a boundary value, 1, 2, 4 or 8 bytes wide
        const size_t width = size_t{1} << pick(4);
        if (v.size() < width) break;
        const uint64_t value = kBoundaries[pick(std::size(kBoundaries))];
        std::memcpy(v.data() + pick(v.size() - width + 1), &value, width);
        break;
      }
      case 3: {
        std::vector<uint8_t> bytes(1 + pick(16));
        for (auto& b : bytes) b = static_cast<uint8_t>(rng_());
        v.insert(v.begin() + static_cast<ptrdiff_t>(at), bytes.begin(), bytes.end());
        break;
      }
      case 4:
        v.erase(v.begin() + static_cast<ptrdiff_t>(at),
                v.begin() + static_cast<ptrdiff_t>(std::min(v.size(), at + 1 + pick(16))));
        break;
      case 5:
        v.resize(pick(v.size() + 1));
        break;
      case 6: {  // a copy of one part of the input over another
        if (v.size() < 2) break;
        const size_t from = pick(v.size()), n = 1 + pick(v.size() - from), to = pick(v.size() - n + 1);
        std::vector<uint8_t> part(v.begin() + static_cast<ptrdiff_t>(from), v.begin() + static_cast<ptrdiff_t>(from + n));
        std::copy(part.begin(), part.end(), v.begin() + static_cast<ptrdiff_t>(to));
        break;
      }
      default: {  // this input's head, another's tail
        const std::vector<uint8_t>& other = corpus_[pick(corpus_.size())];
        v.resize(at);
        v.insert(v.end(), other.begin() + static_cast<ptrdiff_t>(pick(other.size() + 1)), other.end());
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::vector<uint8_t>>& corpus_;
  size_t max_len_;
};

int usage(const char* me) {
  std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] [--max-len BYTES] CORPUS_DIR_OR_FILE...\n", me);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mutations = 0, seed = 1;
  size_t max_len = 0;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--mutations" || arg == "--seed" || arg == "--max-len") && i + 1 < argc) {
      const uint64_t value = std::strtoull(argv[++i], nullptr, 10);
      (arg == "--mutations" ? mutations : arg == "--seed" ? seed : max_len) = value;
    } else if (arg.starts_with("--")) {
      return usage(argv[0]);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.emplace_back(arg);
    }
  }
  std::sort(files.begin(), files.end());  // the same mutations on every machine
  std::vector<std::vector<uint8_t>> corpus;
  size_t longest = 4096;
  for (const auto& f : files) {
    corpus.push_back(read_file(f));
    longest = std::max(longest, corpus.back().size());
  }
  if (max_len == 0) max_len = longest;
  if (corpus.empty()) {
    std::fprintf(stderr, "%s: no corpus files\n", argv[0]);
    return usage(argv[0]);
  }

  std::snprintf(g_crash_path, sizeof g_crash_path, "replay-crash-%d", static_cast<int>(getpid()));
  std::signal(SIGABRT, save_current_input);
  std::signal(SIGSEGV, save_current_input);
  for (const auto& input : corpus) run(input);
  Mutator mutator(seed, corpus, max_len);
  for (uint64_t i = 0; i < mutations; ++i) run(mutator.next());
  std::printf("%s: %zu corpus inputs and %llu seeded mutations (seed %llu): no invariant violated\n", argv[0],
              corpus.size(), static_cast<unsigned long long>(mutations), static_cast<unsigned long long>(seed));
  return 0;
}

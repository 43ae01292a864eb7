// SPDX-License-Identifier: Apache-2.0
// Replays inputs through a fuzz target when no fuzzing engine is linked, so every target builds
// and its corpus runs as a test in every normal build. Arguments are files or directories; each
// must exist and give at least one input, so a deleted or emptied corpus fails instead of
// replaying nothing (or one empty input) and passing.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return false;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

// The inputs replayed from one argument; -1 if it is missing or unreadable.
long replay_argument(const std::filesystem::path& arg) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) return replay(arg) ? 1 : -1;
  if (!std::filesystem::is_directory(arg, ec)) return -1;
  long n = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(arg, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    if (!replay(it->path())) return -1;
    ++n;
  }
  return ec ? -1 : n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  long replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const long n = replay_argument(argv[i]);
    if (n < 0) {
      std::fprintf(stderr, "%s: missing or unreadable\n", argv[i]);
      return 1;
    }
    if (n == 0) {
      std::fprintf(stderr, "%s: no inputs (an empty corpus is a broken test, not a pass)\n", argv[i]);
      return 1;
    }
    replayed += n;
  }
  std::printf("replayed %ld inputs\n", replayed);
  return 0;
}

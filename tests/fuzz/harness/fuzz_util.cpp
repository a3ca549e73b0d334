#include "tests/fuzz/harness/fuzz_util.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdlib.h>

namespace chipless::fuzz {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kMarker = "@@file ";

void removeScratch() {
  std::error_code ec;
  fs::remove_all(scratchDir(), ec);
}
} // namespace

const std::string& scratchDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/chipless-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("chipless fuzz: mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  static const bool registered = (std::atexit(removeScratch), true);
  (void)registered;
  return dir;
}

std::string writeScratch(const std::string& name, std::string_view bytes) {
  const std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "chipless fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void clearScratch() {
  for (const auto& entry : fs::directory_iterator(scratchDir())) fs::remove_all(entry.path());
}

std::map<std::string, std::string> splitDirectory(std::string_view input) {
  std::map<std::string, std::string> files;
  size_t at =
      input.substr(0, kMarker.size()) == kMarker ? 0 : input.find("\n" + std::string(kMarker));
  while (at != std::string_view::npos) {
    const size_t nameStart = at + (input[at] == '\n' ? 1 : 0) + kMarker.size();
    const size_t nameEnd = input.find('\n', nameStart);
    const std::string name(input.substr(nameStart, nameEnd == std::string_view::npos
                                                       ? std::string_view::npos
                                                       : nameEnd - nameStart));
    const size_t bodyStart = nameEnd == std::string_view::npos ? input.size() : nameEnd + 1;
    const size_t next = input.find("\n" + std::string(kMarker), bodyStart > 0 ? bodyStart - 1 : 0);
    const size_t bodyEnd =
        next == std::string_view::npos ? input.size() : std::max(next, bodyStart);
    const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
    if (!name.empty() && plain && name != "." && name != "..")
      files[name] = std::string(input.substr(bodyStart, bodyEnd - bodyStart));
    at = next;
  }
  return files;
}

std::string joinDirectory(const std::map<std::string, std::string>& files) {
  std::string out;
  for (const auto& [name, bytes] : files) {
    if (!out.empty()) out += '\n';
    out += std::string(kMarker) + name + "\n" + bytes;
  }
  return out;
}

} // namespace chipless::fuzz

#include "runsc_identity.hpp"

#include <chrono>

#include "command.hpp"

namespace plb::tool {

std::string runsc_release(const std::string& version_line) {
  const auto tilde = version_line.find('~');
  if (tilde == std::string::npos || version_line.size() < tilde + 9) return {};
  std::string date = version_line.substr(tilde + 1, 8);
  for (char ch : date)
    if (ch < '0' || ch > '9') return {};
  return date;
}

std::string runsc_platform(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].starts_with("--platform=")) return args[i].substr(11);
    if (args[i] == "--platform" && i + 1 < args.size()) return args[i + 1];
  }
  return required_platform;
}

std::string runtime_version(const std::string& runtime_path) {
  const auto text = capture_command(runtime_path, {"--version"}, std::chrono::seconds(10));
  return text.substr(0, text.find('\n'));
}

}  // namespace plb::tool

// SPDX-License-Identifier: Apache-2.0
// A fresh private directory under the system's temporary directory, for a unit test's files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace plb::test {

// "" when none could be made (the caller asserts on it).
inline std::string make_temp_dir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  return ::mkdtemp(tmpl.data()) != nullptr ? tmpl : std::string();
}

}  // namespace plb::test

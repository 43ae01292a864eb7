// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox bundle-digest DIR`: the model bundle's digest, the value --bundle-sha256 takes, or
// with --list the canonical listing it is the SHA-256 of (docs/bundles.md). The walk is the
// snapshot's, without the copy: a bundle the run would refuse is refused here, with the same words
// (input_refused). The bundle's bounds are their defaults unless given.
#include <iostream>
#include <string>

#include "command.hpp"
#include "plb/sandbox/bundle_listing.hpp"
#include "runner/for_cli.hpp"
#include "score_flags.hpp"
#include "support/failure.hpp"

namespace plb::cli {
namespace {

// A bundle bound's flag: its limit's name with dashes, "--bundle-mib".
std::string flag_of(const sandbox::limit_info& i) {
  std::string flag = "--" + std::string(i.name);
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

class bundle_digest_command final : public command {
 public:
  void add_flags(CLI::App& app) override {
    app.add_option("DIR", dir_, "the bundle's directory (regular files and directories only)")->required();
    app.add_flag("--list", list_, "print the canonical listing (one line a file: SHA-256, size, path) instead");
    for (const auto& i : sandbox::limit_table) {
      if (!sandbox::is_bundle_limit(i.field)) continue;
      auto& b = bounds_[static_cast<std::size_t>(i.field) - first_bundle_field];
      b.flag = flag_of(i);
      b.option =
          app.add_option(b.flag, b.text,
                         std::string(i.unit) + ", " + std::to_string(i.min) + " to " + std::to_string(i.max) +
                             " (default " + std::to_string(sandbox::get(sandbox::SandboxLimits{}, i.field)) + ")");
    }
  }

  int run(const run_context& context) override {
    sandbox::SandboxLimits limits;
    for (const auto& i : sandbox::limit_table) {
      if (!sandbox::is_bundle_limit(i.field)) continue;
      const auto& b = bounds_[static_cast<std::size_t>(i.field) - first_bundle_field];
      limits.*(i.member) = parse_limit_flag(b.flag.c_str(), i.field, b.text, b.option);
    }
    const auto listing = digest_bundle(dir_, limits, list_);
    context.cancel.check();
    if (!listing)
      fail(sandbox::verdict::input_refused,
           "DIR " + sandbox::escape_bundle_path(dir_) + ": " + listing.error().message());
    // The names are printable UTF-8 without control bytes (the walk refused any other): the listing
    // prints as it is hashed.
    if (list_)
      std::cout << listing->text << std::flush;
    else
      std::cout << listing->digest.hex() << std::endl;
    return 0;
  }

 private:
  static constexpr std::size_t first_bundle_field = static_cast<std::size_t>(sandbox::limit_field::bundle_mib);
  struct bound_flag {
    std::string flag, text;
    CLI::Option* option = nullptr;
  };
  std::string dir_;
  bool list_ = false;
  bound_flag bounds_[4];
};

}  // namespace

std::unique_ptr<command> make_bundle_digest_command() { return std::make_unique<bundle_digest_command>(); }

}  // namespace plb::cli

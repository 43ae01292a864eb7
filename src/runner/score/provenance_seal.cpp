// SPDX-License-Identifier: Apache-2.0
#include "runner/score/provenance_seal.hpp"

#include "plb/sandbox/provenance_reader.hpp"

namespace plb::runner {
namespace {

const std::string rescore =
    "re-score the run (plb-sandbox sandbox-score with the same inputs) for a provenance this host seals";

}  // namespace

std::string sealed_provenance(const sandbox::provenance_record& record, const host_key& key) {
  std::string body = sandbox::provenance_seal_body(record);
  const std::string mac = hex_of(key.mac(sandbox::provenance_mac_message(body)));
  return sandbox::sealed_provenance_text(std::move(body), mac);
}

result<void> check_provenance_seal(std::string_view text, const host_key& key) {
  const sandbox::provenance_seal seal = sandbox::split_provenance_seal(text);
  switch (seal.error) {
    case sandbox::seal_error::ok: break;
    case sandbox::seal_error::too_large:
    case sandbox::seal_error::wrong_schema: return problem::says(std::string(sandbox::message(seal.error)));
    case sandbox::seal_error::unsigned_schema:
    case sandbox::seal_error::no_seal:
      return problem::says(std::string(sandbox::message(seal.error)) + ": nothing it names is trusted; " + rescore);
  }
  if (!key.verifies(sandbox::provenance_mac_message(seal.body), seal.mac_hex))
    return problem::says(std::string("its MAC does not verify with this host's key ") + host_key_path +
                         ": it was edited, or sealed under another host's key, and nothing it names is read; " +
                         rescore);
  return {};
}

}  // namespace plb::runner

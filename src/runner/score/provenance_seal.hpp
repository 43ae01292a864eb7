// SPDX-License-Identifier: Apache-2.0
// A provenance sealed under the host's key, and checked again. score() writes only sealed files;
// `verify` trusts a provenance only when its MAC verifies under this host's key, and checks that
// before it parses a byte of it: an edited one (another model_path or data_path, higher limits,
// another image) names nothing verify will read, hash or run. The seal's format is
// provenance.hpp's; this is where the key meets it.
#pragma once

#include <string>
#include <string_view>

#include "plb/sandbox/provenance.hpp"
#include "runner/host/host_key.hpp"
#include "support/problem.hpp"

namespace plb::runner {

// The file's bytes: render_json's document, sealed with its MAC under `key`.
std::string sealed_provenance(const sandbox::provenance_record& record, const host_key& key);

// Whether `text` is a sealed provenance whose MAC verifies under `key` (compared in constant time).
// Only its bytes are looked at: nothing is parsed. A problem says why in the tool's words and
// names the fix (re-score the run).
result<void> check_provenance_seal(std::string_view text, const host_key& key);

}  // namespace plb::runner

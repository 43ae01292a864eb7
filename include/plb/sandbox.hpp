// SPDX-License-Identifier: Apache-2.0
// Every header of the plb-sandbox core (include/plb/sandbox/), for vendors who want one include:
// header-only, linking only Boost.JSON and OpenSSL's libcrypto (plb::sandbox). Not
// plb/sandbox/runner.hpp: that is the runner library's API (plb::sandbox_runner), which a vendor
// of the core alone does not link. A new core header gets its line here.
#pragma once

#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/exit_codes.hpp"
#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/predictions_parser.hpp"
#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/provenance_reader.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "plb/sandbox/scoring_progress.hpp"
#include "plb/sandbox/stop_source.hpp"
#include "plb/sandbox/task_type.hpp"
#include "plb/sandbox/verdict.hpp"

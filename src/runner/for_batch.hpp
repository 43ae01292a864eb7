// SPDX-License-Identifier: Apache-2.0
// What the batch library needs of the runner beyond plb/sandbox/runner.hpp, in one deliberately
// named header: a batch makes one preflight and one sweep for many runs, then runs each line with
// that preflight, and checks each line's request under the manifest's field names. None of this
// is public: runner.hpp's score() makes its own preflight every time, which is right for one run
// and wrong for a thousand. Not installed; these types change with the runner.
//
// ci/checks/check-layering holds that src/batch reaches the runner through this header only.
#pragma once

#include "runner/api/runner.hpp"
#include "runner/container/sweep.hpp"
#include "runner/engine/docker_engine.hpp"
#include "runner/host/host_key.hpp"
#include "runner/host/preflight.hpp"
#include "runner/score/output_files.hpp"
#include "runner/score/request_check.hpp"
#include "runner/score/score.hpp"
#include "runner/score/verify.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::batch {

// Each name the batch layer uses, said once.
using runner::append_csv_field;   // the summary's cells, quoted like the predictions CSV's
using runner::check_request;      // a line's request, checked like the runner API's
using runner::docker_engine;      // the batch's own preflight and sweep talk to the daemon
using runner::field_names;        // how a rejected request field is named (the manifest's names)
using runner::fresh_verify_path;  // batch --verify: each re-run's fresh path, the same rule as verify's
using runner::hex_of;
using runner::host_facts;  // one preflight's answer, shared by the lines on that image
using runner::host_key;    // the host's key: the batch's records are sealed under it, as provenances are
using runner::host_key_name;
using runner::host_key_path;
using runner::load_host_key;
using runner::open_state_dir;   // the batch key lives in the tool's state directory
using runner::preflight;        // once per image per batch
using runner::run_hooks;        // a line's run, with the batch's preflight
using runner::score_to_result;  // a line's run to its verdict, every failure caught, in the manifest's names
using runner::state_dir;
using runner::sweep_orphans;  // once before the first line
using runner::this_host_key;
using runner::verify_mismatch_table;
using runner::verify_options;  // ... run as `verify` runs one
using runner::verify_outcome;
using runner::verify_run;

}  // namespace plb::batch

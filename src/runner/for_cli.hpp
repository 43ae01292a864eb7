// SPDX-License-Identifier: Apache-2.0
// What plb-sandbox's own command line needs of the runner beyond plb/sandbox/runner.hpp, in one
// deliberately named header: the commands an operator runs on the host itself (doctor, sweep,
// explain, the deadline warden's service) rather than to score. They print the runner's own
// reports, so they take its types; an embedding program has no use for them, so runner.hpp keeps
// them out. Not installed; these types change with the runner.
//
// ci/checks/check-layering holds that tools/ reaches the runner through this header only.
#pragma once

#include "plb/sandbox/image_id.hpp"
#include "runner/api/runner.hpp"
#include "runner/container/sweep.hpp"
#include "runner/engine/docker_engine.hpp"
#include "runner/host/doctor.hpp"
#include "runner/host/unconfirmed_removals.hpp"
#include "runner/host/warden.hpp"
#include "runner/host/warden_removals.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "runner/score/explain.hpp"
#include "runner/score/request_check.hpp"
#include "runner/score/score_request.hpp"
#include "runner/score/verify.hpp"
#include "support/cancellation.hpp"

namespace plb::cli {

using runner::bundle_error;   // bundle-digest: the snapshot's walk, without the copy
using runner::check_request;  // the flags' request, checked under the flags' names
using runner::digest_bundle;
using runner::docker_engine;  // the warden's passes ask the daemon
using runner::docker_socket;
using runner::doctor;
using runner::engine_error;
using runner::explain;  // explain and its two renderings
using runner::explanation;
using runner::explanation_json;
using runner::explanation_lines;
using runner::field_names;
using runner::first_sightings;  // the warden's monotonic bound
using runner::info;             // what each pass removes
using runner::labelled_container;
using runner::list_failure_line;
using runner::max_listed_containers;
using runner::needing_exact_creation;  // the warden's creation times to the millisecond
using runner::overdue;
using runner::ping_warden;  // `warden --status`, and the service's status lines
using runner::read_warden_clock;
using runner::removals_in_flight;  // the warden's removals, each on a thread of its own
using runner::render_warden_status;
using runner::score_checked;  // sandbox-score's run of the request its flags made, checked once
using runner::score_request;
using runner::sweep_orphans;
using runner::unconfirmed_removals;      // the warden's removals whose answer a stall lost
using runner::verify_differs_exit_code;  // `verify`: the re-run and its words
using runner::verify_mismatch_table;
using runner::verify_options;
using runner::verify_outcome;
using runner::verify_run;
using runner::warden_answer_timeout;  // the supervisor's liveness check
using runner::warden_clock;
using runner::warden_period;
using runner::warden_status;
using runner::warden_stuck_ms;
using runner::warden_unanswered;

}  // namespace plb::cli

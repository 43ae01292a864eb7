// SPDX-License-Identifier: Apache-2.0
#include "warden_pass.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "warden_log.hpp"

namespace plb::cli {
namespace {

// The list's Created is whole seconds: a container within a second of its deadline is inspected
// once for its Created to the nanosecond. One that cannot be inspected keeps the end of its listed
// second (never early); one that is gone is not judged anyway.
void learn_creations(const docker_engine& engine, const std::vector<labelled_container>& listed, warden_clock now,
                     first_sightings& seen) {
  for (const auto& c : needing_exact_creation(listed, now, seen)) {
    const auto inspected = engine.inspect_container(c.name);
    if (inspected && *inspected && (*inspected)->created_ns) seen.learn_creation(c, *(*inspected)->created_ns);
  }
}

// "1.234" for 1234 ms.
std::string seconds_text(std::int64_t ms) {
  const std::string frac = std::to_string(1000 + ms % 1000);
  return std::to_string(ms / 1000) + "." + frac.substr(1);
}

// A container whose removal's answer was lost (unconfirmed_removals.hpp) and is now gone: the warden's
// removal, as far as the daemon can tell, and logged as one, so each container's end is recorded.
void log_unconfirmed_gone(const unconfirmed_removals::removal& r, warden_state& state, const char* how) {
  state.removed.fetch_add(1);
  log_line("removed " + r.name + ": " + seconds_text(r.ms_past) + " s past its deadline when first asked (" + how +
           ", after a removal the daemon did not confirm)");
}

}  // namespace

// The removals answered since the last call, logged: a failure is asked again by a later pass. A
// lost answer (engine_error::answer_lost) is remembered, so that the container's end is logged when
// a list no longer holds it. A removal confirmed after a failed one says how late the first ask
// was (that is the warden's part of the bound) and that it was asked again.
void log_removal_answers(warden_state& state, warden_pass_memory& memory) {
  for (auto& [o, removed] : memory.removals.take_answers()) {
    if (!removed) {
      log_line("could not remove " + o.name + " (" + removed.error().message() + "); retrying");
      if (removed.error().answer_lost) memory.unconfirmed.failed(o);
      memory.failing_removals.try_emplace(o.name, o.ms_past);  // the first failed ask's lateness kept
      continue;
    }
    std::optional<std::int64_t> first_failed;
    if (const auto it = memory.failing_removals.find(o.name); it != memory.failing_removals.end()) {
      first_failed = it->second;
      memory.failing_removals.erase(it);
    }
    const auto was_unconfirmed = memory.unconfirmed.confirmed(o.name);
    if (!*removed) {  // gone meanwhile: an earlier removal's, if one went unanswered
      if (was_unconfirmed) log_unconfirmed_gone(*was_unconfirmed, state, "the daemon no longer has it");
      continue;
    }
    state.removed.fetch_add(1);
    if (first_failed)
      log_line("removed " + o.name + ": " + seconds_text(*first_failed) +
               " s past its deadline when first asked (asked again after a removal the daemon did not confirm)");
    else
      log_line("removed " + o.name + ": " + seconds_text(o.ms_past) + " s past its deadline");
  }
}

void warden_pass(const docker_engine& engine, warden_state& state, warden_pass_memory& memory) {
  log_removal_answers(state, memory);
  const auto listed = engine.list_labelled();
  if (!listed) {
    const std::string line = list_failure_line(listed.error());
    if (line != memory.failing) log_line(line);  // once per cause, not once a period
    memory.failing = line;
    return;
  }
  if (!memory.failing.empty()) log_line("the Docker daemon lists its containers again");
  memory.failing.clear();
  if (listed->left_out != memory.left_out && listed->left_out > 0)
    log_line(std::to_string(listed->left_out) + " labelled container(s) past the list's bound of " +
             std::to_string(max_listed_containers) + ": judged once the " + std::to_string(listed->containers.size()) +
             " kept (the tool's own, the first due first) are gone");
  memory.left_out = listed->left_out;
  for (const auto& r : memory.unconfirmed.gone(*listed)) {
    if (memory.removals.asking(r.name))
      memory.unconfirmed.failed({r.name, r.ms_past});  // a retry is in flight: its answer says
    else
      log_unconfirmed_gone(r, state, "the list no longer holds it");
  }
  const warden_clock now = read_warden_clock();
  memory.seen.note(listed->containers, now.monotonic_ms);
  learn_creations(engine, listed->containers, now, memory.seen);
  const auto due = overdue(listed->containers, now, memory.seen);
  log_removal_answers(state, memory);  // those that landed during the list free their slots
  memory.removals.start(due);
  // Stuck: still due warden_stuck_seconds past its deadline, and its last removal failed or it is
  // not being asked (no slot or no thread for it). Only a first ask still in flight is given time.
  std::unordered_map<std::string, std::int64_t> failing;
  std::uint64_t stuck = 0;
  for (const auto& o : due) {
    const auto it = memory.failing_removals.find(o.name);
    if (it != memory.failing_removals.end()) failing.insert(*it);
    const bool waiting = it != memory.failing_removals.end() || !memory.removals.asking(o.name);
    stuck += waiting && o.ms_past >= warden_stuck_ms ? 1 : 0;
  }
  memory.failing_removals.swap(failing);
  state.stuck.store(stuck);
  state.last_pass.store(warden_monotonic_ms());
}

}  // namespace plb::cli

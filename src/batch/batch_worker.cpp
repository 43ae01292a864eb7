// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_worker.hpp"

#include <charconv>
#include <chrono>
#include <ctime>
#include <mutex>
#include <thread>

#include "batch/backend.hpp"
#include "batch/batch_claims.hpp"
#include "batch/batch_resume.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

constexpr std::size_t max_line_list_bytes = std::size_t{16} << 20;
constexpr auto linger_poll = std::chrono::milliseconds(250);

// The lines this worker may take, in order: a first pass over the submitter's list, then the lines
// it found held by other workers, until each has its record or is handed back.
class line_source {
 public:
  line_source(const batch_plan& plan, std::vector<std::size_t> todo, const output_dir& dir, const claim_dir& claims,
              const worker_report& me, const cancellation& cancel)
      : plan_(plan), todo_(std::move(todo)), dir_(dir), claims_(claims), me_(me), cancel_(cancel) {}

  // A line this worker now holds, or nullopt when none is left to take (or on a stop).
  std::optional<std::size_t> next() {
    while (!cancel_.signal()) {
      {
        const std::lock_guard lock(mutex_);
        while (cursor_ < todo_.size()) {
          const std::size_t i = todo_[cursor_++];
          if (take(i, true)) return i;
        }
        for (auto it = watched_.begin(); it != watched_.end();) {
          const std::size_t i = *it;
          if (recorded(i)) {
            it = watched_.erase(it);
          } else if (!claims_.exists(std::string(plan_.id(i))) && take(i, false)) {
            watched_.erase(it);
            return i;
          } else {
            ++it;
          }
        }
        if (watched_.empty()) return std::nullopt;
      }
      std::this_thread::sleep_for(linger_poll);
    }
    return std::nullopt;
  }

 private:
  bool recorded(std::size_t i) const {
    return probe_entry(dir_.fd.get(), record_name(std::string(plan_.id(i))), dir_.owner).kind != entry_kind::absent;
  }
  // Claims line i unless it has a record (it is done) or another worker holds it (it is watched).
  bool take(std::size_t i, bool watch) {
    const std::string id(plan_.id(i));
    if (recorded(i)) return false;
    const claim_info claim{me_.worker, me_.node, static_cast<std::int64_t>(std::time(nullptr))};
    if (!claims_.try_claim(id, claim)) {
      if (watch) watched_.push_back(i);
      return false;
    }
    if (!recorded(i)) return true;
    claims_.release(id);  // finished by another worker between the look and the claim
    return false;
  }

  const batch_plan& plan_;
  const std::vector<std::size_t> todo_;
  const output_dir& dir_;
  const claim_dir& claims_;
  const worker_report& me_;
  const cancellation& cancel_;
  std::mutex mutex_;
  std::size_t cursor_ = 0;
  std::vector<std::size_t> watched_;
};

std::vector<std::size_t> read_line_list(const claim_dir& claims, std::size_t lines) {
  const auto text = claims.get("lines", max_line_list_bytes);
  if (!text) fail(verdict::usage_error, "--worker: " + claims.path() + "/lines: " + text.error().what);
  auto list = parse_line_list(*text, lines);
  if (!list) fail(verdict::usage_error, "--worker: " + claims.path() + "/lines is not a list of lines");
  return std::move(*list);
}

}  // namespace

std::optional<std::vector<std::size_t>> parse_line_list(const std::string& text, std::size_t lines) {
  std::vector<std::size_t> out;
  std::vector<bool> seen(lines, false);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos || end == at || end - at > 20) return std::nullopt;
    std::size_t v = 0;
    const auto [p, ec] = std::from_chars(text.data() + at, text.data() + end, v);
    if (ec != std::errc() || p != text.data() + end || v >= lines || seen[v]) return std::nullopt;
    seen[v] = true;
    out.push_back(v);
    at = end + 1;
  }
  return out;
}

std::string render_line_list(const std::vector<std::size_t>& indexes) {
  std::string out;
  for (const std::size_t i : indexes) out.append(std::to_string(i)).push_back('\n');
  return out;
}

int run_batch_worker(const batch_config& config, const batch_plan& plan, worker_report me, unsigned jobs,
                     const sandbox::stop_source& stop) {
  const cancellation cancel(&stop);
  const output_dir dir = open_output_dir(config.output_dir, false);
  const claim_dir claims(dir);
  std::vector<std::size_t> todo = read_line_list(claims, plan.size());
  claims.report(me);
  std::map<std::string, host_facts> hosts;
  try {
    hosts = preflight_once(plan, todo, cancel);
  } catch (const failure& f) {
    me.state = "refused";
    me.message = f.what();
    claims.report(me);  // this node takes no line; the submitter names it in the summary
    throw;
  }
  line_source source(plan, std::move(todo), dir, claims, me, cancel);
  std::mutex digests_mutex;
  data_digests digests;
  const auto work = [&] {
    while (const auto i = source.next()) {
      const batch_item item = plan.item(*i);
      std::string data;
      {
        const std::lock_guard lock(digests_mutex);
        data = digests.of(item.request.data_path);
      }
      const run_hooks run{cancel, {}, &hosts.at(item.request.runtime_image)};
      try {
        (void)run_line(item, run, dir, data, me);
      } catch (const std::exception&) {  // its record could not be written: the line stays open
      }
      claims.release(item.id);  // recorded, or stopped (its sandbox removed): free for another worker
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < std::max(1u, jobs); ++k) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  me.state = "done";
  me.message = cancel.signal() ? "stopped" : "no line left to take";
  claims.report(me);
  return cancel.signal() ? 128 + cancel.signal() : 0;
}

}  // namespace plb::batch

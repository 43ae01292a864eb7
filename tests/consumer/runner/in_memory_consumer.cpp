// SPDX-License-Identifier: Apache-2.0
// A scorer that keeps its features in memory, embedding the executor through the installed runner
// library: score_in_memory scores a real script in gVisor from a row-major matrix and returns the
// predictions in row order with the usage and provenance; a limit outside its bounds and a stop
// request are honoured before anything runs; a bad matrix is named; and no file is written
// anywhere the caller can see (the working directory stays as it was). Prints "in-memory
// consumer ok"; exits 1 on any failure.
#include <plb/sandbox/runner.hpp>

#include <plb/sandbox/digest.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <set>
#include <vector>

namespace sb = plb::sandbox;
namespace fs = std::filesystem;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, const sb::in_memory_result& r) {
  if (ok) return;
  ++failures;
  std::cerr << "FAIL: " << what << " (verdict " << sb::name(r.outcome) << ", exit " << r.exit_code << ": " << r.message
            << ")\n";
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) ++n;
  return n;
}

// The run directories this process holds open: the run's own, named by its descriptors rather
// than by counting runs/, which other runs on the host add to and remove from meanwhile.
std::set<fs::path> run_directories_held(const fs::path& runs) {
  std::set<fs::path> held;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/self/fd", ec)) {
    const fs::path target = fs::read_symlink(fd.path(), ec);
    if (ec) continue;
    const fs::path relative = target.lexically_relative(runs);
    if (relative.empty() || *relative.begin() == ".." || *relative.begin() == ".") continue;
    held.insert(runs / *relative.begin());
  }
  return held;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: in_memory_consumer IMAGE_ID WORK_DIR\n";
    return 2;
  }
  const std::string image = argv[1];
  const fs::path dir = argv[2];
  fs::current_path(dir);
  // A weighted sum, so that a transposed or reordered matrix gives other predictions.
  const std::string script =
      "import json, sys\nrows = json.load(sys.stdin)['features']\n"
      "print(json.dumps({'predictions': [r[0] + 10 * r[1] - r[2] for r in rows]}))\n";
  const std::vector<double> matrix = {1,   2,  3,  //
                                      4,   5,  6,  //
                                      0.5, -1, 1e3, 7, 0, -2};
  sb::in_memory_request request;
  request.script_bytes = script;
  request.script_sha256 = sb::sha256_of(std::string_view(script)).digest.hex();
  request.runtime_image = image;
  request.features = matrix.data();
  request.rows = 4;
  request.columns = 3;
  request.feature_names = {"a", "b", "c"};
  request.limits.wall_seconds = 20;
  request.limits.memory_mib = 256;
  const std::size_t before = entries(dir);
  // The run's private directory is the one file a run makes, and it is gone when the call returns.
  const fs::path runs = "/var/lib/plb-sandbox/runs";
  std::set<fs::path> run_dirs;
  sb::scoring_options watching;
  watching.on_progress = [&](const sb::scoring_progress&) { run_dirs.merge(run_directories_held(runs)); };

  const auto ok = sb::score_in_memory(request, watching);
  expect(static_cast<bool>(ok), "a run from memory succeeds", ok);
  const std::vector<double> want = {1 + 20 - 3, 4 + 50 - 6, 0.5 - 10 - 1e3, 7 + 0 + 2};
  expect(ok.predictions == want, "the predictions, in row order", ok);
  expect(ok.usage.has_value() && ok.usage->wall_seconds > 0, "usage is reported", ok);
  expect(ok.provenance.has_value(), "the provenance record comes back", ok);
  if (ok.provenance) {
    expect(ok.provenance->rows == 4, "the provenance counts the rows", ok);
    expect(ok.provenance->features == request.feature_names, "the provenance names the columns", ok);
    expect(ok.provenance->model_sha256.hex() == request.script_sha256, "the provenance holds the reviewed digest", ok);
    expect(ok.provenance->limits.wall_seconds == 20, "the provenance records the limits", ok);
  }
  expect(entries(dir) == before, "no file was written where the caller can see", ok);
  expect(run_dirs.size() == 1,
         "the run held one directory of its own while it ran (saw " + std::to_string(run_dirs.size()) + ")", ok);
  for (const auto& d : run_dirs) expect(!fs::exists(d), "the run directory " + d.string() + " is gone", ok);

  // The same script from a path, with the same digest check.
  auto by_path = request;
  by_path.script_bytes.clear();
  by_path.script_path = (dir / "model.py").string();
  auto wrong = by_path;
  wrong.script_sha256 = std::string(64, '0');
  {
    std::FILE* f = std::fopen(by_path.script_path.c_str(), "w");
    std::fputs(script.c_str(), f);
    std::fclose(f);
  }
  const auto mismatch = sb::score_in_memory(wrong);
  expect(mismatch.outcome == sb::verdict::input_refused, "a script that is not the reviewed one is refused", mismatch);

  // A limit outside its bounds: refused by the core's validate(), before anything runs.
  auto bad = request;
  bad.limits.memory_mib = 1;
  const auto refused = sb::score_in_memory(bad);
  expect(refused.outcome == sb::verdict::usage_error, "memory_mib = 1 is a usage error", refused);
  expect(refused.message.find("limits.memory_mib = 1") != std::string::npos, "the message names the field", refused);
  expect(!refused.usage.has_value() && refused.predictions.empty(), "nothing ran", refused);

  // A matrix with a NaN is named by its row and column; one without rows is refused.
  std::vector<double> with_nan = matrix;
  with_nan[4] = std::numeric_limits<double>::quiet_NaN();
  auto nan_request = request;
  nan_request.features = with_nan.data();
  const auto nan_refused = sb::score_in_memory(nan_request);
  expect(nan_refused.outcome == sb::verdict::usage_error &&
             nan_refused.message.find("row 1, column 1") != std::string::npos,
         "a NaN is a usage error naming its row and column", nan_refused);
  auto empty = request;
  empty.rows = 0;
  expect(sb::score_in_memory(empty).outcome == sb::verdict::usage_error, "no rows is a usage error", refused);

  // A stop requested before the run: nothing runs, and the reason comes back.
  sb::stop_source stop;
  stop.request_stop(15);
  sb::scoring_options stopping;
  stopping.stop = &stop;
  const auto stopped = sb::score_in_memory(request, stopping);
  expect(stopped.stopped_by == 15 && !stopped && stopped.predictions.empty(), "a stop request ends the run", stopped);

  fs::remove(by_path.script_path);
  expect(entries(dir) == before, "nothing left behind", stopped);
  if (failures) return 1;
  std::cout << "in-memory consumer ok\n";
  return 0;
}

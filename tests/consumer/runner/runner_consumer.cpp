// SPDX-License-Identifier: Apache-2.0
// A program that embeds the executor through the installed runner library: it scores a real
// script in gVisor with limits the command line cannot set, and checks that a limit outside its
// bounds and a stop request are honoured before anything runs, and that progress is reported
// while it runs. Prints "consumer ok"; exits 1 on any failure.
#include <plb/sandbox/runner.hpp>

#include <plb/sandbox/digest.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace sb = plb::sandbox;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, const sb::scoring_result& r) {
  if (ok) return;
  ++failures;
  std::cerr << "FAIL: " << what << " (verdict " << sb::name(r.outcome) << ", exit " << r.exit_code << ": " << r.message
            << ")\n";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer IMAGE_ID WORK_DIR\n";
    return 2;
  }
  const std::string image = argv[1], dir = argv[2];
  // The sleep keeps the script running for two seconds past its container's start: progress,
  // reported every 200 ms or so (runner.hpp), must then come several times with the script's own
  // time growing.
  const std::string script =
      "import json, sys, time\nrows = json.load(sys.stdin)['features']\ntime.sleep(2)\n"
      "print(json.dumps({'predictions': [sum(r) for r in rows]}))\n";
  std::ofstream(dir + "/model.py") << script;
  std::ofstream(dir + "/data.csv") << "id,a,b\nx,1,2\ny,3,4.5\n";

  sb::scoring_request request;
  request.model_path = dir + "/model.py";
  request.model_sha256 = sb::sha256_of(std::string_view(script)).digest.hex();
  request.runtime_image = image;
  request.data_path = dir + "/data.csv";
  request.features = {"a", "b"};
  request.id_column = "id";
  request.output_path = dir + "/out.csv";
  // Limits only the API can choose.
  request.limits.wall_seconds = 15;
  request.limits.start_seconds = 20;
  request.limits.memory_mib = 128;
  request.limits.output_mib = 1;
  request.limits.cpu_millicores = 500;
  request.limits.scratch_mib = 4;

  int progress_calls = 0, with_the_wall = 0, running_calls = 0;
  double last_elapsed = -1;
  bool elapsed_grows = true, starting_is_zero = true;
  sb::scoring_options options;
  options.on_progress = [&](const sb::scoring_progress& p) {
    ++progress_calls;
    with_the_wall += p.wall_seconds == 15.0;  // the request's own limit
    if (p.starting) {                         // the host's start-up: not the script's time
      starting_is_zero = starting_is_zero && p.elapsed_seconds == 0;
      return;
    }
    ++running_calls;
    elapsed_grows = elapsed_grows && p.elapsed_seconds > last_elapsed;
    last_elapsed = p.elapsed_seconds;
  };
  const auto ok = sb::score(request, options);
  expect(static_cast<bool>(ok), "a run with custom limits succeeds", ok);
  // Two, not ten: a loaded host may space the samples out, but a second without any is a bug.
  expect(running_calls >= 2, "progress is reported while the script runs (" + std::to_string(running_calls) + " times)",
         ok);
  expect(with_the_wall == progress_calls, "every progress report carries the request's wall limit", ok);
  expect(elapsed_grows && last_elapsed > 0, "the script's time grows from one report to the next", ok);
  expect(starting_is_zero, "while the container starts, no time is counted against the script", ok);
  expect(slurp(request.output_path) == "id,prediction\nx,3\ny,7.5\n", "its predictions", ok);
  const std::string provenance = slurp(ok.provenance_path);
  for (const char* want : {"\"wall_seconds\":15", "\"start_seconds\":20", "\"memory_mib\":128", "\"output_mib\":1",
                           "\"cpu_millicores\":500", "\"startup_seconds\":"})
    expect(provenance.find(want) != std::string::npos, std::string("provenance records ") + want, ok);
  expect(ok.usage.has_value(), "usage is reported", ok);
  // The script's own time: the two-second sleep and the interpreter's start, none of the container's.
  expect(ok.usage && ok.usage->wall_seconds >= 2.0 && ok.usage->wall_seconds < 15.0 && ok.usage->startup_seconds > 0,
         "usage separates the start-up from the script's own time", ok);

  // A limit outside its bounds: refused by the core's validate(), before anything runs.
  auto bad = request;
  bad.output_path = dir + "/bad.csv";
  bad.limits.wall_seconds = 0;
  const auto refused = sb::score(bad, {});
  expect(refused.outcome == sb::verdict::usage_error, "wall_seconds = 0 is a usage error", refused);
  expect(refused.message.find("limits.wall_seconds = 0") != std::string::npos, "the message names the field", refused);
  // usage is set once a sandbox has run (runner.hpp): none, and no output, means nothing ran.
  expect(!refused.usage.has_value() && !std::filesystem::exists(bad.output_path), "nothing ran", refused);

  // A stop requested before the run: nothing runs or is published, and the reason comes back.
  sb::stop_source stop;
  stop.request_stop(15);
  sb::scoring_options stopping;
  stopping.stop = &stop;
  auto stopped_request = request;
  stopped_request.output_path = dir + "/stopped.csv";
  const auto stopped = sb::score(stopped_request, stopping);
  expect(stopped.stopped_by == 15 && !stopped, "a stop request ends the run", stopped);
  expect(!std::filesystem::exists(stopped_request.output_path), "a stopped run publishes nothing", stopped);

  if (failures) return 1;
  std::cout << "consumer ok (progress reported " << progress_calls << " times)\n";
  return 0;
}

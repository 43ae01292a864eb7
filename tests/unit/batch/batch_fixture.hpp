// SPDX-License-Identifier: Apache-2.0
// A scratch output directory for the batch unit tests (0700, this user's, like a real one), a
// manifest writer, and a batch key of its own in DIR/.key: the tests never touch the host's key.
// On it, the fixtures several unit files share: BatchFiles (a plan's refusal), BatchScale (a plan
// of `many` lines) and BatchTrust (a plan, a signed record, a refusal's words).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../temp_dir.hpp"

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"
#include "batch/batch_records.hpp"
#include "plb/sandbox/provenance.hpp"
#include "runner/for_batch.hpp"
#include "support/failure.hpp"

namespace plb::batch {

inline const std::string hex64 = "2d5ac43c328cd40926415024070b0f97d27503c27f62d8a6f5c1c5ecd3bb9fad";
inline const std::string image = "sha256:" + std::string(64, 'b');

class BatchDir : public test::temp_dir_test {
 protected:
  BatchDir() : temp_dir_test("plb-batch-test") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(::mkdir((dir_ + "/.key").c_str(), 0700), 0);
    write("in.csv", "a,b\n1,2\n");
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary | std::ios::trunc) << text;
  }
  std::string line(const std::string& id, const std::string& extra = "") const {
    return R"({"id": ")" + id + R"(", "model": "m.py", "model_sha256": ")" + hex64 + "\"" + extra + "}\n";
  }
  batch_config config() const {
    batch_config c;
    c.manifest_path = dir_ + "/manifest.jsonl";
    c.output_dir = dir_;
    c.defaults.runtime_image = image;
    c.defaults.data = dir_ + "/in.csv";
    c.defaults.features = {"a"};
    c.defaults.task_type = "regression";
    return c;
  }
  host_key key(const std::string& dir = ".key") const {
    const unique_fd fd(::open((dir_ + "/" + dir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return load_host_key(fd.get(), dir_ + "/" + dir);
  }
  output_dir out() const { return open_output_dir(dir_, false, key()); }
  // A provenance for `id`'s request, built only from public facts (the manifest, the data's
  // digest, the default limits), and the predictions it describes: what an attacker can plant.
  void plant_outputs(const std::string& id, const std::string& csv = "row,prediction\n0,1\n",
                     std::uint64_t wall_seconds = sandbox::SandboxLimits{}.wall_seconds) const {
    sandbox::provenance_record rec;
    rec.model_sha256 = sandbox::parse_sha256_hex(hex64).digest;
    rec.runtime_image = sandbox::parse_image_id(image).id;
    rec.features = {"a"};
    rec.limits.wall_seconds = wall_seconds;
    rec.input_sha256 = sandbox::sha256_of("a,b\n1,2\n").digest;
    rec.predictions_sha256 = sandbox::sha256_of(csv).digest;
    write(id + ".csv", csv);
    write(id + ".csv.sandbox.json", sandbox::render_json(rec));
  }
};

class BatchFiles : public BatchDir {
 protected:
  std::string plan_error(const std::string& manifest, const batch_config& c) {
    write("manifest.jsonl", manifest);
    try {
      plan_batch(c);
    } catch (const failure& f) {
      EXPECT_EQ(f.verdict(), sandbox::verdict::input_refused);
      return f.what();
    }
    return "accepted";
  }
};

// How many lines BatchScale's big plan holds (and the outcome lists beside it).
inline constexpr std::size_t many = 10'000;

class BatchScale : public BatchDir {
 protected:
  // `many` lines with long model paths that share their image, data, features and limits.
  batch_plan big_plan() {
    std::string manifest;
    for (std::size_t i = 0; i < many; ++i)
      manifest += R"({"id": "line-)" + std::to_string(i) + R"(", "model": "submissions/team-)" + std::to_string(i) +
                  R"(/model.py", "model_sha256": ")" + hex64 + "\"}\n";
    write("manifest.jsonl", manifest);
    return plan_batch(config());
  }
};

// Another user, for files and directories that are not this user's.
inline constexpr uid_t nobody = 65534;

// What `f` was refused with (a failure's words), or "accepted".
inline std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const failure& e) {
    return e.what();
  }
  return "accepted";
}

class BatchTrust : public BatchDir {
 protected:
  batch_plan plan(const std::string& manifest) {
    write("manifest.jsonl", manifest);
    return plan_batch(config());
  }
  // A record as a run of this tool writes it for `item`, signed with `k`.
  std::string signed_record(const batch_item& item, const host_key& k, const std::string& verdict = "script_failed") {
    line_outcome o{verdict, 8, "the script exited with status 3", sandbox::sandbox_usage{1.5, 0.5, 4096, 10, 3},
                   "",      {}};
    return render_record(item, o, request_fingerprint(item, ""), "", k);
  }
};

}  // namespace plb::batch

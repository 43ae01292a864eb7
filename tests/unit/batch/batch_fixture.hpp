// SPDX-License-Identifier: Apache-2.0
// A scratch output directory for the batch unit tests (0700, this user's, like a real one), a
// manifest writer, and a batch key of its own in DIR/.key: the tests never touch the host's key.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"
#include "plb/sandbox/provenance.hpp"
#include "runner/for_batch.hpp"

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

}  // namespace plb::batch

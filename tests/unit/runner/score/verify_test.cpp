// SPDX-License-Identifier: Apache-2.0
// verify trusts a provenance only when its seal verifies under the host's key, and checks that
// before it parses, hashes or opens anything the provenance names: an edited byte anywhere, an
// unsigned older (/1) or unsealed file, a file sealed under another key are each refused with the
// fix (re-score), and a sealed one still holds the model and data it names, or the ones given with
// --model and --data, to the recorded digests. The daemon is never asked (verify_run does that
// after these checks); the keys are made here, never the host's.
#include "runner/score/verify.hpp"

#include <unistd.h>

#include <cstdint>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "../../temp_dir.hpp"
#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/provenance_reader.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "runner/score/provenance_seal.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

namespace sb = plb::sandbox;

const host_key key_a(host_key::bytes_type{0x61, 0x6b, 0x65, 0x79});
const host_key key_b(host_key::bytes_type{0x62, 0x6b, 0x65, 0x79});

class VerifySeal : public test::temp_dir_test {
 protected:
  VerifySeal() : temp_dir_test("plb-verify-seal") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    model_ = dir_ + "/model.py";
    data_ = dir_ + "/in.csv";
    write(model_, "print('{\"predictions\": [1]}')\n");
    write(data_, "a,b\n1,2\n");
    prov_ = dir_ + "/pred.csv.sandbox.json";
    pred_ = dir_ + "/pred.csv";
    write(pred_, predictions_);
  }

  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  sb::provenance_record record() const {
    sb::provenance_record r;
    r.tool_version = "0.1.0";
    r.model_sha256 = sb::sha256_of(read(model_)).digest;
    r.runtime_image = sb::parse_image_id("sha256:" + std::string(64, 'b')).id;
    r.runtime_name = "runsc";
    r.runtime_version = "runsc version release-20240729.0";
    r.runtime_release = "20240729";
    r.runtime_platform = "systrap";
    r.features = {"a", "b"};
    r.rows = 1;
    r.input_sha256 = sb::sha256_of(read(data_)).digest;
    r.predictions_sha256 = sb::sha256_of(predictions_).digest;
    r.predictions_path = pred_;
    r.input_bytes = read(data_).size();
    r.started_at = "2026-12-03T15:00:00Z";
    r.model_path = model_;
    r.data_path = data_;
    return r;
  }
  verify_checks check(const std::string& text, verify_options o = {}, const host_key& key = key_a) const {
    write(prov_, text);
    o.provenance_path = prov_;
    return check_provenance_and_inputs(o, key);
  }
  // Refused as a provenance, and nothing it names was looked at (no other problem, no digest).
  static void expect_refused(const verify_checks& c, const std::string& words) {
    EXPECT_FALSE(c.provenance_trusted);
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_EQ(c.problems[0].mismatch, verify_mismatch::provenance_refused);
    EXPECT_NE(c.problems[0].message.find(words), std::string::npos) << c.problems[0].message;
  }

  // The first problem, of the kind `m`, whose message holds `words` and no digest but the recorded ones.
  void expect_first(const verify_checks& c, verify_mismatch m, const std::string& words) const {
    ASSERT_FALSE(c.problems.empty());
    EXPECT_EQ(c.problems[0].mismatch, m) << c.problems[0].message;
    EXPECT_NE(c.problems[0].message.find(words), std::string::npos) << c.problems[0].message;
    for (const auto& p : c.problems) EXPECT_EQ(p.message.find("has SHA-256"), std::string::npos) << p.message;
  }

  const std::string predictions_ = "row,prediction\n0,1\n";
  std::string model_, data_, prov_, pred_;
};

TEST_F(VerifySeal, ASealedProvenancePassesAndNamesItsInputs) {
  const std::string text = sealed_provenance(record(), key_a);
  ASSERT_TRUE(text.ends_with("\"}\n"));
  EXPECT_TRUE(check_provenance_seal(text, key_a));
  const verify_checks c = check(text);
  EXPECT_TRUE(c.provenance_trusted);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  EXPECT_EQ(c.model_path, model_);
  EXPECT_EQ(c.data_path, data_);
  EXPECT_EQ(c.original, dir_ + "/pred.csv");
  // The batch report reads it too: the seal is set aside, the record is the one sealed.
  const auto p = sb::parse_provenance(text);
  ASSERT_TRUE(p) << p.field;
  EXPECT_EQ(sb::render_json(p.record), sb::render_json(record()));
}

TEST_F(VerifySeal, AnEditedByteAnywhereIsRefused) {
  const std::string text = sealed_provenance(record(), key_a);
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string edited = text;
    edited[i] = static_cast<char>(edited[i] ^ (edited[i] == '"' ? 0x04 : 0x01));
    const verify_checks c = check(edited);
    ASSERT_FALSE(c.provenance_trusted) << "byte " << i << " edited and still trusted";
    ASSERT_EQ(c.problems.size(), 1u) << "byte " << i;
    ASSERT_EQ(c.problems[0].mismatch, verify_mismatch::provenance_refused) << "byte " << i;
  }
  // A byte added at the end, or the last one taken away.
  expect_refused(check(text + " "), "");
  expect_refused(check(text.substr(0, text.size() - 1)), "");
}

TEST_F(VerifySeal, AnEditedPathNamingShadowIsRefusedBeforeItIsHashed) {
  // The attack: a root-only file named as the model, with its recorded digest left alone (or a
  // guessed one); verify must neither print the file's digest nor hand it to the sandbox.
  std::string text = sealed_provenance(record(), key_a);
  const std::string from = "\"model_path\":\"" + model_ + "\"";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "\"model_path\":\"/etc/shadow\"");
  const verify_checks c = check(text);
  expect_refused(c, "its MAC does not verify with this host's key");
  EXPECT_EQ(c.problems[0].message.find("/etc/shadow"), std::string::npos);
  EXPECT_EQ(c.problems[0].message.find("SHA-256"), std::string::npos);
  EXPECT_TRUE(c.model_path.empty());  // never looked at
  // Higher limits, another image: likewise.
  for (const auto& [old_text, new_text] :
       {std::pair<std::string, std::string>{"\"memory_mib\":512", "\"memory_mib\":4096"},
        {"\"cpu_millicores\":1000", "\"cpu_millicores\":2000"},
        {std::string(64, 'b'), std::string(64, 'c')}}) {
    std::string edited = sealed_provenance(record(), key_a);
    const auto pos = edited.find(old_text);
    ASSERT_NE(pos, std::string::npos) << old_text;
    edited.replace(pos, old_text.size(), new_text);
    expect_refused(check(edited), "re-score the run");
  }
}

TEST_F(VerifySeal, AnUnsignedOlderProvenanceIsRefusedWithTheFix) {
  std::string v1 = sb::render_json(record());
  const std::string schema = "plb-sandbox/provenance/2";
  v1.replace(v1.find(schema), schema.size(), "plb-sandbox/provenance/1");
  expect_refused(check(v1), "written by an older plb-sandbox without a MAC");
  expect_refused(check(v1), "re-score the run");
  // The unsealed document (what render_json alone writes), and one with the MAC taken off.
  expect_refused(check(sb::render_json(record())), "it carries no MAC");
  expect_refused(check(sb::render_json(record())), "re-score the run");
  // Not a provenance at all.
  expect_refused(check("{\"rows\":1}\n"), "not a plb-sandbox/provenance/2 record");
}

TEST_F(VerifySeal, AProvenanceSealedUnderAnotherKeyIsRefused) {
  const std::string text = sealed_provenance(record(), key_b);
  EXPECT_FALSE(check_provenance_seal(text, key_a));
  expect_refused(check(text), "sealed under another host's key");
  // A MAC for the same body made without the domain (a batch record's MAC is made with its own).
  const std::string body = sb::provenance_seal_body(record());
  expect_refused(check(sb::sealed_provenance_text(body, hex_of(key_a.mac(body)))), "does not verify");
}

TEST_F(VerifySeal, ModelAndDataGivenOnTheCommandLineMustHaveTheRecordedDigests) {
  const std::string text = sealed_provenance(record(), key_a);
  const std::string other = dir_ + "/other.py";
  write(other, "print('something else')\n");
  verify_options o;
  o.model_path = other;
  const verify_checks m = check(text, o);
  EXPECT_TRUE(m.provenance_trusted);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].mismatch, verify_mismatch::model_changed);
  EXPECT_NE(
      m.problems[0].message.find("model " + other + " differs from the recorded one (the provenance records SHA-256 " +
                                 record().model_sha256.hex() + ")"),
      std::string::npos)
      << m.problems[0].message;
  EXPECT_EQ(m.problems[0].message.find(sb::sha256_of(read(other)).digest.hex()), std::string::npos) << "its own digest";
  o = {};
  o.data_path = other;
  const verify_checks d = check(text, o);
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_EQ(d.problems[0].mismatch, verify_mismatch::data_changed);
  // The same bytes at another path are the same model: --model may move it, not change it.
  const std::string copy = dir_ + "/copy.py";
  write(copy, read(model_));
  o = {};
  o.model_path = copy;
  EXPECT_TRUE(check(text, o).problems.empty());
}

// A sealed provenance of an older release names no paths: the fix is said in the caller's words.
TEST_F(VerifySeal, ARecordWithoutPathsAsksForThemInTheCallersWords) {
  sb::provenance_record r = record();
  r.model_path.clear();
  r.data_path.clear();
  const std::string text = sealed_provenance(r, key_a);
  expect_refused(check(text), "give model_path and data_path");
  verify_options o;
  o.names.model = "--model";
  o.names.data = "--data";
  expect_refused(check(text, o), "give --model and --data");
  o.model_path = model_;
  o.data_path = data_;
  EXPECT_TRUE(check(text, o).problems.empty());
}

// Issue 41, item 1: verify vouches for the predictions beside the provenance, so they must be the
// file it was sealed for, by name and by digest. Rewritten predictions (999 on every row) and
// another submission's sealed provenance put beside a team's predictions were both "reproduced".
TEST_F(VerifySeal, RewrittenPredictionsAreRefusedBeforeAnythingRuns) {
  const std::string text = sealed_provenance(record(), key_a);
  write(pred_, "row,prediction\n0,999\n");
  const verify_checks c = check(text);
  EXPECT_TRUE(c.provenance_trusted);
  expect_first(c, verify_mismatch::predictions_changed,
               "predictions " + pred_ + " differs from the recorded one (the provenance records SHA-256 " +
                   record().predictions_sha256.hex() + ")");
  EXPECT_EQ(c.problems.size(), 1u) << "the model and data are the recorded ones";
  std::filesystem::remove(pred_);
  expect_first(check(text), verify_mismatch::predictions_changed, "predictions " + pred_ + ": No such file");
  write(pred_, predictions_);
  EXPECT_TRUE(check(text).problems.empty());
  EXPECT_EQ(info(verify_mismatch::predictions_changed).exit_code, 19);
  EXPECT_EQ(info(verify_mismatch::predictions_changed).name, "predictions_changed");
}

TEST_F(VerifySeal, AnotherSubmissionsProvenanceBesideThePredictionsIsRefused) {
  // Sealed for other.csv, whose predictions are byte for byte the team's: the digest alone agrees,
  // the name does not.
  sb::provenance_record other = record();
  other.predictions_path = dir_ + "/other.csv";
  write(dir_ + "/other.csv", predictions_);
  const verify_checks c = check(sealed_provenance(other, key_a));
  expect_first(c, verify_mismatch::predictions_changed,
               "predictions " + pred_ + ": the provenance beside them was sealed for " + dir_ + "/other.csv");
  // Given by a relative path, the same file is still the one it was sealed for.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  write(prov_, sealed_provenance(record(), key_a));
  verify_options o;
  o.provenance_path = "./sub/../pred.csv.sandbox.json";
  std::filesystem::create_directory(dir_ + "/sub");
  const verify_checks relative = check_provenance_and_inputs(o, key_a);
  std::filesystem::current_path(cwd);
  EXPECT_TRUE(relative.problems.empty()) << relative.problems[0].message;
}

TEST_F(VerifySeal, AProvenanceThatNamesNoPredictionsFileIsRefusedWithTheFix) {
  sb::provenance_record older = record();
  older.predictions_path.clear();
  const verify_checks c = check(sealed_provenance(older, key_a));
  expect_refused(c, "names no predictions file (sealed by an older plb-sandbox");
  expect_refused(c, "re-score the run");
}

// Issue 41, item 2: every path verify opens refuses a symbolic link, every file is read no further
// than it may be, and a file that is not the recorded one has its own digest never printed.
TEST_F(VerifySeal, ALinkAtAnyRecordedPathIsRefusedAndNothingIsHashedThroughIt) {
  const std::string text = sealed_provenance(record(), key_a);
  const std::string shadow = sb::sha256_of(read("/etc/shadow")).digest.hex();
  std::filesystem::rename(model_, model_ + ".orig");
  ASSERT_EQ(::symlink("/etc/shadow", model_.c_str()), 0);
  std::filesystem::rename(data_, data_ + ".orig");
  ASSERT_EQ(::symlink("/proc/self/environ", data_.c_str()), 0);
  // A 1 GiB sparse file behind the predictions: never read (its link is refused, and so would be its size).
  std::filesystem::rename(pred_, pred_ + ".orig");
  const std::string big = dir_ + "/big.csv";
  write(big, "");
  std::filesystem::resize_file(big, std::uintmax_t{1} << 30);
  ASSERT_EQ(::symlink(big.c_str(), pred_.c_str()), 0);
  const verify_checks c = check(text);
  ASSERT_EQ(c.problems.size(), 3u);
  const std::string link = "a symbolic link on its path is refused";
  expect_first(c, verify_mismatch::predictions_changed, "predictions " + pred_ + ": " + link);
  EXPECT_EQ(c.problems[1].message, "model " + model_ + ": " + link + " (name the file itself, not a link to it)");
  EXPECT_EQ(c.problems[2].message, "data " + data_ + ": " + link + " (name the file itself, not a link to it)");
  for (const auto& p : c.problems) EXPECT_EQ(p.message.find(shadow), std::string::npos) << p.message;
  // The big file in the predictions' place itself: refused by its size, unread.
  std::filesystem::remove(pred_);
  std::filesystem::rename(big, pred_);
  expect_first(check(text), verify_mismatch::predictions_changed, "differs from the recorded one (larger than its");
  // The provenance itself behind a link.
  std::filesystem::remove(pred_);
  std::filesystem::rename(pred_ + ".orig", pred_);
  write(dir_ + "/real.json", text);
  std::filesystem::remove(prov_);
  ASSERT_EQ(::symlink((dir_ + "/real.json").c_str(), prov_.c_str()), 0);
  verify_options o;
  o.provenance_path = prov_;
  expect_refused(check_provenance_and_inputs(o, key_a), link);
}

TEST_F(VerifySeal, AModelOrDataLargerThanItMayBeDiffersUnread) {
  const std::string text = sealed_provenance(record(), key_a);
  std::filesystem::resize_file(model_, std::uintmax_t{9} << 20);  // over the 8 MiB script limit
  write(data_, read(data_) + "3,4\n");                            // over the recorded size
  const verify_checks c = check(text);
  ASSERT_EQ(c.problems.size(), 2u);
  expect_first(c, verify_mismatch::model_changed,
               "model " + model_ + ": differs from the recorded one (larger than its 8 MiB script limit)");
  EXPECT_EQ(c.problems[1].message,
            "data " + data_ + ": differs from the recorded one (larger than its recorded 8 bytes)");
}

// verify's pure parts: comparing predictions files, choosing a fresh path, and its exit codes.
// (The lines `batch --verify` re-runs are chosen in the batch layer: unit/batch/batch_verify_test.)
TEST(VerifyCompare, IdenticalFilesReproduce) {
  const std::string csv = "row,prediction\n0,1.5\n1,2\n";
  const auto c = compare_predictions(csv, csv);
  EXPECT_TRUE(c.identical);
  EXPECT_EQ(c.rows, 2u);
  EXPECT_EQ(c.differing_rows, 0u);
  EXPECT_EQ(c.max_abs_difference, 0.0);
}

TEST(VerifyCompare, CountsDifferingRowsAndTheLargestDifference) {
  const auto c =
      compare_predictions("id,prediction\n\"a,b\",1.5\nc,2\nd,-3\n", "id,prediction\n\"a,b\",1.25\nc,2\nd,1\n");
  EXPECT_FALSE(c.identical);
  EXPECT_EQ(c.rows, 3u);
  EXPECT_EQ(c.differing_rows, 2u);
  EXPECT_DOUBLE_EQ(c.max_abs_difference, 4.0);
}

TEST(VerifyCompare, MissingRowsDifferAndAChangedHeaderIsInfinite) {
  const auto shorter = compare_predictions("row,prediction\n0,1\n1,2\n2,3\n", "row,prediction\n0,1\n");
  EXPECT_EQ(shorter.differing_rows, 2u);
  EXPECT_EQ(shorter.rows, 1u);
  const auto header = compare_predictions("row,prediction\n0,1\n", "id,prediction\n0,1\n");
  EXPECT_TRUE(std::isinf(header.max_abs_difference));
  const auto empty = compare_predictions("", "");
  EXPECT_TRUE(empty.identical);
  EXPECT_EQ(empty.differing_rows, 0u);
  const auto garbage = compare_predictions("row,prediction\n0,1\n", "row,prediction\n0,x\n");
  EXPECT_TRUE(std::isinf(garbage.max_abs_difference));
}

TEST(VerifyPaths, AFreshPathBesideTheOriginalNeverAnExistingOne) {
  const auto dir = std::filesystem::temp_directory_path() / ("plb-verify-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string original = (dir / "team.csv").string();
  EXPECT_EQ(fresh_verify_path(original), (dir / "team.verify-1.csv").string());
  std::ofstream(dir / "team.verify-1.csv") << "x";
  std::ofstream(dir / "team.verify-2.csv.sandbox.json") << "x";
  EXPECT_EQ(fresh_verify_path(original), (dir / "team.verify-3.csv").string());
  std::filesystem::remove_all(dir);
}

TEST(VerifyCodes, EachMismatchHasItsOwnCodeApartFromEveryVerdict) {
  for (std::size_t i = 0; i < verify_mismatch_table.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(verify_mismatch_table[i].mismatch), i);
    EXPECT_NE(verify_mismatch_table[i].exit_code, verify_differs_exit_code);
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NE(verify_mismatch_table[i].exit_code, verify_mismatch_table[j].exit_code);
  }
}

// A bundle run's bundle is held to its recorded digest before anything runs, at its recorded path
// or at --bundle; a changed byte is bundle_changed (exit 20), its own digest never printed.
TEST_F(VerifySeal, ABundleIsCheckedAtItsPathOrTheOneGiven) {
  const std::string bundle = dir_ + "/bundle", moved = dir_ + "/moved";
  std::filesystem::create_directories(bundle + "/sub");
  write(bundle + "/weights.json", "{\"w\": [1, 2]}\n");
  write(bundle + "/sub/config.json", "{}\n");
  std::filesystem::copy(bundle, moved, std::filesystem::copy_options::recursive);
  const auto listing = digest_bundle(bundle, sb::SandboxLimits{});
  ASSERT_TRUE(listing) << listing.error().message();
  auto r = record();
  r.bundle_sha256 = listing->digest;
  r.bundle_bytes = listing->bytes;
  r.bundle_files = listing->files;
  r.bundle_path = bundle;
  const std::string text = sealed_provenance(r, key_a);
  verify_checks c = check(text);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  EXPECT_EQ(c.bundle_path, bundle);

  write(bundle + "/weights.json", "{\"w\": [1, 3]}\n");  // one byte
  c = check(text);
  expect_first(c, verify_mismatch::bundle_changed,
               "bundle " + bundle + " differs from the recorded one (the provenance records SHA-256 " +
                   listing->digest.hex() + ")");
  EXPECT_EQ(info(verify_mismatch::bundle_changed).exit_code, 20);
  EXPECT_EQ(info(verify_mismatch::bundle_changed).name, "bundle_changed");

  verify_options o;
  o.bundle_path = moved;  // where it moved to: still the recorded bundle
  c = check(text, o);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  EXPECT_EQ(c.bundle_path, moved);

  std::filesystem::remove_all(bundle);  // gone: named, never followed elsewhere
  expect_first(check(text), verify_mismatch::bundle_changed, "bundle " + bundle + ": ");
}

// --bundle for a provenance whose run had none is a usage error naming the flag; without it such a
// provenance is checked exactly as before bundles.
TEST_F(VerifySeal, ABundleGivenForARunWithoutOneIsAUsageError) {
  const std::string text = sealed_provenance(record(), key_a);
  EXPECT_TRUE(check(text).problems.empty());
  verify_options o;
  o.bundle_path = dir_;
  try {
    check(text, o);
    ADD_FAILURE() << "accepted";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sb::verdict::usage_error);
    EXPECT_NE(std::string(f.what()).find("bundle_path " + dir_ + ": the provenance records no bundle"),
              std::string::npos)
        << f.what();
  }
}

}  // namespace
}  // namespace plb::runner

// SPDX-License-Identifier: Apache-2.0
// The compact tables a batch of 100,000 lines is held in: the plan's rows (batch_plan) and the
// outcomes' rows (outcome_list), each string or shared value once.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>

#include "batch/batch.hpp"
#include "support/failure.hpp"

namespace plb::batch {

using sandbox::verdict;

struct batch_plan::lookups {
  std::unordered_map<std::string, std::uint32_t> images, data, id_columns, outputs, features, limits, model_dirs,
      bundles;
};

namespace {

std::uint32_t narrow(std::size_t v) {
  if (v > std::numeric_limits<std::uint32_t>::max())
    fail(verdict::input_refused, "the manifest's lines are too many or too long to plan");
  return static_cast<std::uint32_t>(v);
}

// The index of `value` in `table`, appended if new; `key` is how `seen` knows it.
template <typename T>
std::uint32_t intern(std::vector<T>& table, std::unordered_map<std::string, std::uint32_t>* seen, std::string key,
                     const T& value) {
  if (seen) {
    const auto [it, fresh] = seen->emplace(std::move(key), narrow(table.size()));
    if (fresh) table.push_back(value);
    return it->second;
  }
  table.push_back(value);
  return narrow(table.size() - 1);
}

std::string features_key(const std::vector<std::string>& features) {
  std::string key;
  for (const auto& f : features) key.append(std::to_string(f.size())).append(":").append(f);
  return key;
}

static_assert(std::has_unique_object_representations_v<sandbox::SandboxLimits>,
              "limits are interned by their bytes: every field a whole number, no padding");
std::string limits_key(const sandbox::SandboxLimits& l) {
  return std::string(reinterpret_cast<const char*>(&l), sizeof l);
}

}  // namespace

void batch_plan::add(std::size_t line_number, const std::string& item_id, const sandbox::scoring_request& r) {
  if (!lookups_ && rows_.empty()) lookups_ = std::make_shared<lookups>();
  lookups* seen = lookups_.get();
  row w;
  w.text = narrow(text_.size());
  // The model's directory is shared when lines share it (a round's submissions side by side); past
  // the first few distinct ones a line keeps its whole path, so that no directory costs more held
  // apart than in the buffer.
  constexpr std::size_t shared_model_dirs = 64;
  std::size_t slash = r.model_path.rfind('/') + 1;      // 0 when there is none
  if (model_dirs_.empty()) model_dirs_.emplace_back();  // index 0: no directory of its own
  if (seen && !seen->model_dirs.count(r.model_path.substr(0, slash)) && model_dirs_.size() >= shared_model_dirs)
    slash = 0;
  if (!seen) slash = 0;
  const std::string model_dir = r.model_path.substr(0, slash);
  if (item_id.size() > 0xffff || r.model_sha256.size() > 0xffff)
    fail(verdict::input_refused, "a manifest ID or model digest is too long to plan");
  w.id_bytes = static_cast<std::uint16_t>(item_id.size());
  w.sha_bytes = static_cast<std::uint16_t>(r.model_sha256.size());
  w.model_bytes = narrow(r.model_path.size() - slash);
  w.model_dir = slash == 0 ? 0 : intern(model_dirs_, &seen->model_dirs, model_dir, model_dir);
  text_.append(item_id).append(r.model_path, slash).append(r.model_sha256);
  (void)narrow(text_.size());
  w.line = narrow(line_number);
  w.image = intern(images_, seen ? &seen->images : nullptr, r.runtime_image, r.runtime_image);
  w.data = intern(data_, seen ? &seen->data : nullptr, r.data_path, r.data_path);
  w.features = intern(features_, seen ? &seen->features : nullptr, features_key(r.features), r.features);
  w.id_column = intern(id_columns_, seen ? &seen->id_columns : nullptr, r.id_column, r.id_column);
  w.limits = intern(limits_, seen ? &seen->limits : nullptr, limits_key(r.limits), r.limits);
  const std::string csv = item_id + ".csv";
  w.output_is_dir = r.output_path.size() > csv.size() &&
                    r.output_path.compare(r.output_path.size() - csv.size(), csv.size(), csv) == 0 &&
                    r.output_path[r.output_path.size() - csv.size() - 1] == '/';
  const std::string output =
      w.output_is_dir ? r.output_path.substr(0, r.output_path.size() - csv.size()) : r.output_path;
  w.output = intern(outputs_, seen ? &seen->outputs : nullptr, output, output);
  w.task = r.task;
  if (!r.bundle_path.empty()) {  // the first line with a bundle makes the column, the lines before it none
    bundle_of_.resize(rows_.size());
    const std::string key = std::to_string(r.bundle_path.size()) + ":" + r.bundle_path + r.bundle_sha256;
    bundle_of_.push_back(intern(bundles_, seen ? &seen->bundles : nullptr, key, {r.bundle_path, r.bundle_sha256}));
  } else if (!bundle_of_.empty()) {
    bundle_of_.push_back(0);
  }
  rows_.push_back(w);
}

void batch_plan::reserve(std::size_t lines, std::size_t text_bytes) {
  rows_.reserve(rows_.size() + lines);
  text_.reserve(text_.size() + text_bytes);
}

void batch_plan::seal() {
  lookups_.reset();
  // Returned only when much is unused: each shrink copies the whole table once more.
  if (rows_.capacity() > rows_.size() + rows_.size() / 8) rows_.shrink_to_fit();
  if (text_.capacity() > text_.size() + text_.size() / 8) text_.shrink_to_fit();
  by_id_.resize(rows_.size());
  for (std::size_t i = 0; i < by_id_.size(); ++i) by_id_[i] = static_cast<std::uint32_t>(i);
  std::sort(by_id_.begin(), by_id_.end(), [&](std::uint32_t a, std::uint32_t b) { return id(a) < id(b); });
}

std::optional<std::size_t> batch_plan::find(std::string_view wanted) const {
  if (by_id_.size() == rows_.size()) {
    const auto it = std::lower_bound(by_id_.begin(), by_id_.end(), wanted,
                                     [&](std::uint32_t i, std::string_view v) { return id(i) < v; });
    if (it != by_id_.end() && id(*it) == wanted) return *it;
    return std::nullopt;
  }
  for (std::size_t i = 0; i < rows_.size(); ++i)  // lines added since seal()
    if (id(i) == wanted) return i;
  return std::nullopt;
}

std::size_t batch_plan::memory_bytes() const noexcept {
  std::size_t n = rows_.capacity() * sizeof(row) + text_.capacity() + by_id_.capacity() * sizeof(std::uint32_t);
  const auto strings = [&](const std::vector<std::string>& v) {
    n += v.capacity() * sizeof(std::string);
    for (const auto& s : v) n += s.capacity() > 15 ? s.capacity() + 1 : 0;
  };
  strings(images_);
  strings(data_);
  strings(id_columns_);
  strings(outputs_);
  strings(model_dirs_);
  n += features_.capacity() * sizeof(std::vector<std::string>);
  for (const auto& f : features_) strings(f);
  n += limits_.capacity() * sizeof(sandbox::SandboxLimits);
  n += bundles_.capacity() * sizeof(bundles_[0]) + bundle_of_.capacity() * sizeof(std::uint32_t);
  for (const auto& [path, digest] : bundles_) n += path.capacity() + digest.capacity();
  return n;
}

std::string_view batch_plan::id(std::size_t i) const {
  const row& w = rows_.at(i);
  return std::string_view(text_).substr(w.text, w.id_bytes);
}

batch_item batch_plan::item(std::size_t i) const {
  const row& w = rows_.at(i);
  batch_item item;
  item.index = i;
  item.line = w.line;
  item.id = std::string(id(i));
  sandbox::scoring_request& r = item.request;
  r.model_path = model_dirs_[w.model_dir];
  r.model_path.append(text_, w.text + w.id_bytes, w.model_bytes);
  r.model_sha256 = text_.substr(w.text + w.id_bytes + w.model_bytes, w.sha_bytes);
  r.runtime_image = images_[w.image];
  r.data_path = data_[w.data];
  r.features = features_[w.features];
  r.id_column = id_columns_[w.id_column];
  r.task = w.task;
  r.output_path = outputs_[w.output];
  if (w.output_is_dir) r.output_path.append(item.id).append(".csv");
  r.limits = limits_[w.limits];
  if (i < bundle_of_.size() && bundle_of_[i] != 0) {
    r.bundle_path = bundles_[bundle_of_[i]].first;
    r.bundle_sha256 = bundles_[bundle_of_[i]].second;
  }
  if (keep_stderr_) {  // <id>.stderr: r.output_path is the directory's <id>.csv
    r.keep_stderr = true;
    r.stderr_path = r.output_path.substr(0, r.output_path.size() - 4) + ".stderr";
  }
  return item;
}

outcome_list::pool::pool() { (void)index(""); }  // index 0: the empty string, every field's default

std::uint32_t outcome_list::pool::index(std::string_view s) {
  if (const auto it = index_.find(s); it != index_.end()) return it->second;
  const auto i = narrow(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), i);
  return i;
}

std::size_t outcome_list::pool::memory_bytes() const noexcept {
  std::size_t n = strings_.size() * sizeof(std::string);
  for (const auto& s : strings_) n += s.capacity() > 15 ? s.capacity() + 1 : 0;
  return n;
}

outcome_list::outcome_list(const std::vector<line_outcome>& outcomes) {
  resize(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) set(i, outcomes[i]);
}

void outcome_list::resize(std::size_t lines) { rows_.resize(lines); }

line_outcome outcome_list::operator[](std::size_t i) const {
  const row& r = rows_.at(i);
  line_outcome o;
  o.state = std::string(pool_->text(r.state));
  o.exit_code = r.exit_code;
  o.message = std::string(pool_->text(r.message));
  if (r.has_usage) o.usage = r.usage;
  if (const std::string_view b = pool_->text(r.bundle_bytes); !b.empty()) o.bundle_bytes = std::stoull(std::string(b));
  o.predictions_sha256 = std::string(pool_->text(r.predictions_sha256));
  o.node = std::string(pool_->text(r.node));
  o.worker = std::string(pool_->text(r.worker));
  return o;
}

void outcome_list::set(std::size_t i, const line_outcome& o) {
  row& r = rows_.at(i);
  r.state = pool_->index(o.state);
  r.exit_code = o.exit_code;
  r.message = pool_->index(o.message);
  r.has_usage = o.usage.has_value();
  r.bundle_bytes = pool_->index(o.bundle_bytes ? std::to_string(*o.bundle_bytes) : std::string());
  r.usage = o.usage.value_or(sandbox::sandbox_usage{});
  r.predictions_sha256 = pool_->index(o.predictions_sha256);
  r.node = pool_->index(o.node);
  r.worker = pool_->index(o.worker);
}

std::size_t outcome_list::memory_bytes() const noexcept {
  return rows_.capacity() * sizeof(row) + pool_->memory_bytes();
}

}  // namespace plb::batch

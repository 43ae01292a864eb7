// SPDX-License-Identifier: Apache-2.0
// Throughput of the host-side work at the limit size, with simdjson parsing the same predictions
// document as the reference. Run: build/bench/core_bench (bench/README.md).
#include <benchmark/benchmark.h>

#include <simdjson.h>

#include <boost/json/src.hpp>

#include "limit_inputs.hpp"
#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/predictions_parser.hpp"

namespace {

namespace sb = plb::sandbox;

const std::string& csv() {
  static const std::string s = plb::bench::limit_csv();
  return s;
}
const std::string& predictions() {
  static const std::string s = plb::bench::limit_predictions_json();
  return s;
}

void report(benchmark::State& state, std::size_t bytes, std::size_t values) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values));
}

void CsvFeatureExtraction(benchmark::State& state) {
  const std::string& text = csv();
  for (auto _ : state) {
    sb::csv_feature_reader reader({"feature_a", "feature_b"}, "id");
    // In 64 KiB chunks, as the tool reads the file.
    for (std::size_t i = 0; i < text.size(); i += 65536) reader.feed(std::string_view(text).substr(i, 65536));
    auto r = reader.finish();
    if (!r || reader.table().values.size() != 2 * plb::bench::limit_rows) state.SkipWithError("csv failed");
    benchmark::DoNotOptimize(reader.table().values.data());
  }
  report(state, text.size(), 2 * plb::bench::limit_rows);
}
BENCHMARK(CsvFeatureExtraction)->Unit(benchmark::kMillisecond);

void FeaturesEncoding(benchmark::State& state) {
  const auto values = plb::bench::random_values(2 * plb::bench::limit_rows, 5);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::size_t n = 0;
    const auto r = sb::encode_features(values, 2, [&](std::string_view s) {
      n += s.size();
      benchmark::DoNotOptimize(s.data());
      return true;
    });
    if (!r) state.SkipWithError("encode failed");
    bytes = n;
  }
  report(state, bytes, values.size());
}
BENCHMARK(FeaturesEncoding)->Unit(benchmark::kMillisecond);

void PredictionsParsing(benchmark::State& state) {
  const std::string& text = predictions();
  sb::predictions_options o;
  o.expected_rows = plb::bench::limit_predictions;
  o.max_bytes = text.size();
  std::vector<double> out;
  for (auto _ : state) {
    const auto r = sb::parse_predictions(text, o, out);
    if (!r) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state, text.size(), plb::bench::limit_predictions);
}
BENCHMARK(PredictionsParsing)->Unit(benchmark::kMillisecond);

// Reference: simdjson's on-demand API reading the same document into doubles. It checks less
// (no duplicate keys, no count or range check) and its own number parser is correctly rounded.
void PredictionsParsingSimdjson(benchmark::State& state) {
  const std::string& text = predictions();
  simdjson::padded_string padded(text);
  simdjson::ondemand::parser parser;
  std::vector<double> out;
  out.reserve(plb::bench::limit_predictions);
  for (auto _ : state) {
    out.clear();
    auto doc = parser.iterate(padded);
    for (double v : doc["predictions"].get_array()) out.push_back(v);
    if (out.size() != plb::bench::limit_predictions) state.SkipWithError("simdjson failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state, text.size(), plb::bench::limit_predictions);
}
BENCHMARK(PredictionsParsingSimdjson)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

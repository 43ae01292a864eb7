// SPDX-License-Identifier: Apache-2.0
// A vendor's program: uses every public header through the plb::sandbox target alone.
#include <plb/sandbox.hpp>

#include <cstdio>
#include <vector>

int main() {
  namespace sb = plb::sandbox;
  const auto image = sb::parse_image_id("sha256:88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870");
  sb::feature_table table;
  const auto csv = sb::read_features("id,x\na,1.5\nb,2\n", {"x"}, "id", table);
  std::string doc;
  const auto enc = sb::encode_features_to_string(table.values, table.columns(), doc);
  std::vector<double> predictions;
  sb::predictions_options po;
  po.expected_rows = table.rows();
  const auto parsed = sb::parse_predictions("{\"predictions\":[1,2]}", po, predictions);
  sb::sandbox_policy_builder b;
  b.image(*image.id).script("/srv/model.py").run_id("0123456789abcdef0123456789abcdef").owner("ab-cd:1:2").cpuset("0");
  const auto spec = b.build();
  sb::provenance_record rec;
  rec.runtime_image = image.id;
  const bool ok = image && csv && enc && parsed && spec && !sb::validate(sb::SandboxLimits{}) &&
                  sb::sha256_of(std::string_view("abc")) && !sb::render_json(rec).empty() &&
                  sb::exit_code(sb::verdict::success) == 0;
  std::printf("%s\n", ok ? "consumer ok" : "consumer FAILED");
  return ok ? 0 : 1;
}

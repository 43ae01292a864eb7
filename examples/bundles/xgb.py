# SPDX-License-Identifier: Apache-2.0
# A submission with weights: an xgboost model in xgboost's own format, with the config.json beside
# it naming its feature order (the round's manifest sends the columns in that order). Answers the
# probability of the positive class for each breast cancer row.
import json
import sys

import numpy as np
import xgboost

config = json.load(open("/sandbox/bundle/config.json"))
booster = xgboost.Booster({"nthread": 1})
booster.load_model("/sandbox/bundle/" + config["model"])

rows = json.load(sys.stdin)["features"]
X = np.asarray(rows, dtype=np.float64)
if X.shape[1] != len(config["features"]):
    sys.exit("expected %d features (config.json), got %d" % (len(config["features"]), X.shape[1]))
p = booster.predict(xgboost.DMatrix(X, feature_names=config["features"]))
print(json.dumps({"predictions": [float(v) for v in p]}))

# SPDX-License-Identifier: Apache-2.0
# Trains the round with weights (examples/bundles/, issue 42 item 7) and writes each submission's
# bundle: the files a real submission brings beside its script. Runs at set-up time inside a
# trusted runc container of the ML image (examples/bundles/make-round), never on the host.
#   train.py OUT_DIR
# Writes into OUT_DIR:
#   digits.csv         scikit-learn's bundled handwritten digits (1,797 rows of 8x8 pixels,
#                      p00..p77), with sample_id and target (neither reaches a script);
#   breast_cancer.csv  the Wisconsin breast cancer data (569 rows, 30 features), likewise;
#   cancer_head.csv    its first 64 rows: the 1 GiB MLP costs 2 FLOPs a weight a row;
#   stdin/*.json       what the scripts read for each data file (the tool's encoding);
#   bundles/resnet18/  a torchvision ResNet-18 (one input channel, 10 classes) trained briefly on
#                      the digits: its state dict, about 45 MB;
#   bundles/xgboost/   an xgboost classifier in xgboost's own format (model.ubj) and config.json
#                      naming its feature order;
#   bundles/forest/    scikit-learn extra trees on the digits, joblib'd, at least 50 MB;
#   bundles/wide-mlp/  a wide MLP for the breast cancer data, its state dict at least 1 GiB
#                      (a random feature layer of fixed seed, a least-squares read-out);
#   features/*.json    the feature columns each data file sends, in order.
# Every value is written as its shortest round-trip text, so the CSV the tool reads and the JSON
# the trusted run reads hold the same doubles.
import json
import os
import sys
import time

import joblib
import numpy as np
import torch
import torchvision
import xgboost
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import ExtraTreesClassifier

out = sys.argv[1]
for d in ("stdin", "features", "bundles/resnet18", "bundles/xgboost", "bundles/forest", "bundles/wide-mlp"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
t_start = time.perf_counter()


def log(what):
    print("train.py: %6.1f s  %s" % (time.perf_counter() - t_start, what), file=sys.stderr, flush=True)


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def data_file(name, prefix, columns, X, y):
    lines = ["sample_id," + ",".join(columns) + ",target"]
    for i, (row, t) in enumerate(zip(X, y)):
        lines.append("%s-%04d," % (prefix, i) + ",".join(repr(float(v)) for v in row) + ",%d" % t)
    write(name + ".csv", "\n".join(lines) + "\n")
    write("stdin/%s.json" % name, json.dumps({"features": [[float(v) for v in row] for row in X]}))
    write("features/%s.json" % name, json.dumps(columns))


def size_of(path):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))

# --- the data.
digits = load_digits()
Xd = digits.data.astype(np.float64)
yd = digits.target
data_file("digits", "dg", ["p%d%d" % (r, c) for r in range(8) for c in range(8)], Xd, yd)
bc = load_breast_cancer()
Xc = bc.data.astype(np.float64)
yc = bc.target
bc_columns = [n.replace(" ", "_") for n in bc.feature_names]
data_file("breast_cancer", "bc", bc_columns, Xc, yc)
data_file("cancer_head", "bc", bc_columns, Xc[:64], yc[:64])
train_rows = np.random.default_rng(42).permutation(len(Xd))[:1200]  # the rest is held out

# --- ResNet-18 on the digits: torchvision's architecture with a one-channel stem, 10 classes.
# The submission builds the same (examples/bundles/resnet18.py) and loads the state dict.
torch.manual_seed(0)
net = torchvision.models.resnet18(num_classes=10)
net.conv1 = torch.nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
xt = torch.tensor(Xd / 16.0, dtype=torch.float32).reshape(-1, 1, 8, 8)
yt = torch.tensor(yd, dtype=torch.long)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
net.train()
gen = torch.Generator().manual_seed(0)
steps, batch = 120, 64
tr = torch.tensor(train_rows)
for step in range(steps):
    idx = tr[torch.randint(len(tr), (batch,), generator=gen)]
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(net(xt[idx]), yt[idx])
    loss.backward()
    opt.step()
net.eval()
held = torch.tensor(np.setdiff1d(np.arange(len(Xd)), train_rows))
with torch.no_grad():
    acc = (net(xt[held]).argmax(1) == yt[held]).float().mean().item()
torch.save(net.state_dict(), os.path.join(out, "bundles/resnet18/resnet18.pt"))
log("resnet18: %d steps of %d, held-out accuracy %.3f, %d bytes" % (steps, batch, acc, size_of(out + "/bundles/resnet18")))

# --- xgboost on the breast cancer data, in its own binary format, with its feature order.
bc_train = np.random.default_rng(7).permutation(len(Xc))[:400]
dtrain = xgboost.DMatrix(Xc[bc_train], label=yc[bc_train], feature_names=bc_columns)
booster = xgboost.train({"objective": "binary:logistic", "max_depth": 4, "eta": 0.1, "nthread": 1, "seed": 0},
                        dtrain, num_boost_round=200)
booster.save_model(os.path.join(out, "bundles/xgboost/model.ubj"))
write("bundles/xgboost/config.json",
      json.dumps({"model": "model.ubj", "features": bc_columns, "objective": "binary:logistic"}, indent=1) + "\n")
log("xgboost: 200 rounds, %d bytes" % size_of(out + "/bundles/xgboost"))

# --- extra trees on the digits, grown fully: enough trees for a joblib file of at least 50 MB.
forest = ExtraTreesClassifier(n_estimators=640, random_state=0, n_jobs=-1).fit(Xd[train_rows], yd[train_rows])
forest.n_jobs = None  # the submission predicts on its one CPU
joblib.dump(forest, os.path.join(out, "bundles/forest/forest.joblib"))
forest_bytes = size_of(out + "/bundles/forest")
assert forest_bytes >= 50_000_000, forest_bytes
log("forest: %d trees, %d bytes" % (len(forest.estimators_), forest_bytes))

# --- the wide MLP: 30 -> 16384 -> 16384 -> 1, its two hidden layers random of fixed seed (scaled
# as He's initialisation), its read-out fitted by least squares on the hidden features, so the
# 1 GiB of weights is a working model. Made fast: randn, not training.
width = 16384
gen = torch.Generator().manual_seed(42)
mean = torch.tensor(Xc.mean(axis=0), dtype=torch.float32)
scale = torch.tensor(Xc.std(axis=0), dtype=torch.float32)
w1 = torch.randn(width, 30, generator=gen) * (2.0 / 30) ** 0.5
b1 = torch.zeros(width)
w2 = torch.randn(width, width, generator=gen).mul_((2.0 / width) ** 0.5)
b2 = torch.zeros(width)
fit_rows = bc_train[:128]  # every row costs 2 FLOPs a weight: 128 rows are about 70 GFLOP
with torch.no_grad():
    h = torch.relu(torch.relu(((torch.tensor(Xc[fit_rows], dtype=torch.float32) - mean) / scale) @ w1.T + b1) @ w2.T + b2)
    target = torch.tensor(yc[fit_rows], dtype=torch.float32) * 8 - 4  # logits of about +-4
    # A ridge read-out solved through the rows' Gram matrix (128 x 128), not the features' (16384^2).
    alpha = torch.linalg.solve(h @ h.T + 10.0 * torch.eye(len(h)), target)
    w3 = (h.T @ alpha).reshape(1, width)
state = {"mean": mean, "scale": scale, "hidden1.weight": w1, "hidden1.bias": b1,
         "hidden2.weight": w2, "hidden2.bias": b2, "out.weight": w3, "out.bias": torch.zeros(1)}
torch.save(state, os.path.join(out, "bundles/wide-mlp/weights.pt"))
mlp_bytes = size_of(out + "/bundles/wide-mlp")
assert mlp_bytes >= 1 << 30, mlp_bytes
log("wide-mlp: 30 -> %d -> %d -> 1, %d bytes" % (width, width, mlp_bytes))

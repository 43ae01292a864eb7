# SPDX-License-Identifier: Apache-2.0
# A submission with weights: a wide MLP (30 -> 16384 -> 16384 -> 1) whose state dict is over 1 GiB.
# Debian's torch 1.13 has no mmap load: torch.load reads every tensor into the script's memory, so
# the run needs a memory limit above the file's size (README, "Limits"). Answers a probability for
# each breast cancer row.
import json
import sys

import torch

state = torch.load("/sandbox/bundle/weights.pt", map_location="cpu")
rows = json.load(sys.stdin)["features"]
x = (torch.tensor(rows, dtype=torch.float32) - state["mean"]) / state["scale"]
with torch.no_grad():
    h = torch.relu(x @ state["hidden1.weight"].T + state["hidden1.bias"])
    h = torch.relu(h @ state["hidden2.weight"].T + state["hidden2.bias"])
    p = torch.sigmoid(h @ state["out.weight"].T + state["out.bias"]).squeeze(1)
print(json.dumps({"predictions": [float(v) for v in p]}))

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Compares a scored round with its trusted run (examples/models/make-round), bit for bit: for each
# line the trusted run answered (exit 0), the tool's ID.csv must hold the same IDs in the data's
# order and the very same doubles. Prints a line for each; exits 1 on any difference.
#   compare.py ROUND_DIR OUTPUT_DIR
import csv
import json
import struct
import sys

round_dir, out_dir = sys.argv[1], sys.argv[2]
bad = 0
for line in open(round_dir + "/manifest.jsonl"):
    m = json.loads(line)
    if open("%s/expected/%s.rc" % (round_dir, m["id"])).read().strip() != "0":
        continue
    expected = json.load(open("%s/expected/%s.json" % (round_dir, m["id"])))["predictions"]
    with open("%s/%s" % (round_dir, m["data"]), newline="") as f:
        ids = [r[m["id_column"]] for r in csv.DictReader(f)]
    try:
        with open("%s/%s.csv" % (out_dir, m["id"]), newline="") as f:
            got = [(r[m["id_column"]], float(r["prediction"])) for r in csv.DictReader(f)]
    except FileNotFoundError:
        print("compare: %s: no predictions" % m["id"])
        bad += 1
        continue
    diff = [i for i in range(min(len(got), len(expected)))
            if got[i][0] != ids[i] or struct.pack("<d", got[i][1]) != struct.pack("<d", float(expected[i]))]
    if len(got) != len(expected) or diff:
        print("compare: %s: %d of %d predictions differ from the trusted run (first at row %s)"
              % (m["id"], len(diff) + abs(len(got) - len(expected)), len(expected), diff[0] if diff else len(got)))
        bad += 1
    else:
        print("compare: %s: %d predictions, bit-identical to the trusted run" % (m["id"], len(got)))
sys.exit(1 if bad else 0)

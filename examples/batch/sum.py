# The spec's example script: one prediction per row, the sum of its features.
import json
import sys

rows = json.load(sys.stdin)["features"]
print(json.dumps({"predictions": [sum(row) for row in rows]}))

# A second honest submission: the mean of each row's features.
import json
import sys

rows = json.load(sys.stdin)["features"]
print(json.dumps({"predictions": [sum(row) / len(row) for row in rows]}))

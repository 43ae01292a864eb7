# A submission whose output is refused: one prediction too few (verdict output_rejected).
import json
import sys

rows = json.load(sys.stdin)["features"]
print(json.dumps({"predictions": [row[0] for row in rows][:-1]}))

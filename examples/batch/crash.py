# A submission that fails: it raises before printing anything (verdict script_failed).
import json
import sys

rows = json.load(sys.stdin)["features"]
raise RuntimeError("this model was never trained")

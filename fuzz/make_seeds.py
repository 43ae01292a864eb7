#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the hand-made seed inputs into corpus/<target>/<sha1 of content>.

Seeds cover every accepting path and every rejection code of each input; campaigns (ci/fuzz)
merge what they find next to them, under the same naming. Re-running is idempotent."""
import hashlib
import json
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


# ---- predictions_parser: byte 0 task (bit 0: binary), byte 1 rows (0x80: as found) ----
ANY = 0x80
def pred(doc, rows=ANY, binary=False):
    put("predictions_parser", bytes([1 if binary else 0, rows]) + (doc.encode("utf-8", "surrogatepass") if isinstance(doc, str) else doc))

for doc in ['{"predictions": [3.5, -1, 0, 1e2]}\n', ' \t\r\n{"predictions":[]} \n', '{"\\u0070redictions":[0.5]}',
            '{"predictions":[9007199254740993, 18446744073709551617, -9223372036854775809]}',
            '{"predictions":[1e-400, -0.0, 4.9e-324, 1.7976931348623157e308, 0.1, 123456789012345678901234567890]}',
            '{"predictions":[' + ",".join(str(i / 7) for i in range(200)) + ']}']:
    pred(doc)
pred('{"predictions":[0,1,0.25,-0.0]}', binary=True)
for doc, rows, binary in [
    ("", 1, False), (" \n", 1, False), ('loading model\n{"predictions":[1]}', 1, False),
    (b'\xef\xbb\xbf{"predictions":[1]}', 1, False), ("[1]", 1, False), (" 1", 1, False),
    ('{"predictions":[1]}\ndone\n', 1, False), ('{"predictions":[1]}{"predictions":[1]}', 1, False),
    ('{"predictions":[1', 1, False), ('{"predic', 1, False), ('{"predictions":[1,]}', 1, False),
    ('{"predictions":[1]/*x*/}', 1, False), ("{'predictions':[1]}", 1, False),
    (b'{"pr\xff":[1]}', 1, False), (b'{"\xc0\xaf":[1]}', 1, False), ('{"\\ud800x":[1]}', 1, False),
    ('{"\\q":[1]}', 1, False), ('{"predictions":[1],"note":1}', 1, False), ('{"note":1,"predictions":[1]}', 1, False),
    ('{"predictionsXXXXXXXXXXXXXXXXX":[1]}', 1, False), ('{"predictions":[1],"predictions":[2]}', 1, False),
    ('{"predictions":[1],"predictio\\u006es":[2]}', 1, False), ("{}", 1, False), ('{"predictions":1}', 1, False),
    ('{"predictions":{}}', 1, False), ('{"predictions":"1"}', 1, False), ('{"predictions":null}', 1, False),
    ('{"predictions":["1"]}', 1, False), ('{"predictions":[true]}', 1, False), ('{"predictions":[null]}', 1, False),
    ('{"predictions":[[1]]}', 1, False), ('{"predictions":[{}]}', 1, False),
    ('{"predictions":[' + "[" * 3000, 1, False), ('{"predictions":[NaN]}', 1, False),
    ('{"predictions":[Infinity]}', 1, False), ('{"predictions":[-Infinity]}', 1, False),
    ('{"predictions":[1e999]}', 1, False), ('{"predictions":[' + "9" * 400 + "]}", 1, False),
    ('{"predictions":[1e99999999999999999999]}', 1, False), ('{"predictions":[1,2,3]}', 2, False),
    ('{"predictions":[1]}', 2, False), ('{"predictions":[]}', 1, False),
    ('{"predictions":[0.5,1.0000001]}', 2, True), ('{"predictions":[-0.1]}', 1, True),
    ('{"predictions":[01]}', 1, False), ('{"predictions":[1.]}', 1, False), ('{"predictions":[.5]}', 1, False),
    ('{"predictions":[+1]}', 1, False), ('{"predictions":[0x10]}', 1, False), ('{"predictions":[1] ,}', 1, False)]:
    pred(doc, rows, binary)

# ---- csv_reader: byte 0 = feature bits (1:a 2:b 4:c, 8: id column "id", high nibble rotates) ----
def csv(text, sel=0x0B, chunk=7):
    put("csv_reader", bytes([sel, chunk]) + (text.encode("utf-8") if isinstance(text, str) else text))

csv("id,a,b\nx1,1.5,2\n\"x,2\",-3,4e2\n")
csv(b'\xef\xbb\xbf"i""d",a,b\r\n"q""1",0.1,-2e-3\r\n"r\r\nr",3,4', 0x03)
csv("a,b,c\n1,2,3\n4,5,6", 0x37, 1)
csv("c,b,a,id\n-0,+1,.5,z\n5.,1E3,1e-400,y\n", 0x0F, 3)
for text, sel in [("", 0x01), ("a", 0x01), ("\xef\xbb", 0x01), ("a,b,a\n1,2,3\n", 0x01), ("a,b\n1,2\n", 0x04),
                  ("a,b\n1,2\n", 0x09), ("a,b\n1,2\n3\n", 0x01), ("a,b\n1,2,3\n", 0x01), ('a,b\n1,"2\n', 0x01),
                  ('a,b\n1,2"\n', 0x01), ('a,b\n"1"x,2\n', 0x01), ("a,b\r1,2\n", 0x01), ("a,b\n1,\0\n", 0x01),
                  ("a,b\n,2\n", 0x01), ("a,b\n1,NaN\n", 0x02), ("a,b\n1,-inf\n", 0x02), ("a,b\n1,Infinity\n", 0x02),
                  ("a,b\n1,0x1A\n", 0x02), ('a,b\n1,"1,000"\n', 0x02), ("a,b\n1, 2\n", 0x02), ("a,b\n1,two\n", 0x02),
                  ("a,b\n1,1e999\n", 0x02), ("a,b\n1," + "1" * 40 + "\n", 0x02), ("a,b\n" + "1,2\n" * 40, 0x03),
                  ("id,a\n" + "".join("%s,1\n" % ("x" * 30) for _ in range(6)), 0x09), ("a,b\n", 0x01),
                  ("a,b\n1,2\n\n3,4\n", 0x01), ("a,b," + "h" * 600 + "\n1,2,3\n", 0x01), ("a\n1\n", 0x00),
                  # empty column names, and a header flood of names (each counts with its overhead)
                  ("a,,b\n1,2,3\n", 0x01), ("a,b,\n1,2,3\n", 0x01), ('a,""\n1,2\n', 0x01), ("," * 2000 + "\n", 0x01),
                  ("a,b," + ",".join("n%d" % i for i in range(400)) + "\n", 0x03)]:
    csv(text, sel)

# ---- features_encoder: byte 0 = columns-1 (low 3 bits), chunk size (high bits) ----
def doubles(cols, values, chunk=0):
    put("features_encoder", bytes([(cols - 1) | (chunk << 3)]) + b"".join(struct.pack("<d", v) for v in values))

inf, nan = float("inf"), float("nan")
doubles(1, [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308])
doubles(3, [1.0, 2.5, -3.0, 1e22, 1e21, 0.1, 1 / 3, 123456789012345678.0, -1e-300], 1)
doubles(2, [1.0, nan])
doubles(2, [inf, 1.0])
doubles(1, [])
doubles(8, [i * 0.37 for i in range(64)], 31)

# ---- image_id ----
H = "88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870"
for s in ["sha256:" + H, "", " sha256:" + H, "sha256:" + H + "\n", "python:3.11", "python", "python@sha256:" + H,
          "registry.example:5000/python", "library/python:3", H, "sha512:" + H + H, "sha256:88bf3be57630", "sha256:",
          "sha256:" + H + "0", "sha256:" + H.upper(), "sha256:" + H[:10] + "g" + H[11:]]:
    put("image_id", s)

# ---- limit_value: byte 0 = field index ----
# limit_table's rows in order (include/plb/sandbox/limits.hpp), the bundle's four last.
FIELDS = [(1, 3600), (5, 600), (64, 65536), (100, 64000), (4, 1024), (64, 8192), (1, 1024), (1, 256), (16, 65536),
          (1, 1024), (1, 10000000), (1, 1024), (1, 64), (1, 65536), (1, 100000), (1, 64), (16, 4096)]
for i, (lo, hi) in enumerate(FIELDS):
    for text in [str(lo), str(hi), str(lo - 1), str(hi + 1), "0" + str(lo), "+" + str(lo), "-1", "1.5", " 30", "30 ",
                 "", "1e3", "99999999999999999999999"]:
        put("limit_value", bytes([i]) + text.encode())

# ---- bundle_name: byte 0 = bounds (depth 1 + low 3 bits, path bytes 16 + 4 * high 5 bits) ----
for path in [b"model.pt", b"weights/layer 1.bin", b"a/b/c/d/e", b"caf\xc3\xa9", b"\xf0\x9f\x98\x80.bin", b"..", b".",
             b"a/../b", b"a//b", b"/abs", b"trail/", b"line\nbreak", b"tab\there", b"\x1b[31m", b"del\x7f", b"nel\xc2\x85",
             b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x80\xae", b"\xe2\x80\xa8",
             b"back\\slash", b"x" * 300, b"caf\xc3"]:
    for bounds in [0x00, 0xff, 0x3b]:
        put("bundle_name", bytes([bounds]) + path)

# ---- Docker Engine answers (synthetic, shaped like Engine 20.10's, no host details) ----
info = {"ID": "ABCD:EFGH", "ServerVersion": "20.10.24+dfsg1", "OSType": "linux", "CgroupVersion": "1",
        "CgroupDriver": "cgroupfs", "MemoryLimit": True, "SwapLimit": True, "CpuCfsQuota": True, "PidsLimit": True,
        "Runtimes": {"runc": {"path": "runc"}, "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}}
put("engine_info", json.dumps(info))
for change in [{"OSType": "windows"}, {"Runtimes": {"runc": {"path": "runc"}}}, {"Runtimes": {"runsc": "oops"}},
               {"Runtimes": {"runsc": {"path": "/usr/sbin/runc", "runtimeArgs": "x"}}}, {"MemoryLimit": "yes"},
               {"CgroupVersion": 2}, {"PidsLimit": False}, {"ID": None}, {"ServerVersion": 20}]:
    put("engine_info", json.dumps({**info, **change}))
for raw in ["", "[]", "null", '{"ID":"x"}', "{", '{"ID":"a","ServerVersion":"b","OSType":"linux","Runtimes":[]}']:
    put("engine_info", raw)
state = {"Id": "c" * 64, "State": {"Status": "exited", "Running": False, "OOMKilled": True, "ExitCode": 137,
                                   "StartedAt": "2026-11-29T08:18:39.615199612Z", "FinishedAt": "2026-11-29T08:18:39.8Z",
                                   "Error": ""}}
put("engine_info", json.dumps(state))
put("engine_info", json.dumps({"Id": "c", "State": {"Status": "created", "ExitCode": "0"}}))

image = {"Id": "sha256:" + H, "RepoTags": ["plb-sandbox-runtime:reviewed"],
         "Config": {"Env": None, "Cmd": None, "Volumes": None, "WorkingDir": "", "Entrypoint": None},
         "ContainerConfig": {"Volumes": None}, "Architecture": "amd64", "Os": "linux", "Size": 123}
put("image_inspect", json.dumps(image))
for change in [{"Config": {"Volumes": {"/data": {}}}}, {"ContainerConfig": {"Volumes": {"/x": {}}}},
               {"Config": {"Volumes": []}}, {"Config": {"Volumes": "/data"}}, {"Config": None}, {"Id": 5}]:
    put("image_inspect", json.dumps({**image, **change}))
for raw in ["", "[]", '{"Id":"sha256:x","Config":{"Volumes":{}}}', '{"Config":{"Volumes":{"/v":{}}}}']:
    put("image_inspect", raw)
# ---- container_list: GET /containers/json as the sweep reads it ----
ours = {"Id": "c" * 64, "Names": ["/plb-sandbox-" + "a" * 32], "Image": "sha256:" + H, "State": "exited",
        "Labels": {"plb-sandbox.run": "a" * 32, "plb-sandbox.owner": "b-c:1:2"}}
put("container_list", json.dumps([ours]))
put("container_list", json.dumps([ours, {**ours, "Names": ["/decoy"], "Labels": {"plb-sandbox.run": "x"}},
                                  {**ours, "Names": ["plb-sandbox-" + "a" * 32], "Labels": None}]))
for raw in ["[]", "", "{}", "[1]", '[{"Labels":{}}]', '[{"Names":[]}]', '[{"Names":[5]}]', '[{"Names":["/a"],"Labels":[]}]',
            '[{"Names":["/a"],"Labels":{"plb-sandbox.run":7}}]', "[" * 40 + "]" * 40,
            '[{"Names":["\u002fplb-sandbox-x"],"Labels":{"plb-sandbox.run":"x","plb-sandbox.run":"y"}}]']:
    put("container_list", raw)
# ---- batch_manifest: JSON Lines, one run per line ----
def mline(id_, **extra):
    return json.dumps({"id": id_, "model": "subs/" + id_ + ".py", "model_sha256": H, **extra})
good = mline("team-01") + "\n" + mline("b.2_x", runtime_image="sha256:" + H, data="in.csv", features=["a", "b"],
                                        task_type="binary-classification", id_column="sample_id", seconds=20, memory_mb=256) + "\r\n"
put("batch_manifest", good)
put("batch_manifest", mline("x", data="s\u00e9\"q\".csv") + "\n" + mline("y", features=["\ud83d\ude00"]))
for raw in ["", "\n", good + "\n", "[1]", mline("a") + mline("b"), mline("a") + "\n" + mline("a"), mline("batch-summary"),
            mline("../x"), mline(".hidden"), mline("-rf"), mline("x" * 129), mline("x" * 128),
            mline("a", seconds="30"), mline("a", seconds=-1), mline("a", seconds=1.5), mline("a", seconds=3601), mline("a", memory_mb=63),
            mline("a", features=[]), mline("a", features=["a", "a"]), mline("a", features=[""]), mline("a", features="a"),
            mline("a", features=["a", 1]), mline("a", runtime_image="python:3"), mline("a", task_type="ranking"),
            mline("a", memory_gb=1), '{"id": "a", "id": "b"}', '{"id": "a", "model": "m"}', '{"model": "m"}',
            '{"id" "a"}', '{"id": }', '{id: "a"}', '{"id": "a" "model": "m"}', '{"id": "a', '{"id": "a\tb"}',
            '{"id": "a\x00b"}', mline("a", data="x\u0000y"), mline("a", data="\\q"), mline("a", data="\ud800x"),
            mline("a", features=["a"] * 9), '{"id": "a", "model": "m", "model": "n"}', mline("a", data="\\udfff"),
            '{"id": "a\x1f"}', json.dumps({"id": "a", "model": "m", "model_sha256": H + "0"})]:
    put("batch_manifest", raw)
for raw in [b'{"id": "a", "data": "\xc0\xaf"}', b'{"id": "\xed\xa0\x80"}', b'{"id": "\xf4\x90\x80\x80"}']:
    put("batch_manifest", raw)
# ---- batch_record: byte 0 = mode (0 a record as found, 1 a body the harness seals, 2 a provenance,
# 3 an outcome's state, message and digest split at 0xff) ----
import hmac
FUZZ_KEY = b"plb-fuzz" + bytes(24)  # fuzz/batch_record_fuzzer.cpp's key
def record_body(**change):
    fields = {"schema": "plb-sandbox/batch-record/2", "id": "a", "line": 1, "verdict": "script_failed", "exit_code": 8,
              "message": "the script exited with status 3",
              "usage": {"wall_seconds": 1.5, "cpu_seconds": 0.25, "memory_peak_bytes": 4096, "output_bytes": 9,
                        "host_tasks_peak": 40},
              "predictions_sha256": None, "provenance_sha256": None,
              "request": {"model_sha256": H, "limits": {"wall_seconds": 30}}}
    fields.update(change)
    return json.dumps({k: v for k, v in fields.items() if v != "-"}, separators=(",", ":"))[:-1]
def sealed(body):
    mac = hmac.new(FUZZ_KEY, b"plb-sandbox/batch-record/2 mac\n" + body.encode("utf-8", "surrogatepass"), "sha256")
    return body + ',"mac":"' + mac.hexdigest() + '"}\n'
success = dict(verdict="success", exit_code=0, message="predictions and provenance written", predictions_sha256=H,
               provenance_sha256="0" * 64)
bodies = [record_body(), record_body(**success), record_body(usage=None), record_body(id="b"),
          record_body(verdict="pwned"), record_body(exit_code=256), record_body(exit_code=-1), record_body(exit_code=1.0),
          record_body(message="\u001b[2J"), record_body(message="=1+1"), record_body(predictions_sha256=H),
          record_body(**{**success, "provenance_sha256": None}), record_body(**{**success, "predictions_sha256": H.upper()}),
          record_body(**{**success, "predictions_sha256": H + "\n,x"}), record_body(usage={"wall_seconds": -1}),
          record_body(usage={"cpu_seconds": 1e999}), record_body(usage={"memory_peak_bytes": -5}),
          record_body(usage={"memory_peak_bytes": 1.5}), record_body(usage={"output_bytes": 18446744073709551615}),
          record_body(usage="none"), record_body(request=[]), record_body(request="-"), record_body(schema="plb-sandbox/batch-record/1"),
          record_body(verdict="success\nx,1")]
for body in bodies:
    put("batch_record", b"\x00" + sealed(body).encode("utf-8", "surrogatepass"))
    put("batch_record", b"\x01" + body.encode("utf-8", "surrogatepass"))
good_record = sealed(record_body())
for raw in ["", "{}", "not json", good_record[:-2] + "\n", good_record.replace("script_failed", "success      "),
            good_record[:-69] + '"0"' + good_record[-66:], good_record + " ", good_record.replace('"mac"', '"MAC"'),
            json.dumps({"schema": "plb-sandbox/batch-record/1", "id": "a", "verdict": "success"}),
            '{"schema":"plb-sandbox/batch-record/2","mac":"' + "0" * 64 + '"}\n', "[" * 40 + "]" * 40]:
    put("batch_record", b"\x00" + raw.encode("utf-8", "surrogatepass"))
prov = {"schema": "plb-sandbox/provenance/1", "model_sha256": H, "input_sha256": H, "predictions_sha256": H,
        "limits": {"wall_seconds": 30}, "usage": {"wall_seconds": 0.8, "cpu_seconds": 0.4, "memory_peak_bytes": 9}}
for p_ in [prov, {**prov, "usage": {"wall_seconds": -0.0}}, {**prov, "predictions_sha256": "=cmd|x"},
           {**prov, "usage": {"memory_peak_bytes": 1e30}}, {**prov, "predictions_sha256": 7}]:
    put("batch_record", b"\x02" + json.dumps(p_).encode())
for raw in [b"", b"{", b'{"usage":{"wall_seconds":1e999}}', b'{"a":' * 20]:
    put("batch_record", b"\x02" + raw)
for state, message, digest in [(b"success", b"ok", H.encode()), (b"success\nz", b"=HYPERLINK(1)", b"@x"),
                               (b"not_run", b"\x1b]0;x\x07\r\n", H.encode() + b"\n,,"), (b"", b"-1", b""),
                               (b"pending", b'a, "q"', H.upper().encode()), (b"\xff", b"\\x41", b"+1")]:
    put("batch_record", b"\x03" + state + b"\xff" + message + b"\xff" + digest)
# ---- provenance_reader: a .sandbox.json as verify and the report read it ----
good_prov = {"schema": "plb-sandbox/provenance/1", "privacy": "local-only: do not publish or return to the model submitter",
             "tool_version": "0.1.0", "model_sha256": H, "runtime_image": "sha256:" + "b" * 64,
             "runtime": {"name": "runsc", "version": "runsc version 0.0~20240729.0", "release": "20240729", "platform": "systrap"},
             "limits": {"wall_seconds": 30, "memory_mib": 512, "cpu_millicores": 1000, "guest_processes": 64,
                        "host_runtime_tasks": 128, "scratch_mib": 16, "output_mib": 4, "open_files": 256, "file_size_mib": 16,
                        "input_values": 1000000, "input_json_mib": 64, "script_mib": 8, "pids_limit": 192},
             "task_type": "regression", "features": ["feature_a", "feature_b"], "id_column": "sample_id", "rows": 5,
             "input_sha256": H, "predictions_sha256": H, "started_at": "2026-12-01T10:00:00Z",
             "usage": {"wall_seconds": 0.512, "cpu_seconds": 0.2, "memory_peak_bytes": 20000000, "output_bytes": 64,
                       "host_tasks_peak": 40},
             "verdict": "success", "model_path": "/srv/sum.py", "data_path": "/srv/input.csv"}
def prov_with(path, value):
    doc = json.loads(json.dumps(good_prov))
    at = doc
    keys = path.split(".")
    for k in keys[:-1]:
        at = at[k]
    if value is KeyError:
        del at[keys[-1]]
    else:
        at[keys[-1]] = value
    return json.dumps(doc)
put("provenance_reader", json.dumps(good_prov))
put("provenance_reader", prov_with("id_column", None))
put("provenance_reader", prov_with("runtime_image", None))
put("provenance_reader", prov_with("model_path", KeyError))
put("provenance_reader", prov_with("task_type", "binary-classification"))
for path, value in [("schema", "plb-sandbox/provenance/2"), ("surprise", 1), ("limits.surprise", 1), ("model_sha256", KeyError),
                    ("runtime.release", KeyError), ("model_sha256", H.upper()), ("model_sha256", 1), ("runtime_image", "busybox"),
                    ("runtime.platform", "systrap\u001b[31m"), ("limits.wall_seconds", 0), ("limits.wall_seconds", 1.5),
                    ("limits.pids_limit", 1), ("task_type", "ranking"), ("verdict", "won"), ("usage.wall_seconds", -1),
                    ("usage", "fast"), ("features", [1]), ("features", [""]), ("rows", -3), ("runtime", []),
                    ("limits", None), ("usage.memory_peak_bytes", 1e300), ("started_at", "\n"), ("id_column", "")]:
    put("provenance_reader", prov_with(path, value))
text = json.dumps(good_prov)
for raw in ["", "{}", "[]", "null", text + "{}", text[:200], '{"rows":1,' + text[1:],
            text.replace('"release": "20240729"', '"release": "20240729", "release": "x"'), "[" * 40 + "]" * 40,
            '{"usage":{"wall_seconds":1e999}}']:
    put("provenance_reader", raw)
print("seeds written under", os.path.normpath(ROOT))

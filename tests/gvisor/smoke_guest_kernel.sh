#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proves the host really runs gVisor: the kernel release a runsc container sees is gVisor's own,
# not the host's (a runtime merely *named* runsc could point at runc).
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
# Outside the tool's "plb-sandbox-" prefix and without its labels: not a run of the tool's.
name=gvisor-smoke-$$-$RANDOM
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
host=$(uname -r)
guest=$(docker run --name "$name" --runtime=runsc --network=none --pull=never "$image" uname -r)
runc=$(docker run --rm --network=none --pull=never "$image" uname -r)
echo "host kernel: $host; under runsc: $guest; under runc: $runc"
[ -n "$guest" ] || { echo "FAIL: no kernel release from the runsc container"; exit 1; }
[ "$runc" = "$host" ] || { echo "FAIL: the control (runc) does not see the host kernel"; exit 1; }
[ "$guest" != "$host" ] || { echo "FAIL: the runsc container sees the host kernel: not gVisor"; exit 1; }
docker rm "$name" >/dev/null
trap - EXIT
docker container inspect "$name" >/dev/null 2>&1 && { echo "FAIL: container left behind"; exit 1; }
echo "PASS: gVisor guest kernel $guest"

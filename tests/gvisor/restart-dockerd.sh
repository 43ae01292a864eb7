#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Restarts dockerd the way ci/host/setup-host started it, and waits until it answers again.
set -euo pipefail
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl restart docker
else
  pid=$(cat /var/run/docker.pid)
  kill -TERM "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then echo "dockerd $pid did not stop" >&2; exit 1; fi
  bash "$(dirname "${BASH_SOURCE[0]}")/../../ci/host/daemonize" /var/log/plb-dockerd.log /usr/sbin/dockerd
fi
for _ in $(seq 1 120); do timeout 5 docker info >/dev/null 2>&1 && exit 0; sleep 0.5; done
echo "dockerd did not come back" >&2
exit 1

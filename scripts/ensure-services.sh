#!/usr/bin/env bash
# Starts what the tests need and a fresh machine may lack: a local Redis for the multi-instance
# suites (CI's machine normally runs one; if not, start it from Debian's package).
set -euo pipefail
# The binaries are needed even when a Redis already listens: the fault suite (test/cluster) starts a
# throwaway append-only redis-server of its own on a free port, and test/helpers/redis-topology.ts
# starts a Redis Cluster (redis-server --cluster-enabled, redis-cli --cluster create) and a
# sentinel set (redis-server --sentinel) the same way. Debian's redis-server brings redis-cli.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break; sleep 0.1; done
fi
# Real headless Chromium for the browse-site browser test (test/people), from Debian's package:
# playwright-core drives it by executablePath and never downloads a browser.
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

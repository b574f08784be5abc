#!/usr/bin/env bash
# Starts what the tests need and a fresh machine may lack: a local Redis for the multi-instance
# suites (CI's machine normally runs one; if not, start it from Debian's package).
set -euo pipefail
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break; sleep 0.1; done
fi

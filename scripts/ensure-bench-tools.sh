#!/usr/bin/env bash
# Installs what the benchmark drives load with: wrk (C, from Debian's package) outruns one Node
# server, where autocannon (the fallback) competes with it for the same cores. Redis for the Redis
# row comes from ensure-services.sh. A machine without apt-get or root keeps the fallback.
set -uo pipefail
command -v wrk >/dev/null 2>&1 && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; then
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
fi
command -v wrk >/dev/null 2>&1 || echo "wrk could not be installed; the benchmark falls back to autocannon" >&2
exit 0

#!/usr/bin/env bash
# The whole test suite: Biome's check (format, lint, sorted imports), type check, ESLint, dead code (knip), then every vitest suite. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/ensure-services.sh
npx biome check .
npx tsc --noEmit -p tsconfig.json
npx eslint .
npx knip
npx vitest run "$@"

#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each: ./scripts/fuzz.sh 10s
set -euo pipefail
fuzztime="${1:-10s}"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  done
done

#!/usr/bin/env bash
# Installs the Debian packages Twinframe's build and tests need. Idempotent and
# non-interactive: when everything is present it only runs dpkg-query and exits.
set -euo pipefail

# Packages grow with the issues that need them (protoc, chromium, xvfb, ...).
packages=(
  protobuf-compiler # protoc, for make proto and the generated-code staleness test
  # native ebiten (cgo): the viewer's native build and go vet ./...
  gcc pkg-config libx11-dev libasound2-dev libgl1-mesa-dev libxcursor-dev libxi-dev
  libxinerama-dev libxrandr-dev libxxf86vm-dev
  xvfb     # a display for the native viewer's tests
  chromium # the browser tests (chromedp drives Debian's headless chromium)
  postgresql-15 # initdb and postgres for the PostgreSQL store's tests (internal/pgtest)
)
# Node.js runs the wasm tests; the machine image usually has it already.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm) # the Node protocol client's packages (below)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Node protocol client (clients/node; TestNodeClient runs it) with the exact
# packages of its lockfile; again only when the lockfile changed since the last install.
node_dir="$(cd "$(dirname "$0")/.." && pwd)/clients/node"
lock_sum=$(sha256sum "$node_dir/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$node_dir/node_modules/.lock.sha256" 2>/dev/null)" != "$lock_sum" ]; then
  echo "setup: npm ci in clients/node"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" >"$node_dir/node_modules/.lock.sha256"
fi

command -v go >/dev/null || { echo "setup: Go 1.26 is required (https://go.dev/dl/)" >&2; exit 1; }
exit 0

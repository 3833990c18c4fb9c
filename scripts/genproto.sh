#!/usr/bin/env bash
# Generates the Go code of every .proto under shared/protocol (the protocol) and
# internal/legacypb (the benchmarks' plain-protobuf baseline) with protoc and the
# protoc-gen-go pinned in go.mod's tool block. Usage: scripts/genproto.sh [OUTDIR]
# (default: in place). The protocol tests run it into a temporary directory and
# compare, so committed generated code can never go stale.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root}"
cd "$root"
# Keep in step with protoDirs in shared/protocol/generate_test.go.
protodirs="shared/protocol internal/legacypb"
command -v protoc >/dev/null || { echo "genproto: protoc not found (make setup installs protobuf-compiler)" >&2; exit 1; }
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
mkdir -p "$out"
mapfile -t protos < <(find $protodirs -name '*.proto' | sort)
[ "${#protos[@]}" -gt 0 ] || { echo "genproto: no .proto files" >&2; exit 1; }
protoc --plugin=protoc-gen-go="$bin/protoc-gen-go" -I . \
  --go_out="$out" --go_opt=paths=source_relative "${protos[@]}"

# Twinframe build. The two commands a user needs are `make run` and `make test`;
# both do their own set-up through `make setup`.

GO            ?= go
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT     := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BUF           := github.com/bufbuild/buf/cmd/buf@v1.75.0
PROTO_RELEASE := shared/protocol/pb/releases/v1.binpb
# Tools run as `go run pkg@version` (never go.mod tools: see docs): this proxy list
# reads the module cache first, so once fetched they run with no network at all
# (the default proxy alone fails offline looking up the module's deprecation).
TOOL_PROXY    := GOPROXY="file://$(shell $(GO) env GOMODCACHE)/cache/download,$(shell $(GO) env GOPROXY)"
WASM_EXEC_DIR := $(shell $(GO) env GOROOT)/lib/wasm
BENCH_COUNT   ?= 6
BENCH_OUT     ?= bench.txt

.PHONY: all setup test test-native test-wasm test-fma test-download test-headless test-faults vet lint fmt fmt-check bench run run-cluster fuzz proto proto-check proto-release wasm

all: test

## setup: install the Debian packages the build and tests need (idempotent).
setup:
	@scripts/setup.sh

## test: everything CI checks.
test: setup fmt-check vet lint proto-check test-native test-wasm test-fma test-download test-headless

# The tests run as in CI (internal/testenv): a tool or data set a test needs that is
# missing (protoc, chromium, xvfb-run, the conformance data) fails it instead of
# skipping it, since make setup installs them. CI=false make ... to skip instead.
test test-native test-wasm test-fma test-download test-headless: export CI ?= true

## vet: go vet, natively and for the wasm build of the shared simulation.
vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./shared/... ./client/... ./wasm/... ./viewer/... ./web/...

## lint: staticcheck, pinned and run through `go run`.
lint:
	$(TOOL_PROXY) $(GO) run $(STATICCHECK) ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The timeout is for hangs: the gameserver package's browser tests take minutes under -race.
test-native:
	$(GO) test -race -count=1 -timeout 30m ./...

## test-wasm: the shared simulation compiled to WebAssembly and run under Node.
test-wasm:
	PATH="$$PATH:$(WASM_EXEC_DIR)" GOOS=js GOARCH=wasm $(GO) test -count=1 ./shared/...

## test-fma: the determinism golden tests built with GOAMD64=v3, where the compiler
## fuses a*b+c into FMA as arm64 does: a product left unrounded changes the hash.
test-fma:
	GOAMD64=v3 $(GO) test -count=1 -run 'Determinism|Golden|Hash' ./shared/...

## test-download: what a page downloads for the viewer (≤ 3.5 MB), the wasm built and
## compressed as make wasm does, and loaded by Chromium; without -race, under which the
## brotli encoder takes tens of minutes (test-native skips it).
test-download:
	$(GO) test -count=1 -run 'TestWasmDownload' ./web/

## test-headless: the whole system without a screen: the real server in-process,
## 8 bot clients over loopback websockets, 1,200 frames, invariants, AOI leaks,
## prediction drift and the frame schedule checked every frame; with and without latency.
## A check that ran on nothing (e.g. no exact frame without latency) fails the run. First the
## headless tests without the race detector: test-native's -race build skips the long ones.
## Each run records itself; the recording is kept under out/ only when the run fails (open it
## in the viewer: docs/RECORDING.md). Last, a cluster of three nodes (real nats-server and
## PostgreSQL, the nodes in-process) whose bots cross between nodes: ownership, ids, handoffs.
test-headless:
	$(GO) test -count=1 -run 'TestHeadless' ./server/internal/headless
	$(GO) run ./server headless -frames 1200 -bots 8 -report out/headless.json -record out/headless.rec && rm -f out/headless.rec
	$(GO) run ./server headless -frames 1200 -bots 8 -seed 2 -net latency=80ms,jitter=20ms -report out/headless-latency.json -record out/headless-latency.rec && rm -f out/headless-latency.rec
	$(GO) run ./server headless -nodes 3 -frames 600 -bots 6 -report out/headless-cluster.json

## test-faults: the cluster's fault tests in full (server/internal/clusterfault): node
## processes and nats-server killed with SIGKILL during 60 handoffs, seeded (FAULT_SEED);
## test-native runs seven of those rounds (one of each kind) and the package's other
## fault tests.
FAULT_SEED ?= 1
test-faults:
	$(GO) test -count=1 -timeout 40m -v ./server/internal/clusterfault -args -fault-rounds 60 -fault-seed $(FAULT_SEED)

## bench: every benchmark, -count=$(BENCH_COUNT), summarised with benchstat.
bench:
	@# go test's status, not tee's: a benchmark that fails must fail make bench.
	@{ $(GO) test -run '^$$' -bench . -benchmem -count=$(BENCH_COUNT) ./...; echo $$? >$(BENCH_OUT).status; } | tee $(BENCH_OUT); \
		status=$$(cat $(BENCH_OUT).status); rm -f $(BENCH_OUT).status; \
		if [ "$$status" != 0 ]; then echo "make bench: go test failed (status $$status): see FAIL lines in $(BENCH_OUT)" >&2; exit 1; fi
	$(TOOL_PROXY) $(GO) run $(BENCHSTAT) $(BENCH_OUT)

## fuzz: a short run of every fuzz target (FUZZTIME per target).
FUZZTIME ?= 10s
fuzz:
	@scripts/fuzz.sh $(FUZZTIME)

## proto: regenerate the protobuf Go code (committed; a test fails when it is stale).
proto: setup
	scripts/genproto.sh

## proto-check: buf lint of the protocol's .proto, and buf breaking against the
## descriptor set of its last release (committed: CI clones carry no tags).
proto-check:
	$(TOOL_PROXY) $(GO) run $(BUF) lint shared/protocol/pb
	$(TOOL_PROXY) $(GO) run $(BUF) breaking shared/protocol/pb --against $(PROTO_RELEASE)

## proto-release: record the .proto as released, for proto-check to hold later
## changes to (run when a release is cut; commit the file).
proto-release: setup
	protoc -I shared/protocol/pb --include_imports --descriptor_set_out=$(PROTO_RELEASE) twinframe.proto

## wasm: the browser viewer (web/viewer.wasm) and the wasm_exec.js of this Go. Without
## symbols, DWARF and file paths (-s -w -trimpath: 0.7 MB less), gzipped at -9 and
## brotli at 11 (what pages get, ≤ 3.5 MB; ≈ 2.5 min when the wasm changed, a second
## when not) for the server to send as they are (web/web.go). Binaryen's wasm-opt -O2
## shrinks a Go wasm by under 1 % (gzipped: 0.5 %) and takes minutes: not used.
wasm:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o web/viewer.wasm ./wasm
	gzip -kf9 web/viewer.wasm
	$(GO) run ./web/precompress/wasmbr web/viewer.wasm
	cp "$(WASM_EXEC_DIR)/wasm_exec.js" web/wasm_exec.js

## run: the server on http://127.0.0.1:8080 (ADDR=host:port to change) with the embedded
## default world and the SQLite store twinframe.db; builds the wasm viewer first.
ADDR ?= 127.0.0.1:8080
DB   ?= twinframe.db
run: setup wasm
	$(GO) run ./server serve -addr "$(ADDR)" -db "$(DB)" -wasm-dir web

## run-cluster: an optional convenience, not one of the two commands: NATS, a throw-away
## PostgreSQL and three nodes on loopback (node1 on ADDR, the others on the next ports),
## the default world's regions spread over them; prints the URL to open. Ctrl-C stops
## everything it started and removes its temp dirs. Builds the wasm viewer first.
run-cluster: setup wasm
	$(GO) run ./server cluster -addr "$(ADDR)" -wasm-dir web

//go:build race

package web_test

// raceEnabled: the race detector makes the brotli encoder of TestWasmDownload
// take tens of minutes; make test-download runs it without.
const raceEnabled = true

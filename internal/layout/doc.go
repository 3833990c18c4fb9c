// Package layout holds the tests that keep Twinframe's architecture honest:
// the dependency rules of docs/ARCHITECTURE.md §2 and the determinism rules of §6.
//
// It has no code of its own; see layout_test.go.
package layout

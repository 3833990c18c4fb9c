// Package nativetest holds the smoke test of the native viewer window; it has no code of
// its own. The test builds the viewer command (go run ./viewer) and runs it under Xvfb, because a test binary that
// linked ebiten would panic at init without a display.
package nativetest

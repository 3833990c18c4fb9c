// Package recording reads and writes Twinframe recordings: a run or a session saved
// as a file that the viewer opens, seeks and steps (docs/RECORDING.md has the format,
// byte for byte).
//
// A recording is a sequence of Disk-mode archives (shared/archive): a header (the
// world's configuration files and regions), one record per frame, and an index that
// lists every frame's offset and the run's violations. Two kinds share the layout:
//
//   - Server recordings (server headless -record) hold every region's whole simulation
//     state each frame (sim.Game.Snapshot), flate-compressed as its XOR with the
//     region's state the frame before (aligned where bytes moved: delta.go) and in full
//     every KeyEvery frames, with the state hash the server computed; seeking inflates
//     from the nearest full frame and checks each state against its hash, so the state
//     at a seeked frame is the state the server had then.
//   - Client recordings (the viewer's) hold the protocol messages a client received,
//     grouped by the server frame that starts each packet; feeding them to a fresh
//     replica rebuilds what the client saw.
//
// Decode never panics on bad input: every length and count is capped before anything
// is allocated for it, and errors name the byte offset and the record they are in.
package recording

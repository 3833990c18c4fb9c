// Package world defines Twinframe's configuration and game-state tables — regions,
// cells, areas, polygons and their vertices, markers, prototypes, prop sets,
// populations, hotspot rules, entities and lost entities — and loads a world from human-readable
// xdump .config files, verifying it with errors that name file and line.
// It ships the default world embedded (DefaultFiles) and turns each region into the
// navi.Geometry its navigation mesh is built from.
//
// # Design note
//
// Every table is a Go slice in a World, registered once with explicit, stable uids in
// the World's own xdump.Registry (no package state): the one xdump writer dumps them
// and the one xdump parser loads them, so `xdump table *` and the meta tables describe
// the whole game to a client that knows only names. Configuration refers to rows by
// key (-1: none); in .config files a reference may be written as the row's name, and a
// symbol or symbol set (polygon kind, collision, flags) by its symbol names.
//
// Loading is two steps: the parser checks syntax, types, key order and ranges, row by
// row; Verify then checks what spans rows and tables — ids unique, references
// resolved, cells tiling their region, areas apart, polygons closed, simple and inside
// their area, markers inside their area, prop sets, populations and hotspot rules
// sane (a rule's hotspot is a hotspot marker, its action has exactly the argument it
// needs) — and reports
// up to 20 problems at once, each at the file and line of the row at fault. Random
// choices (which prop a marker places) are seeded by the cell's seed and the marker
// id with integer hashing only, so the server and the wasm client compute the same
// initial state; prop rotations are quarter turns, so footprints turn exactly.
//
// Visibility follows the xdump field flags: an entity's seed is Deity (a player's
// dump omits it) and its goal is Hidden (a player sees -1).
package world

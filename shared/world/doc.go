// Package world defines Twinframe's configuration and game-state tables — regions,
// cells, areas, polygons and their vertices, markers, prototypes, prop sets,
// populations, hotspot rules, powers, transitions (portals between regions), entities
// and lost entities — and loads a world from human-readable
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
// needs), transitions sane (a disc or portal polygon in an area, leading to an
// arrival marker of another region, with a way back unless one-way, the arrival
// clear of that region's portals by the avatar's radius, so no portal loops), and
// every number within its range — and reports
// up to 20 problems at once, each at the file and line of the row at fault. Load then
// builds the navmesh of each region a portal leads to and checks that the arrival
// gives the avatar (the largest player prototype) room on walkable ground, again at
// the transition's file and line. Each region's props take entity ids from the
// region's own block (FirstEntityID), so one game per region never collide. Random
// choices (which prop a marker places) are seeded by the cell's seed and the marker
// id with integer hashing only, so the server and the wasm client compute the same
// initial state; prop rotations are quarter turns, so footprints turn exactly.
//
// # Ranges
//
// Every numeric configuration field has a range, and a value outside it is an error
// at the file and line of its row: coordinates (region, cell and area bounds, vertex
// and marker positions) within ±MaxCoordinate (4096 m); prototype radius in (0, 32] m
// and speed in [0, 100] m/s; marker radius in [0, 1024] m and rot 0..3; population
// density in [0, 100] per 1000 m²; prop-set weights 0..65536; power cooldown
// 1..MaxFireCooldown (200) frames; ids and references in [-1, the table's row limit);
// cell seeds any uint32. The power table is optional: without a row for the bolt its
// cooldown is DefaultFireCooldown (5 frames).
//
// Visibility follows the xdump field flags: an entity's seed is Deity (a player's
// dump omits it) and its goal is Hidden (a player sees -1).
package world

// Package replication is the contract between Twinframe's server and its clients:
// how a client message becomes a simulation input and at which frame, and what each
// client receives each frame (area of interest, creates, locomotion corrections,
// power results). The real server and the scripted test server (replicationtest)
// both run it, and the client's replica predicts and walks by the same rules.
//
// # Design note
//
// Inputs (input.go): MoveTo, Stop and Fire carry a sequence number and the client
// frame they were predicted at. DecodeInput is the one mapping from message to
// sim.Input; the client builds its messages with MoveTo, Stop and Fire and predicts
// the decoded input, so both sides apply the same command. Inputs.Queue schedules
// an input for its stamped frame, never before the next frame and at most
// MaxInputLead frames after it; Apply enqueues the due ones in sequence order and
// moves the acknowledgement every frame packet carries.
//
// Replication (replicator.go), per game, after each frame, as docs/ARCHITECTURE.md
// §3 orders it. Clients walk the entities they hold along their replicated paths
// (Remote, on the simulation's sim.Walker), and the Replicator walks the same copy
// per entity: an entity's locomotion goes to other clients only when its command
// changes, when it starts or stops, when the walked copy strays beyond
// WalkTolerance or YawTolerance, every RefreshFrames while it moves
// (EveryFrameUpdates: whenever the copy is not exact), and the frame after a client
// started holding it mid-walk (its create rounded the walked copy to the wire; the
// correction makes every holder's copy the same again). That correction is computed
// and encoded once per frame (Prepare); every client that held the entity before
// the frame gets those same bytes, because every client that holds an entity has
// received every update since its create (a client that falls behind must be
// disconnected, never skipped). The owner of an avatar gets every change of it,
// relative to the last, for its prediction.
//
// Per client (Write), the area of interest (AOI, with hysteresis) is recomputed
// when the avatar has moved AOIMove metres or AOIRefresh frames have passed; in
// between, only created and destroyed entities are considered, and held entities
// beyond the remove radius leave at once. A client's packet for a frame is
// NetMessageServerFrame (acknowledging the last input applied), the replies to its
// requests, removes, adds, changes, and the power results it can see.
//
// Joins (join.go): the packet a client gets when it holds nothing of its region
// (login, resync: WriteJoin), the region change and the tables it carries, the
// packet limits and a player's owner are built here once, for the real server and
// replicationtest alike, so that the protocol test vectors taken from the latter
// are the former's bytes.
//
// Determinism: entities in id order, views in attach order, no map iteration that
// affects output, no clock.
package replication

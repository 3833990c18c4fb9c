// Package replica is the client side of Twinframe's replication: it builds the
// region from the configuration tables the server sent, applies the server's
// entity messages, interpolates remote entities and predicts the player's own
// avatar through the same simulation code the server runs. The rules it shares
// with the server (inputs, the area of interest, walking remote entities) are
// shared/replication's.
//
// # Design note
//
// A Replica consumes decoded protocol messages (Receive) and never touches a
// socket or a clock: every call that depends on time takes now, a monotonic
// duration from any epoch the caller chooses. One frame packet is one server
// frame F: NetMessageServerFrame first, then replies (a region change among them),
// destroys, creates, updates and power results (docs/PROTOCOL.md §6); when the
// packet ends, F is complete and the avatar's authoritative state for F is
// compared with the prediction for F. The login and resync answers carry no
// NetMessageServerFrame: their region change's server_frame places them.
//
// Prediction runs a private sim.Game built from the same tables (its navmesh and
// props are the server's), holding the own avatar. Every input gets a sequence
// number and the frame it is predicted to apply in (the client frame it carries);
// the avatar steps at once, and a ring buffer keeps the predicted locomotion state
// of every frame. Comparison is in the wire's quantized domain (positions to 1/8 m,
// yaw to 1/64 rad): an exact prediction shows zero error. A mismatch beyond the
// tolerance rewinds the avatar to the server's state for F (unpacked into the
// simulation entity through its own replication archive) and replays the frames
// after F with the inputs the server has not acknowledged (Gambetta; Overwatch).
// What the player sees is the simulated state plus a smoothing offset that decays
// each frame, so corrections are smoothed without touching the simulation.
//
// Remote entities walk: the server sends their locomotion only when it changes in
// a way a client cannot foresee, and at the start of every server frame the replica
// advances each of them one locomotor step along its replicated path (replication.Remote, with
// the simulation's own sim.Walker); the frame's updates then correct it. The server
// walks the same copy and corrects it when it strays beyond replication.WalkTolerance, so a
// remote entity's state stays that close to the server's.
//
// Remote entities are drawn InterpDelay frames (default 2) behind the estimated
// server frame: between the two received frames around that time they are
// interpolated; past the newest one they are extrapolated by their last velocity
// for at most MaxExtrapolation frames, then held. The clock estimate comes from
// ping/pong (lowest-RTT sample for the offset, smoothed RTT for the lead); the
// client runs ahead of the server by half the RTT plus one frame, so that its
// inputs arrive before the frame they are stamped with.
//
// Inconsistent server data (a destroy or update of an unknown entity, a tables
// hash mismatch, an archive that does not decode) never panics: the message is
// dropped, the error is logged and counted, and ResyncReason reports that the
// client should ask for a fresh copy of the world: TakeResyncRequest gives the
// one NetMessageResyncRequest to send, and the server's answer, a region change
// followed by creates of everything in view, replaces the world.
//
// A region change to another region while logged in, with no resync asked for, is
// travel (a portal, a deity's teleport): the avatar keeps its id, the replica builds
// the new region's prediction game from the world it loaded (the tables hash is
// unchanged, so they are not loaded and verified again), drops the entities of the
// old region (the creates of the new view follow) and keeps the input numbering,
// the clock estimate, the drift log and the inputs the server has not acknowledged
// (it dropped and acknowledged the ones it had not applied; later ones apply in the
// new region). Corrections within TravelWindow frames of a travel are counted
// apart (DriftStats.CorrectionsAfterTravel); TakeRegionChanges reports each change.
//
// Determinism: no wall clock, no global random source, entities kept in id order,
// no map iteration.
package replica

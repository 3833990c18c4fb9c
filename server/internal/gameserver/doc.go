// Package gameserver is Twinframe's authoritative game server: it runs the shared
// simulation at 20 frames per second and replicates it to websocket clients, each
// seeing the entities near its avatar. It also serves the HTTP side (status page,
// /metrics, /healthz, /xdump, /debug/pprof) and keeps avatars in the store.
//
// # Design note
//
// One goroutine, the frame loop, owns the sim.Game and every session's game-side
// state; nothing else touches them. Each connection has a reader goroutine (the
// HTTP handler itself) that decodes packets into a bounded inbox, and a writer
// goroutine that drains a bounded queue of finished packets. The loop only ever
// does non-blocking sends: a session whose queue is full is a slow consumer and
// is disconnected, so no socket can stall a frame. Requests that need the game
// (joins, the status page, HTTP xdumps, live edits) are functions the loop runs
// at the next frame boundary.
//
// A frame follows docs/ARCHITECTURE.md §3: drain the inboxes (inputs are held until the
// frame they are stamped with, at most MaxInputLead frames ahead), step the game
// unless paused, then replicate. What each client gets, and how its messages become
// inputs, is shared/replication's: the same code runs the scripted test server
// clients are tested against. The server adds what only it has: rate limits,
// replies to requests, and for a deity that asked, the debug-draw stream of the
// frame's sweeps (sim.DebugDraw).
//
// Live edits (deity) become one more configuration file that loads after the
// others: the world is loaded and verified from scratch, so errors name that
// file's line and column exactly as at start; the game continues from a
// snapshot restored into the new world (navmeshes and blackout zones rebuilt),
// and every client gets the new region change and its entities again.
//
// A client whose replica found inconsistent data asks for a resync; it gets
// what a fresh join gets (resync.go), at most a few times per session before it
// is disconnected as a flood.
//
// HTTP (httpserver.go, limits.go): every command serves HTTPServer, which
// answers only to the Host names of Config.AllowHosts (421 otherwise: DNS
// rebinding), bounds each request's reading and writing (websocket sessions
// excepted), closes kept-alive connections left idle, and caps open connections
// per address and in total, closing the oldest idle ones first so that a flood of
// silent connections cannot lock out the health check. Admission
// (admission.go): beyond Config.MaxPlayers a login is refused with
// ERROR_CODE_SERVER_FULL before an avatar is spawned (the deity always gets in),
// and a player whose inputs stop for Config.IdleTimeout of the loop's clock is
// logged out with ERROR_CODE_IDLE.
//
// Disconnects carry a websocket close code of 4000 plus the pb.ErrorCode and the
// reason text, after a NetMessageError; a slow consumer, which would not read
// them, is cut at once.
//
// Avatars are sim.Entity Database archives, saved on logout, at shutdown and,
// when they changed, every SaveEvery (a few sessions packed per frame, so no frame
// packs everyone), by a saver goroutine that coalesces saves per player, so the
// loop never waits for the disk. A failed save is kept and retried with backoff
// until it lands (a newer save of the player replaces it), and the store is
// reported degraded meanwhile (/healthz 503, metrics): a full disk costs no save.
//
// Accounts (accounts.go): a login must carry its account's secret (an argon2id
// password or a token the server issued at the first login); a wrong one is
// refused without touching the session playing under that name, and failed
// logins are limited per address. Xdumps (dump.go): the loop copies the rows
// dumps need at most once a frame into a snapshot that encoder goroutines read,
// and players' views hold only their area of interest; players' requests and
// inputs are rate limited (ratelimit.go, drain).
package gameserver

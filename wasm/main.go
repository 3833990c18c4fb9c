// Command wasm is Twinframe's viewer in the browser: built with GOOS=js GOARCH=wasm, it
// runs the ebiten viewer on the page's canvas and publishes window.twinframe.
//
// Design note: the page picks the source with ?mode=local (the sandbox: the simulation
// runs in the page with the embedded default world) or, by default, the networked mode,
// which connects to the page's own server at /ws (?server=ws://... overrides it; ?name=
// sets the player name). The deity token comes from the fragment (#token=, never sent
// to a server) or ?token=; the page then removes it from the address bar and history
// (history.replaceState) and keeps it in sessionStorage for reloads of the tab. The
// account token the server issues at a name's first login is kept in localStorage,
// per server origin and name, and sent at every later login; natively -secret (or
// $TWINFRAME_SECRET) gives it.
//
// window.twinframe (the page's contract, for tests and power users), refreshed after
// every viewer update:
//
//	state      connected, mode ("local" | "network"), frame (predicted or sandbox frame),
//	           serverFrame, entities, avatarId, avatar [x, y], moving, drift (metres, last
//	           comparison), driftMax, corrections, rtt (ms), paused, recorded (the last
//	           recorded frame), error, fps, overlays (names on), overlayNames (all),
//	           selected, following, camera [x, y, pixels per metre], triangles, ticks,
//	           ready (true once the first update ran), region (the avatar's region's
//	           name), regionId, regionChanges (travels since starting; the event log
//	           says "region A → B at frame F" for each)
//	network    recordedFrom (first recorded server frame), replaying (frame is a
//	           recorded one), avatarServer [x, y] (authoritative, at serverFrame);
//	           the server's loop: serverFrameMs and serverLateMs (newest timed frame),
//	           serverFrameMaxMs (30 s), serverDropped, serverTimedFrames;
//	           netLatency, netJitter (ms), netBandwidth (bytes/s), netLoss (% of TCP
//	           segments): the connection's simulated conditions (the panel's sliders
//	           show them however they were set); graphs (names of the graphs drawn,
//	           top to bottom; "region <name>": each region's step time on the server;
//	           last "page frame", drawn beside them); page {simMs, replicaMs, buildMs,
//	           submitMs}: the viewer's own frame split (prediction, reading the
//	           replica, building the draw list, handing it to ebiten), which the round
//	           trip and drift exclude (messages are stamped when they are delivered);
//	           correctionsAfterTravel (prediction rewinds just after a travel, not in
//	           corrections)
//	functions  moveTo(x, y), fire(x, y), toggle(name) → on (null: unknown name),
//	           setOverlay(name, on), pause(), resume(), step(), seek(frame) (replay the
//	           recording: the sandbox's, or the networked session's), select(id),
//	           follow(on), inspect() → [{name, value}], log(n) → [{frame, text}],
//	           worldToScreen(x, y) / screenToWorld(x, y) → {x, y},
//	           setNetwork({latency, jitter (ms), bandwidth (bytes/s), loss (%)}) → "" or why not,
//	           entityList() → [{id, prototype, x, y, own}] (the entities shown),
//	           saveRecording() → Uint8Array (the file) or a string saying why not,
//	           openRecording(Uint8Array) → Promise of "" or why not (the view shows the file)
//	timeline   timeline({entity, kinds, limit}) → [{index, frame, kind, a, b, point,
//	           normal, value, origin, repeat}] (kinds: collide, overlap-begin,
//	           overlap-end, power, correction, region, repeat; origin: local, server,
//	           client), selectRow(index) → the row (null: none; seeks to its frame,
//	           pausing, and selects its entities), selection() → {row, entities,
//	           contact [{name, value}], error}
//	deity      deity (the page has the deity token); the tools, each → "" once sent or
//	           why refused (no token, not connected, the sandbox): teleport(player,
//	           region, marker), spawn(prototype, x, y) (in the region shown),
//	           kill(id), serverPause(), serverStep(), serverResume(),
//	           editTable(records) (a live edit: a table the records hold replaces
//	           it whole); tableText(name) → the table's .config text as the server
//	           sent it (null: not an editable table), editableTables (names); the
//	           server's newest answer: deityReplies (count), deityReply (text, e.g.
//	           "table edit 2 refused: zz-live-0002.config:10:41: ..." or "world
//	           directory applied at frame F"), deityReplyError
//	recording  with ?replay=URL (fetched from the page, any URL the page may fetch) or
//	           after openRecording: mode "recording", and recording {kind ("server" |
//	           "client"), origin, first, last, violations, violation {frame, check,
//	           invariant, what, entities} (the first, where the file opened), marked
//	           (its entities; the first is selected)} (docs/RECORDING.md)
//
// Platform code sits behind three untagged functions (pageMode, publish, fail) with
// *_js.go and *_notjs.go implementations; the native build opens a window instead, which
// keeps `go vet ./...` and `go build ./...` working on every platform.
package main

import (
	"fmt"

	"github.com/twinframe/twinframe/viewer/game"
	"github.com/twinframe/twinframe/viewer/scene"
)

// page is what the page (or the command line) asks for.
type page struct {
	mode   string // modeLocal or modeNetwork
	seed   uint64 // sandbox seed
	server string // websocket URL of the server
	name   string // player name
	token  string // deity token
	secret string // the account's password or issued token
	// onIssued keeps a token the server issued (nil: nowhere to keep it).
	onIssued func(token string)
	xdump    bool   // the inspector asks the server for xdump rows
	replay   string // a recording to open instead (?replay=URL; natively -replay FILE)
}

// Page modes.
const (
	modeLocal   = "local"
	modeNetwork = "network"
	modeReplay  = "recording" // set by ?replay=: the source is the recording's
)

func main() {
	pg := pageMode()
	mode := pg.mode
	var src scene.Source
	var err error
	var selected uint64
	if pg.replay != "" {
		mode = modeReplay
	}
	switch mode {
	case modeReplay:
		var data []byte
		if data, err = readRecording(pg.replay); err == nil {
			src, selected, err = scene.OpenRecording(data)
		}
		if err != nil {
			err = fmt.Errorf("replay %s: %w", pg.replay, err)
		}
	case modeLocal:
		src, err = scene.NewLocal(scene.LocalOptions{Seed: pg.seed})
	case modeNetwork:
		src = scene.NewNetwork(scene.NetworkOptions{URL: pg.server, Name: pg.name, DeityToken: pg.token, NoXdump: !pg.xdump,
			Secret: pg.secret, OnIssuedToken: pg.onIssued})
	default:
		err = fmt.Errorf("unknown mode %q: use mode=local (sandbox) or mode=network", mode)
	}
	if err != nil {
		fail(mode, err)
		return
	}
	view := scene.NewView(src)
	if selected != 0 {
		view.Select(selected)
		view.SetFollow(false)
	}
	pub := publish(view)
	if err := game.Run(view, game.Options{Panel: !inBrowser, AfterUpdate: pub}); err != nil {
		fail(mode, err)
	}
}

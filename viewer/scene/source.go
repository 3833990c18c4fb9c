package scene

import (
	"errors"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
)

// Source is where a viewer's world comes from: the in-process simulation (NewLocal) or
// a client of a server (NewNetwork). The viewer calls its methods from one goroutine.
type Source interface {
	// Update advances the source to the viewer's clock now (any monotonic origin).
	Update(now time.Duration) error
	// Status describes the source now.
	Status() Status
	// Bounds returns the rectangle of the world to fit the camera to.
	Bounds() (min, max mgl32.Vec2)
	// Draw draws the world with the overlays of ov; selected (0: none) stands out.
	Draw(d debugdraw.Drawer, ov Overlay, selected uint64)
	// Do runs a command of the user's.
	Do(c Command) error
	// Pick returns the entity at world point p (0: none).
	Pick(p mgl32.Vec2) uint64
	// Inspect returns the fields of an entity (nil when it does not exist).
	Inspect(id uint64) []Field
	// Log returns the recent events, oldest first. The slice is the source's own.
	Log() []LogEntry
	// Graphs returns the source's time series.
	Graphs() []*Series
	// Close releases the source.
	Close() error
}

// Status is what a source reports about itself; the page's window.twinframe mirrors it.
type Status struct {
	Connected   bool       `json:"connected"`
	Mode        string     `json:"mode"` // "local" or "network"
	Frame       uint64     `json:"frame"`
	ServerFrame uint64     `json:"serverFrame"`
	Entities    int        `json:"entities"`
	AvatarID    uint64     `json:"avatarId"`
	Avatar      [2]float32 `json:"avatar"` // the avatar's position
	Moving      bool       `json:"moving"` // the avatar is walking
	Drift       float32    `json:"drift"`  // metres between predicted and authoritative avatar
	DriftMax    float32    `json:"driftMax"`
	Corrections int        `json:"corrections"` // prediction rewinds since connecting
	RTT         float32    `json:"rtt"`         // milliseconds
	Paused      bool       `json:"paused"`
	Recorded    uint64     `json:"recorded"` // the furthest recorded frame (seek up to it)
	Error       string     `json:"error"`
	// The region the avatar is in (its name and id), and the travels since starting.
	Region        string `json:"region"`
	RegionID      int32  `json:"regionId"`
	RegionNode    string `json:"regionNode"` // in a cluster: the node that runs the region`
	RegionChanges int    `json:"regionChanges"`
	// Prediction rewinds within replica.TravelWindow frames of a travel (not in
	// Corrections: the handoff's, not steady prediction's).
	CorrectionsAfterTravel int `json:"correctionsAfterTravel"`

	// Replay of a networked session (the sandbox replays from frame 0 and leaves these zero).
	RecordedFrom uint64     `json:"recordedFrom"` // the first recorded server frame
	Replaying    bool       `json:"replaying"`    // Frame is a recorded server frame, not the live one
	AvatarServer [2]float32 `json:"avatarServer"` // the avatar's authoritative position at ServerFrame

	// The server's frame loop (NetMessageServerFrameStats), networked mode.
	ServerFrameMS    float32 `json:"serverFrameMs"`     // the newest timed loop frame's duration
	ServerLateMS     float32 `json:"serverLateMs"`      // and how late it started
	ServerFrameMaxMS float32 `json:"serverFrameMaxMs"`  // the longest in the graph (30 s)
	ServerDropped    uint64  `json:"serverDropped"`     // loop frames the server dropped since it started
	ServerTimed      int     `json:"serverTimedFrames"` // loop frames timed since connecting

	// The simulated network conditions of the connection (SetNet), both ways.
	NetLatencyMS float32 `json:"netLatency"`
	NetJitterMS  float32 `json:"netJitter"`
	NetBandwidth int     `json:"netBandwidth"` // bytes per second (0: unlimited)
	NetLossPct   float32 `json:"netLoss"`      // percentage of TCP segments lost (netsim.Conditions.Loss)

	// The deity tools (deity.go): whether the page has the deity token, and the
	// server's newest answer to them (a table edit applied or refused at its
	// line, the world directory's, a refused command), counted so that a caller
	// sees a new one.
	Deity           bool   `json:"deity"`
	DeityReplies    int    `json:"deityReplies"`
	DeityReply      string `json:"deityReply"`
	DeityReplyError bool   `json:"deityReplyError"`

	// Recording describes the opened recording file (mode "recording"; recordfile.go).
	Recording *RecordingStatus `json:"recording,omitempty"`
}

// CommandKind says what a Command asks.
type CommandKind uint8

// Commands. Pause, Resume and Step stand alone, so View.Do takes them; the others
// carry a point or a frame and go in through View.MoveTo, Fire and Seek.
const (
	cmdMoveTo CommandKind = iota + 1 // walk the avatar to Point along a path
	cmdFire                          // fire a bolt towards Point
	cmdStop                          // stop the avatar
	Pause                            // stop the frame clock
	Resume                           // restart the frame clock
	Step                             // run one frame (while paused)
	cmdSeek                          // replay the recording to Frame
)

// Command is a user's request to a source.
type Command struct {
	Kind  CommandKind
	Point mgl32.Vec2
	Frame uint64 // cmdSeek
}

// errNoAvatar is returned by commands that need an avatar when there is none.
var errNoAvatar = errors.New("scene: no avatar")

// errCommand is returned for a command the source does not support.
var errCommand = errors.New("scene: unsupported command")

// Field is one inspected field of an entity.
type Field struct {
	Name, Value string
}

// LogEntry is one line of the event log.
type LogEntry struct {
	Frame uint64
	Text  string
}

package scene

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// Recordings as files (docs/RECORDING.md): the viewer saves the networked session's
// recording, and opens a file in place of its source. A server recording
// (server headless -record) shows every region's state at each recorded frame,
// restored from the file, and opens at its first violation with the violation's
// entities marked; a client recording (the viewer's own) replays the messages as
// the networked mode's replay does.

// RecordingStatus describes an opened recording (window.twinframe.recording).
type RecordingStatus struct {
	Kind       string            `json:"kind"` // "server" or "client"
	Origin     string            `json:"origin"`
	First      uint64            `json:"first"` // the first and last recorded frames
	Last       uint64            `json:"last"`
	Violations int               `json:"violations"`
	Violation  *ViolationSummary `json:"violation,omitempty"` // the first, where the file opened
	// Marked are the entities of the violation the file opened at (the first is
	// also the view's selection); they are drawn ringed.
	Marked []uint64 `json:"marked"`
}

// ViolationSummary is a violation the recording lists.
type ViolationSummary struct {
	Frame     uint64   `json:"frame"`
	Check     string   `json:"check"`
	Invariant string   `json:"invariant,omitempty"`
	What      string   `json:"what"`
	Entities  []uint64 `json:"entities"`
}

// errReadOnly is returned for a command that would change a recording.
var errReadOnly = errors.New("scene: a recording is read-only: pause, step, resume and seek only")

// recordingSaver is a source that can save its recording as a file.
type recordingSaver interface {
	saveRecording() ([]byte, error)
}

// SaveRecording returns the recording of the view's source as a file: the networked
// session's messages, or the opened file itself.
func (v *View) SaveRecording() ([]byte, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.src.(recordingSaver)
	if !ok {
		return nil, errors.New("scene: this mode has no recording to save (the networked mode and opened recordings do)")
	}
	return s.saveRecording()
}

// OpenRecording replaces the view's source with the recording in data, shown at
// its first violation (or its first frame) with the violation's first entity
// selected. The old source is closed. On error the view is unchanged.
func (v *View) OpenRecording(data []byte) error {
	src, sel, err := OpenRecording(data)
	if err != nil {
		return err
	}
	v.mu.Lock()
	old := v.src
	v.src, v.selected, v.follow, v.camReady, v.graphs, v.pending = src, sel, false, false, nil, v.pending[:0]
	v.mu.Unlock()
	// Outside the lock: closing a connection waits for the browser's close event,
	// which in the page comes only once the viewer's frame (which takes the lock)
	// has returned to the event loop.
	_ = old.Close()
	return nil
}

// OpenRecording returns a source showing the recording in data, and the entity to
// select (the first of its first violation's, or 0).
func OpenRecording(data []byte) (Source, uint64, error) {
	rec, err := recording.Decode(data)
	if err != nil {
		return nil, 0, err
	}
	if len(rec.Entries) == 0 {
		return nil, 0, errors.New("scene: the recording has no frame")
	}
	st := RecordingStatus{Kind: rec.Header.Kind.String(), Origin: rec.Header.Origin,
		First: rec.Entries[0].Frame, Last: rec.Entries[len(rec.Entries)-1].Frame, Violations: len(rec.Violations), Marked: []uint64{}}
	start := st.First
	if v, ok := rec.FirstViolation(); ok {
		st.Violation = &ViolationSummary{Frame: v.Frame, Check: v.Check, Invariant: v.Invariant, What: v.What, Entities: v.Entities}
		st.Marked = append(st.Marked, v.Entities...)
		start = v.Frame
	}
	var sel uint64
	if len(st.Marked) > 0 {
		sel = st.Marked[0]
	}
	switch rec.Header.Kind {
	case recording.Server:
		s, err := newServerFile(rec, data, st)
		if err != nil {
			return nil, 0, err
		}
		if err := s.show(rec.Find(start)); err != nil {
			return nil, 0, err
		}
		s.showRegionOf(sel)
		return s, sel, nil
	default:
		s, err := newClientFile(rec, data, st)
		if err != nil {
			return nil, 0, err
		}
		if err := s.rec.seek(start, &s.log); err != nil {
			return nil, 0, err
		}
		return s, sel, nil
	}
}

// filePlayer plays a recording's entries at 20 Hz while resumed.
type filePlayer struct {
	playing   bool
	base      time.Duration // clock time at which baseEntry was shown
	baseEntry int
	now       time.Duration
}

// due returns the entry to show at now while playing (at most last).
func (p *filePlayer) due(now time.Duration, last int) int {
	p.now = now
	return min(p.baseEntry+int(max(now-p.base, 0)/frameDuration), last)
}

func (p *filePlayer) resume(entry int) { p.playing, p.base, p.baseEntry = true, p.now, entry }

// serverFile is a server recording as a source: the sandbox's drawing, inspector
// and picking over the games restored from the file at the frame shown.
type serverFile struct {
	*local
	rec    *recording.Recording
	data   []byte
	st     RecordingStatus
	entry  int // the entry shown
	player filePlayer
	flog   eventLog
}

func newServerFile(rec *recording.Recording, data []byte, st RecordingStatus) (*serverFile, error) {
	w, err := rec.Header.World()
	if err != nil {
		return nil, fmt.Errorf("scene: the recording's world: %w", err)
	}
	l, err := newLocal(LocalOptions{World: w, Seed: rec.Header.Seed, NoAvatar: true, NoPopulation: true})
	if err != nil {
		return nil, err
	}
	s := &serverFile{local: l, rec: rec, data: data, st: st}
	s.flog.add(st.First, fmt.Sprintf("recording of %s: frames %d–%d, %d violations", originOr(st.Origin), st.First, st.Last, st.Violations))
	for _, v := range rec.Violations {
		s.flog.add(v.Frame, fmt.Sprintf("violation: %s %s: %s (entities %v)", v.Check, v.Invariant, v.What, v.Entities))
	}
	return s, nil
}

func originOr(s string) string {
	if s == "" {
		return "an unnamed run"
	}
	return s
}

// show restores every region's game at entry i; the region shown stays the same.
func (s *serverFile) show(i int) error {
	f, err := s.rec.Frame(i)
	if err != nil {
		return err
	}
	shown := s.g.Home().ID()
	games := make([]*sim.Game, 0, len(f.Regions))
	for _, rs := range f.Regions {
		if regionIndex(s.w, rs.Region) < 0 {
			return fmt.Errorf("scene: frame %d has region %d, which the recording's world lacks", f.Frame, rs.Region)
		}
		g, err := sim.Restore(s.w, rs.Snapshot, regionOptions(s.simOpt, rs.Region))
		if err != nil {
			return fmt.Errorf("scene: frame %d region %d: %w", f.Frame, rs.Region, err)
		}
		games = append(games, g)
	}
	if len(games) == 0 {
		return fmt.Errorf("scene: frame %d has no region", f.Frame)
	}
	s.games, s.g, s.entry = games, games[0], i
	for _, g := range games {
		if g.Home().ID() == shown {
			s.g = g
		}
	}
	s.gd.flashes = s.gd.flashes[:0]
	return nil
}

func regionIndex(w *world.World, id int32) int {
	for i, r := range w.Regions {
		if r.ID == id {
			return i
		}
	}
	return -1
}

// showRegionOf shows the region whose game holds entity id, if one does.
func (s *serverFile) showRegionOf(id uint64) bool {
	if id == 0 || s.g.Entity(sim.EntityID(id)) != nil {
		return false
	}
	for _, g := range s.games {
		if g.Entity(sim.EntityID(id)) != nil {
			s.g = g
			return true
		}
	}
	return false
}

func (s *serverFile) saveRecording() ([]byte, error) { return bytes.Clone(s.data), nil }

// Update plays the recording while resumed.
func (s *serverFile) Update(now time.Duration) error {
	if !s.player.playing {
		s.player.now = now
		return nil
	}
	last := len(s.rec.Entries) - 1
	if i := s.player.due(now, last); i != s.entry {
		if err := s.show(i); err != nil {
			s.player.playing = false
			s.lastErr = err.Error()
			return err
		}
	}
	if s.entry == last {
		s.player.playing = false
	}
	return nil
}

// Status describes the frame shown.
func (s *serverFile) Status() Status {
	st := Status{
		Mode: "recording", Frame: s.g.Frame(), ServerFrame: s.g.Frame(), Entities: len(s.g.Entities()),
		Paused: !s.player.playing, Replaying: true, Recorded: s.st.Last, RecordedFrom: s.st.First,
		Region: s.g.Home().Name(), RegionID: s.g.Home().ID(), Error: s.lastErr, Recording: &s.st,
	}
	return st
}

// Draw draws the region shown, with the marked entities ringed.
func (s *serverFile) Draw(d debugdraw.Drawer, ov Overlay, selected uint64) {
	s.local.Draw(d, ov, selected)
	for _, id := range s.st.Marked {
		if e := s.g.Entity(sim.EntityID(id)); e != nil {
			d.Circle(e.Pos(), e.Radius()+0.6, markColor, false)
		}
	}
}

// markColor rings the entities of the violation the recording opened at.
var markColor = debugdraw.Color{R: 255, G: 50, B: 230, A: 255}

// Inspect inspects the entity in the region shown; an entity of another region
// makes that region the one shown (selecting shows where the entity is).
func (s *serverFile) Inspect(id uint64) []Field {
	s.showRegionOf(id)
	return s.local.Inspect(id)
}

// Do pauses, resumes, steps and seeks the recording.
func (s *serverFile) Do(c Command) error {
	var err error
	switch c.Kind {
	case Pause:
		s.player.playing = false
	case Resume:
		s.player.resume(s.entry)
	case Step:
		s.player.playing = false
		if s.entry+1 < len(s.rec.Entries) {
			err = s.show(s.entry + 1)
		}
	case cmdSeek:
		s.player.playing = false
		err = s.show(s.rec.Find(c.Frame))
	default:
		err = errReadOnly
	}
	if err != nil {
		s.flog.add(s.g.Frame(), err.Error())
	}
	return err
}

func (s *serverFile) Log() []LogEntry   { return s.flog.entries }
func (s *serverFile) Graphs() []*Series { return nil }

// saveRecording encodes the networked session's recording as a client recording.
func (n *network) saveRecording() ([]byte, error) {
	n.rec.mu.Lock()
	packets := append([]recPacket(nil), n.rec.rec.packets...)
	n.rec.mu.Unlock()
	if len(packets) == 0 {
		return nil, errNothingRecorded
	}
	return encodeClient(packets, "viewer "+n.conn.url)
}

// encodeClient writes packets as a client recording.
func encodeClient(packets []recPacket, origin string) ([]byte, error) {
	var buf bytes.Buffer
	w, err := recording.NewWriter(&buf, recording.Header{Kind: recording.Client, Origin: origin})
	if err != nil {
		return nil, err
	}
	var f recording.Frame
	for _, p := range packets {
		f.Frame, f.Messages = p.frame, f.Messages[:0]
		for _, m := range p.msgs {
			id, b, err := protocol.Marshal(m)
			if err != nil {
				return nil, err
			}
			f.Messages = append(f.Messages, recording.Message{ID: uint32(id), Payload: b})
		}
		if err := w.WriteFrame(&f); err != nil {
			return nil, err
		}
	}
	if err := w.Close(nil); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

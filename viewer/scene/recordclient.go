package scene

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/replication"
)

// clientFile is a client recording as a source: the networked mode's replay (a
// fresh replica fed the recorded messages up to the frame shown), without a server.
type clientFile struct {
	rec     recorder
	data    []byte
	st      RecordingStatus
	drawing netDrawing
	log     eventLog
	player  filePlayer // its entries are server frames
}

func newClientFile(rec *recording.Recording, data []byte, st RecordingStatus) (*clientFile, error) {
	c := &clientFile{data: data, st: st, drawing: netDrawing{aoi: replication.DefaultAOI}}
	for i := range rec.Entries {
		f, err := rec.Frame(i)
		if err != nil {
			return nil, err
		}
		p := recPacket{frame: f.Frame}
		for _, m := range f.Messages {
			msg, err := protocol.Unmarshal(protocol.ID(m.ID), m.Payload)
			if err != nil {
				return nil, fmt.Errorf("scene: recording frame %d: %w", f.Frame, err)
			}
			p.msgs = append(p.msgs, msg)
		}
		c.rec.rec.packets = append(c.rec.rec.packets, p)
		c.rec.rec.msgs += len(p.msgs)
	}
	c.st.First, c.st.Last = c.rec.rec.span()
	if c.st.First == 0 {
		return nil, errNothingRecorded
	}
	c.log.add(c.st.First, fmt.Sprintf("recording of %s: frames %d–%d", originOr(st.Origin), c.st.First, c.st.Last))
	return c, nil
}

func (c *clientFile) saveRecording() ([]byte, error) { return bytes.Clone(c.data), nil }

// Update plays the recording while resumed.
func (c *clientFile) Update(now time.Duration) error {
	if !c.player.playing {
		c.player.now = now
		return nil
	}
	f := uint64(c.player.due(now, int(c.st.Last)))
	if f != c.rec.replay.frame {
		if err := c.rec.seek(f, &c.log); err != nil {
			c.player.playing = false
			return err
		}
	}
	if c.rec.replay.frame >= c.st.Last {
		c.player.playing = false
	}
	return nil
}

func (c *clientFile) Status() Status {
	st := c.rec.status(Status{Mode: "recording", Recorded: c.st.Last, RecordedFrom: c.st.First, Recording: &c.st})
	st.ServerFrame, st.Paused = st.Frame, !c.player.playing
	if r := c.rec.replay.rep; r != nil {
		st.RegionID = r.RegionID()
	}
	return st
}

// Bounds returns the bounds of the replayed region.
func (c *clientFile) Bounds() (min, max mgl32.Vec2) {
	if r := c.rec.replay.rep; r.World() != nil {
		for _, reg := range r.World().Regions {
			if reg.ID == r.RegionID() {
				return reg.Min, reg.Max
			}
		}
	}
	return mgl32.Vec2{}, mgl32.Vec2{192, 192}
}

// Draw draws the replayed frame as the networked replay does.
func (c *clientFile) Draw(d debugdraw.Drawer, ov Overlay, selected uint64) {
	p := c.rec.replay
	c.drawing.setWorld(p.rep.World())
	if !c.drawing.ready() {
		return
	}
	c.drawing.drawGame(d, p.rep, ov, selected)
	if ov.Has(ovSweeps) && p.draw != nil {
		protocol.ReplayDraw(d, p.draw)
	}
	c.drawing.drawViews(d, p.views, ov, selected)
}

// Do pauses, resumes, steps and seeks the recording.
func (c *clientFile) Do(cmd Command) error {
	var err error
	switch cmd.Kind {
	case Pause:
		c.player.playing = false
	case Resume:
		c.player.resume(int(c.rec.replay.frame))
	case Step:
		c.player.playing = false
		err = c.rec.step(&c.log)
	case cmdSeek:
		c.player.playing = false
		err = c.rec.seek(cmd.Frame, &c.log)
	default:
		err = errReadOnly
	}
	if err != nil {
		c.log.add(c.rec.replay.frame, err.Error())
	}
	return err
}

// Pick returns the recorded entity nearest p within its radius plus half a metre.
func (c *clientFile) Pick(p mgl32.Vec2) uint64 {
	var best uint64
	bestD := float32(math.Inf(1))
	for _, v := range c.rec.replay.views {
		if d := v.Pos.Sub(p).Len(); d <= c.drawing.radius(v.Prototype)+0.5 && d < bestD {
			best, bestD = v.ID, d
		}
	}
	return best
}

// Inspect returns what the recording holds of an entity at the frame shown.
func (c *clientFile) Inspect(id uint64) []Field {
	for _, v := range c.rec.replay.views {
		if v.ID == id {
			s := v.Server
			return []Field{
				{"id", strconv.FormatUint(v.ID, 10)},
				{"prototype", strconv.Itoa(int(v.Prototype))},
				{"owner", strconv.Itoa(int(v.Owner))},
				{"server frame", strconv.FormatUint(s.Frame, 10)},
				{"server pos", fmt.Sprintf("(%s, %s)", ftoa(s.Position[0]), ftoa(s.Position[1]))},
				{"server yaw", ftoa(s.Yaw)},
				{"moving", strconv.FormatBool(v.Moving)},
			}
		}
	}
	return nil
}

func (c *clientFile) Log() []LogEntry   { return c.log.entries }
func (c *clientFile) Graphs() []*Series { return nil }
func (c *clientFile) Close() error      { return nil }

var (
	_ Source = (*clientFile)(nil)
	_ Source = (*serverFile)(nil)
)

package headless

import (
	"bufio"
	"fmt"
	"hash"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// -record FILE writes the whole run as a server recording (docs/RECORDING.md):
// every region's simulation state after every frame the server steps, from the
// first, taken in the OnFrame hook, and in the index every violation with the
// entities it names, so that the viewer opens a failed run at its first violation.

// maxRecordedViolations caps the violations the recording's index lists; a run
// that breaks a check every frame would otherwise grow it without bound.
const maxRecordedViolations = 10_000

// frameRecorder is the OnFrame hook of -record.
type frameRecorder struct {
	mu         sync.Mutex
	f          *os.File
	bw         *bufio.Writer
	w          *recording.Writer
	regions    []int32 // the world's region ids, in the games' order
	frame      recording.Frame
	packers    []*archive.Archive // each region's state, packed (reused)
	hash       hash.Hash64
	err        error // the first write error; recording stops there
	spent      time.Duration
	closed     bool
	violations []recording.Violation
}

// newFrameRecorder creates path and writes the header of a recording of w.
func newFrameRecorder(path, origin string, seed uint64, w *world.World) (*frameRecorder, error) {
	h, err := recording.HeaderFor(recording.Server, origin, world.DefaultFiles(), w)
	if err != nil {
		return nil, err
	}
	h.Seed = seed
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	r := &frameRecorder{f: f, bw: bufio.NewWriterSize(f, 1<<20), hash: fnv.New64a()}
	if r.w, err = recording.NewWriter(r.bw, h); err != nil {
		f.Close()
		return nil, err
	}
	for _, reg := range w.Regions {
		r.regions = append(r.regions, reg.ID)
	}
	return r, nil
}

// onFrame records the frame's states (on the frame loop).
func (r *frameRecorder) onFrame(v gameserver.FrameView) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	start := time.Now()
	defer func() { r.spent += time.Since(start) }()
	if len(v.Games) != len(r.regions) {
		r.err = fmt.Errorf("record: frame %d has %d regions' games, the world %d", v.Frame, len(v.Games), len(r.regions))
		return
	}
	r.frame.Frame = v.Frame
	r.frame.Regions = r.frame.Regions[:0]
	for i, g := range v.Games {
		snap, hash, err := r.state(i, g)
		if err != nil {
			r.err = fmt.Errorf("record: frame %d: %w", v.Frame, err)
			return
		}
		r.frame.Regions = append(r.frame.Regions, recording.RegionState{Region: r.regions[i], Hash: hash, Snapshot: snap})
	}
	r.err = r.w.WriteFrame(&r.frame)
}

// state serializes region i's game once, as sim.Game.Snapshot does, into the
// region's packer (reused from frame to frame: WriteFrame copies what it keeps),
// and hashes those bytes as sim.Game.StateHash does: serializing is most of what
// either costs.
func (r *frameRecorder) state(i int, g *sim.Game) ([]byte, uint64, error) {
	for len(r.packers) <= i {
		r.packers = append(r.packers, archive.NewPacker(archive.Disk, archive.AllChannels))
	}
	p := r.packers[i]
	p.Reset(archive.Disk, archive.AllChannels)
	p.TransferObject(g)
	if err := p.Err(); err != nil {
		return nil, 0, err
	}
	snap := p.Bytes()
	r.hash.Reset()
	r.hash.Write(snap)
	return snap, r.hash.Sum64(), nil
}

// hookTime returns the wall time spent recording since the last call (taken out of
// the server's frame time, like the invariants' hook).
func (r *frameRecorder) hookTime() time.Duration {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.spent
	r.spent = 0
	return d
}

// violate lists a violation in the recording's index, with the entities it names
// and extra (e.g. the avatar of the bot that saw it).
func (r *frameRecorder) violate(v headlessViolation, extra ...uint64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.violations) >= maxRecordedViolations {
		return
	}
	r.violations = append(r.violations, recording.Violation{Frame: v.Frame, Check: v.Check, Invariant: v.Invariant,
		What: v.What, Entities: violationEntities(v, extra)})
}

// entityPairPattern finds the entities an invariant's message names as a pair
// ("blocking entities 3 and 9 overlap by ...").
var entityPairPattern = regexp.MustCompile(`entities (\d+) and (\d+)`)

// violationEntities returns the entities v names, most relevant first, once each.
func violationEntities(v headlessViolation, extra []uint64) []uint64 {
	var ids []uint64
	add := func(id uint64) {
		for _, have := range ids {
			if have == id {
				return
			}
		}
		if id != 0 {
			ids = append(ids, id)
		}
	}
	if m := entityPairPattern.FindStringSubmatch(v.What); m != nil {
		for _, s := range m[1:] {
			id, _ := strconv.ParseUint(s, 10, 64)
			add(id)
		}
	}
	add(v.Entity)
	for _, id := range extra {
		add(id)
	}
	return ids
}

// close writes the index (with failure, when the run failed, as a violation at
// frame last) and closes the file; it returns the first error of the recording.
func (r *frameRecorder) close(last uint64, failure string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	r.closed = true
	if failure != "" {
		r.violations = append(r.violations, recording.Violation{Frame: last, Check: "run", What: failure})
	}
	err := r.err
	if err == nil {
		err = r.w.Close(r.violations)
	}
	if err == nil {
		err = r.bw.Flush()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.err = err
	return err
}

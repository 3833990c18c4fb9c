package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim/schedule"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Serialize packs or unpacks the whole simulation state of the game: frame, next id,
// the PRNG, blackout-zone switches, hotspot occupancy, rules, entities, overlapping
// pairs, queued inputs, and the avatars inside each portal. The world (configuration, meshes) is not included: unpack
// into a game built by New from the same world. Use it in Disk mode (Snapshot, Restore)
// or Migration mode (handoff); Replication has no game-level archive.
func (g *Game) Serialize(a *archive.Archive) error {
	if a.IsReplication() {
		return fmt.Errorf("%w: a game has no replication archive", archive.ErrMisuse)
	}
	a.TransferUint64(&g.frame)
	transferID(a, &g.nextID)
	var hi, lo uint64
	if a.IsPacking() {
		b, _ := g.pcg.MarshalBinary() // "pcg:" + hi + lo, big-endian
		hi, lo = binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])
	}
	a.TransferUint64(&hi)
	a.TransferUint64(&lo)
	if !a.IsPacking() && a.Err() == nil {
		b := make([]byte, 20)
		copy(b, "pcg:")
		binary.BigEndian.PutUint64(b[4:], hi)
		binary.BigEndian.PutUint64(b[12:], lo)
		if err := g.pcg.UnmarshalBinary(b); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	for _, r := range g.regions {
		n := len(r.zones)
		a.TransferCount(&n)
		if a.Err() == nil && n != len(r.zones) {
			return fmt.Errorf("%w: region %q has %d blackout zones, snapshot %d", ErrWorld, r.name, len(r.zones), n)
		}
		for i := range r.zones {
			on := r.zones[i].on
			a.TransferBool(&on)
			if !a.IsPacking() && a.Err() == nil {
				r.setZone(r.zones[i].marker, on)
			}
		}
		for ai := range r.areas {
			for hi := range r.areas[ai].hotspots {
				h := &r.areas[ai].hotspots[hi]
				archive.TransferSlice(a, &h.inside, transferID)
			}
		}
		for pi := range r.portals {
			archive.TransferSlice(a, &r.portals[pi].inside, transferID)
		}
	}
	archive.TransferSlice(a, &g.rules, func(a *archive.Archive, r *Rule) { a.TransferObject(r) })
	n := len(g.ents)
	a.TransferCount(&n)
	if !a.IsPacking() && a.Err() == nil {
		g.ents = g.ents[:0]
		g.destroys = 0
	}
	for i := 0; i < n && a.Err() == nil; i++ {
		if a.IsPacking() {
			a.TransferObject(g.ents[i])
			continue
		}
		e := &Entity{}
		a.TransferObject(e)
		g.ents = append(g.ents, e)
	}
	archive.TransferSlice(a, &g.pairs, func(a *archive.Archive, p *pair) {
		transferID(a, &p.a)
		transferID(a, &p.b)
	})
	archive.TransferSlice(a, &g.inputs, func(a *archive.Archive, in *Input) { a.TransferObject(in) })
	if err := a.Err(); err != nil || a.IsPacking() {
		return err
	}
	return g.checkUnpacked()
}

func (g *Game) checkUnpacked() error {
	if g.nextID < g.firstID || g.nextID > g.lastID {
		return fmt.Errorf("%w: next id %d outside the region's ids %d..%d", ErrCorrupt, g.nextID, g.firstID, g.lastID)
	}
	for i, e := range g.ents {
		if !g.validID(e.id) || (i > 0 && g.ents[i-1].id >= e.id) {
			return fmt.Errorf("%w: entity id %d out of order", ErrCorrupt, e.id)
		}
		if g.Region(e.region) == nil {
			return fmt.Errorf("%w: entity %d in region %d", ErrWorld, e.id, e.region)
		}
		if !geom.Finite2(e.pos) || !geom.Finite(e.yaw) || !(e.radius >= 0) || !(e.speed >= 0) {
			return fmt.Errorf("%w: entity %d has non-finite fields", ErrCorrupt, e.id)
		}
	}
	if !slices.IsSortedFunc(g.pairs, cmpPair) {
		return fmt.Errorf("%w: overlap pairs out of order", ErrCorrupt)
	}
	g.sched = schedule.New(g.frame+1, g.opt.MaxEventsPerFrame)
	g.rebuildWakes()
	return nil
}

// validID reports whether id may name an entity of the game: one it handed out
// (below nextID in its block), or an immigrant's from another region's block.
func (g *Game) validID(id EntityID) bool {
	if id >= g.firstID && id <= g.lastID {
		return id < g.nextID
	}
	return id != 0
}

// Snapshot packs the game's state into a Disk archive.
func (g *Game) Snapshot() ([]byte, error) {
	p := archive.NewPacker(archive.Disk, archive.AllChannels)
	p.TransferObject(g)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return p.Bytes(), nil
}

// Restore builds a game of w (New with opt) and replaces its state with a snapshot made
// by Snapshot. Events scheduled with Schedule are not restored.
func Restore(w *world.World, data []byte, opt *Options) (*Game, error) {
	g, err := New(w, opt)
	if err != nil {
		return nil, err
	}
	u, err := archive.NewUnpacker(archive.Disk, data)
	if err != nil {
		return nil, err
	}
	u.SetLimits(archive.Limits{MaxCount: 1 << 20})
	u.TransferObject(g)
	if err := u.Done(); err != nil {
		return nil, err
	}
	return g, nil
}

// StateHash returns a 64-bit FNV-1a hash of the game's whole simulation state (the
// bytes of its Snapshot). Two games with equal hashes are, for the simulation, the same.
func (g *Game) StateHash() uint64 {
	if g.hashBuf == nil {
		g.hashBuf = archive.NewPacker(archive.Disk, archive.AllChannels)
	} else {
		g.hashBuf.Reset(archive.Disk, archive.AllChannels)
	}
	g.hashBuf.TransferObject(g)
	h := fnv.New64a()
	h.Write(g.hashBuf.Bytes())
	return h.Sum64()
}

package headless

import (
	"bytes"
	"fmt"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim"
)

// savedAvatar is an entity's Database archive (what the server saves of an
// avatar, sim (*Entity).Serialize) read field by field, so that the travel check
// can leave out the fields a handoff changes and compare the others bit for bit.
// It reads and writes the fields in the order sim writes them; a save that does
// not read back whole (sim added or moved a field) is an error, which the check
// reports, so the two cannot drift apart silently.
type savedAvatar struct {
	ID                        uint64
	Proto, Region, Owner      int32
	Pos                       [2]float32
	Yaw, Radius, Speed        float32
	Collision, Flags          uint32
	Footprint                 bool
	Seed                      uint32
	Population                int32
	Created, Changed, Command uint64
	Wake                      uint64
	Stuck                     uint16
	Mode                      uint32
	Path                      [][2]float32
	Arcs                      []savedArc
	Next                      int32
	FollowTarget              uint64
	FollowRange               float32
	FollowRepath              uint64
	Power                     int32
	PowerSource               uint64
	PowerDir                  [2]float32
	PowerEnd                  uint64
}

type savedArc struct {
	Side int32
	R    float32
}

func transferPair(a *archive.Archive, v *[2]float32) {
	a.TransferFloat32(&v[0])
	a.TransferFloat32(&v[1])
}

// Serialize mirrors sim (*Entity).Serialize in Database mode.
func (s *savedAvatar) Serialize(a *archive.Archive) error {
	a.TransferUint64(&s.ID)
	a.TransferInt32(&s.Proto)
	a.TransferInt32(&s.Region)
	a.TransferInt32(&s.Owner)
	transferPair(a, &s.Pos)
	a.TransferFloat32(&s.Yaw)
	a.TransferFloat32(&s.Radius)
	a.TransferFloat32(&s.Speed)
	a.TransferUint32(&s.Collision)
	a.TransferUint32(&s.Flags)
	a.TransferBool(&s.Footprint)
	a.TransferUint32(&s.Seed)
	a.TransferInt32(&s.Population)
	a.TransferUint64(&s.Created)
	a.TransferUint64(&s.Changed)
	a.TransferUint64(&s.Command)
	a.TransferUint64(&s.Wake)
	a.TransferUint16(&s.Stuck)
	a.TransferUint32(&s.Mode)
	archive.TransferSlice(a, &s.Path, transferPair)
	archive.TransferSlice(a, &s.Arcs, func(a *archive.Archive, v *savedArc) {
		a.TransferInt32(&v.Side)
		a.TransferFloat32(&v.R)
	})
	a.TransferInt32(&s.Next)
	a.TransferUint64(&s.FollowTarget)
	a.TransferFloat32(&s.FollowRange)
	a.TransferUint64(&s.FollowRepath)
	a.TransferInt32(&s.Power)
	a.TransferUint64(&s.PowerSource)
	transferPair(a, &s.PowerDir)
	a.TransferUint64(&s.PowerEnd)
	return a.Err()
}

// readSaved packs e as the server saves it and reads the save back field by field.
func readSaved(e *sim.Entity) (savedAvatar, error) {
	p := archive.NewPacker(archive.Database, 0)
	p.TransferObject(e)
	if err := p.Err(); err != nil {
		return savedAvatar{}, err
	}
	u, err := archive.NewUnpacker(archive.Database, p.Bytes())
	if err != nil {
		return savedAvatar{}, err
	}
	var s savedAvatar
	u.TransferObject(&s)
	if err := u.Done(); err != nil {
		return savedAvatar{}, fmt.Errorf("entity %d's save does not read back: %w", e.ID(), err)
	}
	return s, nil
}

// readEmigrated reads what a source game packed of a traveller (sim Emigrate,
// Migration mode) as the server would save it.
func readEmigrated(b []byte) (savedAvatar, error) {
	u, err := archive.NewUnpacker(archive.Migration, b)
	if err != nil {
		return savedAvatar{}, err
	}
	var e sim.Entity
	u.TransferObject(&e)
	if err := u.Done(); err != nil {
		return savedAvatar{}, fmt.Errorf("the emigrated avatar does not read back: %w", err)
	}
	return readSaved(&e)
}

// kept is s without what a handoff changes: sim Immigrate documents that the
// region, the position, the move (mode, path, arcs, the follow target) and the
// changed and command frames become the target's, and the wake is reset.
// Everything else, the yaw and the stuck counter included, must survive bit for
// bit.
func (s savedAvatar) kept() savedAvatar {
	s.Region, s.Pos = 0, [2]float32{}
	s.Changed, s.Command, s.Wake = 0, 0, 0
	s.Mode, s.Path, s.Arcs, s.Next = 0, nil, nil, 0
	s.FollowTarget, s.FollowRange, s.FollowRepath = 0, 0, 0
	return s
}

// bytes packs s, the bit-exact form two saves are compared in (float fields
// compare by their bits, not by ==).
func (s savedAvatar) bytes() []byte {
	p := archive.NewPacker(archive.Database, 0)
	p.TransferObject(&s)
	return p.Bytes()
}

// sameKept reports whether the handoff kept every field it must keep of before.
func sameKept(before, after savedAvatar) bool {
	return bytes.Equal(before.kept().bytes(), after.kept().bytes())
}

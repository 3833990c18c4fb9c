package sim

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/archive/archivetest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

func sampleEntity() *Entity {
	return &Entity{
		id: 42, proto: 1, region: 0, pos: mgl32.Vec2{12.3456, -7.0001}, yaw: 1.2345678,
		radius: 0.4, speed: 2.5, collision: Blocking, flags: 3, owner: -1, seed: 99,
		population: 2, created: 5, changed: 17, locoFrame: 11, wake: 0, stuck: 3,
		loco: locomotor{mode: PathMove, path: []mgl32.Vec2{{12, -7}, {20.1, -3.3}, {25, 1}}, next: 1},
	}
}

type namedEntity struct {
	name string
	in   *Entity
}

// sampleEntities covers the kinds of locomotion and the projectile.
func sampleEntities() []namedEntity {
	return []namedEntity{
		{"walking", sampleEntity()},
		{"cooling down", func() *Entity { e := sampleEntity(); e.nextFire = 12; return e }()},
		{"idle", &Entity{id: 1, proto: 4, pos: mgl32.Vec2{8, 55}, radius: 2.4, collision: Blocking, footprint: true, owner: -1, population: -1}},
		{"turning", func() *Entity {
			e := sampleEntity()
			e.loco.path = []mgl32.Vec2{{12, -7}, {20.1, -3.3}, {25.5, 1}, {30, 1}}
			e.loco.arcs = []arc{{}, {side: locomotion.Left, r: 0.41}, {side: locomotion.Right, r: 0.41}, {}}
			e.loco.next = 2
			return e
		}()},
		{"following", func() *Entity {
			e := sampleEntity()
			e.loco = locomotor{mode: Following, path: []mgl32.Vec2{{1, 2}}, next: 1}
			e.follow = follow{target: 7, rng: 2, repath: 30}
			return e
		}()},
		{"projectile", &Entity{
			id: 9, proto: ProtoProjectile, pos: mgl32.Vec2{3, 4}, radius: BoltRadius, speed: BoltSpeed, owner: 2, population: -1,
			loco:  locomotor{mode: Direct, path: []mgl32.Vec2{{3, 4}, {33, 4}}, next: 1},
			power: projectile{power: PowerBolt, source: 3, dir: mgl32.Vec2{1, 0}, end: 21},
		}},
	}
}

func TestEntityRoundTrip(t *testing.T) {
	for _, tc := range sampleEntities() {
		t.Run(tc.name, func(t *testing.T) {
			archivetest.RoundTrip(t, tc.in.Policy(), tc.in, func() *Entity { return &Entity{} }, func(m archive.Mode) *Entity {
				if m == archive.Database {
					// A save leaves the fire cooldown out: it counts another game's frames.
					want := *tc.in
					want.nextFire = 0
					return &want
				}
				if m != archive.Replication {
					return tc.in
				}
				// A client gets the quantized locomotion state and the power data.
				want := &Entity{id: tc.in.id, proto: tc.in.proto, region: tc.in.region, owner: tc.in.owner,
					changed: tc.in.changed, power: tc.in.power}
				want.pos = mgl32.Vec2{archive.Quantize(tc.in.pos[0], 3), archive.Quantize(tc.in.pos[1], 3)}
				want.yaw = archive.Quantize(tc.in.yaw, 6)
				want.speed = archive.Quantize(tc.in.speed, 3)
				if tc.in.loco.mode != Idle {
					want.loco.mode = PathMove
					want.loco.next = tc.in.loco.next
					want.loco.path = []mgl32.Vec2{}
					for _, p := range tc.in.loco.path {
						want.loco.path = append(want.loco.path, mgl32.Vec2{archive.Quantize(p[0], 3), archive.Quantize(p[1], 3)})
					}
					for _, a := range tc.in.loco.arcs {
						want.loco.arcs = append(want.loco.arcs, arc{side: a.side, r: archive.Quantize(a.r, locomotion.RadiusPrecision)})
					}
				}
				return want
			})
		})
	}
}

func TestLocomotionState(t *testing.T) {
	e := sampleEntity()
	var st locomotion.State
	e.LocomotionState(&st, 17)
	if st.Entity != 42 || st.Frame != 17 || st.Goal != 1 || len(st.Path) != 3 || st.Fields&locomotion.Moving == 0 {
		t.Fatalf("state %+v", st)
	}
	prev := st
	prev.Path = append([]locomotion.PathNode(nil), st.Path...)
	e.pos[0] += 0.125 // one frame later, only the position changed
	e.LocomotionState(&st, 18)
	d := locomotion.Diff(&prev, &st)
	if d.Fields&locomotion.Relative == 0 || d.Fields&locomotion.HasPosition == 0 || d.Fields&(locomotion.HasPath|locomotion.HasYaw) != 0 {
		t.Errorf("diff fields %b", d.Fields)
	}
	got, err := prev.Apply(&d)
	if err != nil || got.Position != st.Position || got.Goal != 1 {
		t.Errorf("apply: %v %v", got.Position, err)
	}
}

func TestSmallRoundTrips(t *testing.T) {
	archivetest.RoundTrip(t, archive.ClientIndependent, &PowerResult{Power: 1, Frame: 9, Source: 2, Projectile: 3, Target: 4,
		Point: mgl32.Vec2{1.5, 2.25}, Normal: mgl32.Vec2{0, 1}, Damage: 10}, func() *PowerResult { return &PowerResult{} }, nil)
	archivetest.RoundTrip(t, archive.AllChannels, &Input{Entity: 3, Command: CmdFollow, Point: mgl32.Vec2{1, 2}, Target: 4, Range: 2, ClientFrame: 77},
		func() *Input { return &Input{} }, nil)
	archivetest.RoundTrip(t, archive.AllChannels, &Rule{Hotspot: 8, Prototype: -1, On: Leave, Action: ActionSpawn, Arg: 3},
		func() *Rule { return &Rule{} }, nil)
}

// referenceReplication packs e's replication archive the plain way: its
// LocomotionState as a nested object, then the projectile.
func referenceReplication(e *Entity) []byte {
	a := archive.NewPacker(archive.Replication, e.Policy())
	id, owner := uint64(e.id), e.owner
	a.TransferUint64(&id)
	a.TransferInt32(&e.proto)
	a.TransferInt32(&e.region)
	a.TransferInt32(&owner)
	var st locomotion.State
	e.LocomotionState(&st, e.changed)
	a.TransferObject(&st)
	isProj := e.power.power != 0
	a.TransferBool(&isProj)
	if isProj {
		e.power.serialize(a)
	}
	return a.Bytes()
}

// TestReplicationPacksWithoutCopies: packing straight from the locomotor gives
// the bytes of the State-based form, allocates nothing, and unpacking into an
// entity that has path storage allocates nothing either and leaves nothing of
// the entity's previous path behind.
func TestReplicationPacksWithoutCopies(t *testing.T) {
	var reuse Entity
	for _, tc := range sampleEntities() {
		p := archive.NewPacker(archive.Replication, tc.in.Policy())
		p.TransferObject(tc.in)
		if err := p.Err(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := referenceReplication(tc.in)
		if !bytes.Equal(p.Bytes(), want) {
			t.Errorf("%s: packed % x\nwant   % x", tc.name, p.Bytes(), want)
		}
		data := append([]byte(nil), p.Bytes()...)
		if n := testing.AllocsPerRun(20, func() {
			p.Reset(archive.Replication, tc.in.Policy())
			p.TransferObject(tc.in)
		}); n != 0 {
			t.Errorf("%s: pack allocates %v times", tc.name, n)
		}
		u, err := archive.NewUnpacker(archive.Replication, data)
		if err != nil {
			t.Fatal(err)
		}
		unpack := func() {
			if err := u.ResetUnpacker(archive.Replication, data); err != nil {
				t.Fatal(err)
			}
			u.TransferObject(&reuse)
		}
		unpack() // into the previous case's entity
		var fresh Entity
		u2, _ := archive.NewUnpacker(archive.Replication, data)
		u2.TransferObject(&fresh)
		if u.Done() != nil || u2.Done() != nil {
			t.Fatalf("%s: %v / %v", tc.name, u.Err(), u2.Err())
		}
		r, f := reuse.loco, fresh.loco
		if !slices.Equal(r.path, f.path) || !slices.Equal(r.arcs, f.arcs) {
			t.Errorf("%s: unpacked into a used entity: %+v; into a new one: %+v", tc.name, reuse.loco, fresh.loco)
		}
		r.path, r.arcs, f.path, f.arcs = nil, nil, nil, nil
		if !reflect.DeepEqual(r, f) || reuse.follow != fresh.follow {
			t.Errorf("%s: unpacked into a used entity: %+v %+v; into a new one: %+v %+v", tc.name, reuse.loco, reuse.follow, fresh.loco, fresh.follow)
		}
		if n := testing.AllocsPerRun(20, unpack); n != 0 {
			t.Errorf("%s: unpack into a used entity allocates %v times", tc.name, n)
		}
	}
}

// TestEntityRefusesABlockingProjectile: every projectile collides with nothing, which
// physics relies on (Entity.projectile); an archive that says otherwise is corrupt.
func TestEntityRefusesABlockingProjectile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		collision Collision
		want      error
	}{{CollideNone, nil}, {Blocking, ErrCorrupt}, {Overlapping, ErrCorrupt}} {
		in := &Entity{id: 5, proto: ProtoProjectile, collision: c.collision, radius: BoltRadius,
			power: projectile{power: PowerBolt, source: 1, end: 3}}
		p := archive.NewPacker(archive.Database, archive.AllChannels)
		if err := in.Serialize(p); err != nil {
			t.Fatal(err)
		}
		u, err := archive.NewUnpacker(archive.Database, p.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := (&Entity{}).Serialize(u); !errors.Is(err, c.want) {
			t.Errorf("projectile with collision %v: %v, want %v", c.collision, err, c.want)
		}
	}
}

// TestEntityLayout keeps the cache-line layout that a step relies on: what every pass
// reads in the first line, what else the walk and commitMove read and write (path and
// arcs, changed) in the second, and the sweep record, which physics writes for every
// mover, in a line of its own. Entity objects come from the allocator's 320-byte
// size class, whose objects start on 64-byte boundaries.
func TestEntityLayout(t *testing.T) {
	var e Entity
	if size := unsafe.Sizeof(e); size > 320 || size <= 288 {
		t.Errorf("Entity is %d bytes: the layout assumes the 320-byte size class", size)
	}
	if size := unsafe.Sizeof(Event{}); size > 48 {
		t.Errorf("Event is %d bytes, want at most 48", size)
	}
	for _, f := range []struct {
		name        string
		off, size   uintptr
		line, lines uintptr
	}{
		{"id..loco.next", 0, unsafe.Offsetof(e.loco) + unsafe.Offsetof(e.loco.next) + 4, 0, 1},
		{"owner", unsafe.Offsetof(e.owner), unsafe.Sizeof(e.owner), 0, 1},
		{"loco.path..locoFrame", unsafe.Offsetof(e.loco) + unsafe.Offsetof(e.loco.path), unsafe.Offsetof(e.locoFrame) + 8 - unsafe.Offsetof(e.loco) - unsafe.Offsetof(e.loco.path), 1, 1},
		{"sweep", unsafe.Offsetof(e.sweep), unsafe.Sizeof(e.sweep), 4, 1},
	} {
		if first, last := f.off/64, (f.off+f.size-1)/64; first != f.line || last-first+1 != f.lines {
			t.Errorf("%s at bytes %d..%d: lines %d..%d, want %d line(s) from %d", f.name, f.off, f.off+f.size, first, last, f.lines, f.line)
		}
	}
}

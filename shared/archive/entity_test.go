package archive_test

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// testEntity is a representative replicated entity: ids, a fixed-point position and
// orientation, several bools, a name, eight properties and a nested object. The
// tests, the fuzz targets and the benchmarks share it.
type testEntity struct {
	ID, Prototype     uint64
	Region            uint32
	Position          mgl32.Vec3
	Yaw, Pitch, Roll  float32
	Velocity          mgl32.Vec3
	Health            int32
	Level             uint16
	Team              byte
	Visible, Blocking bool
	Moving, Dead      bool
	Hostile, Flying   bool
	Name              string
	Properties        []property
	Timer             timer
	Spawned           int64
	Owner             uint64
	Scale             float32
	SaveOnly          uint32 // written only in persistent modes
}

type property struct {
	ID    uint32
	Value int32
}

type timer struct {
	Current, Total int32
	Start, End     int64
	Paused         bool
}

func (t *timer) Serialize(a *archive.Archive) error {
	a.TransferInt32(&t.Current)
	a.TransferInt32(&t.Total)
	a.TransferInt64(&t.Start)
	a.TransferInt64(&t.End)
	a.TransferBool(&t.Paused)
	return a.Err()
}

func transferProperty(a *archive.Archive, p *property) {
	a.TransferUint32(&p.ID)
	a.TransferInt32(&p.Value)
}

func (e *testEntity) Serialize(a *archive.Archive) error {
	a.TransferUint64(&e.ID)
	a.TransferUint64(&e.Prototype)
	a.TransferUint32(&e.Region)
	a.TransferVec3Fixed(&e.Position, 3)
	a.TransferOrientationFixed(&e.Yaw, &e.Pitch, &e.Roll, false, 6)
	a.TransferVec3(&e.Velocity)
	a.TransferInt32(&e.Health)
	a.TransferUint16(&e.Level)
	a.TransferByte(&e.Team)
	a.TransferBool(&e.Visible)
	a.TransferBool(&e.Blocking)
	a.TransferBool(&e.Moving)
	a.TransferBool(&e.Dead)
	a.TransferBool(&e.Hostile)
	a.TransferBool(&e.Flying)
	a.TransferString(&e.Name)
	archive.TransferSlice(a, &e.Properties, transferProperty)
	a.TransferObject(&e.Timer)
	a.TransferInt64(&e.Spawned)
	a.TransferUint64(&e.Owner)
	a.TransferFloat32(&e.Scale)
	if a.IsPersistent() {
		a.TransferUint32(&e.SaveOnly)
	}
	return a.Err()
}

func sampleEntity() *testEntity {
	e := &testEntity{
		ID: 4711, Prototype: 0x9c3a1b00776ffeac, Region: 3,
		Position: mgl32.Vec3{1024.125, -77.5, 12}, Yaw: 1.5, Pitch: -0.25, Roll: 0.015625,
		Velocity: mgl32.Vec3{3.3, 0, -1e-3}, Health: -12, Level: 60, Team: 2,
		Visible: true, Moving: true, Hostile: true,
		Name:    "Juggernaut",
		Timer:   timer{Current: 3, Total: 10, Start: 1200, End: 1400, Paused: true},
		Spawned: -1, Owner: 1 << 40, Scale: 1.25, SaveOnly: 99,
	}
	for i := range 8 {
		e.Properties = append(e.Properties, property{ID: uint32(100 + i), Value: int32(i*i - 20)})
	}
	return e
}

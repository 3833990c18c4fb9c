package replica

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// Field is one part of the avatar's locomotion state that prediction can get wrong.
type Field uint8

// The fields the drift breakdown names.
const (
	FieldPosition Field = iota
	FieldYaw
	FieldSpeed
	FieldMoving
	FieldPath // path nodes or the node being walked to
	numFields
)

func (f Field) String() string {
	return [...]string{"position", "yaw", "speed", "moving", "path", "field?"}[min(int(f), int(numFields))]
}

// FieldMask is a set of Fields.
type FieldMask uint8

// Has reports whether f is in the set.
func (m FieldMask) Has(f Field) bool { return m&(1<<f) != 0 }

func (m FieldMask) String() string {
	if m == 0 {
		return "none"
	}
	var parts []string
	for f := range numFields {
		if m.Has(f) {
			parts = append(parts, f.String())
		}
	}
	return strings.Join(parts, "+")
}

// DriftSample compares the prediction for one server frame with the server's state
// for it, in the wire's quantized domain: an exact prediction has zero error.
type DriftSample struct {
	Frame      uint64        // server frame compared
	At         time.Duration // client time of the comparison
	PosError   float32       // metres between quantized predicted and authoritative positions
	YawError   float32       // radians, absolute, shortest arc
	Fields     FieldMask     // fields that disagree (in quantized terms)
	Corrected  bool          // the disagreement exceeded the tolerance: rewound and replayed
	Correction float32       // metres the simulated avatar moved by the correction (at the newest predicted frame)
	Replayed   int           // frames replayed
	// AfterTravel: the frame is within TravelWindow frames of a travel to another
	// region; a correction then counts in CorrectionsAfterTravel, not Corrections.
	AfterTravel bool

	PredPos, AuthPos     mgl32.Vec2
	PredYaw, AuthYaw     float32
	PredSpeed, AuthSpeed float32
	PredGoal, AuthGoal   uint32
	PredNodes, AuthNodes int
}

// String renders the sample like Source's cl_showerror 2: one line per field that
// disagreed, with both values.
func (s DriftSample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frame %d: error %.3f m %.4f rad", s.Frame, s.PosError, s.YawError)
	if s.Corrected {
		fmt.Fprintf(&b, ", corrected by %.3f m (%d frames replayed)", s.Correction, s.Replayed)
	}
	if s.AfterTravel {
		b.WriteString(", after travel")
	}
	for f := range numFields {
		if !s.Fields.Has(f) {
			continue
		}
		switch f {
		case FieldPosition:
			fmt.Fprintf(&b, "\n  position: predicted %v, server %v", s.PredPos, s.AuthPos)
		case FieldYaw:
			fmt.Fprintf(&b, "\n  yaw: predicted %.4f, server %.4f", s.PredYaw, s.AuthYaw)
		case FieldSpeed:
			fmt.Fprintf(&b, "\n  speed: predicted %g, server %g", s.PredSpeed, s.AuthSpeed)
		case FieldMoving:
			fmt.Fprintf(&b, "\n  moving: predicted %v, server %v", !s.predIdle(), !s.authIdle())
		case FieldPath:
			fmt.Fprintf(&b, "\n  path: predicted %d nodes (goal %d), server %d nodes (goal %d)", s.PredNodes, s.PredGoal, s.AuthNodes, s.AuthGoal)
		}
	}
	return b.String()
}

func (s DriftSample) predIdle() bool { return s.PredNodes == 0 }
func (s DriftSample) authIdle() bool { return s.AuthNodes == 0 }

// DriftLogFrames is the length of the rolling drift log: 30 s of frames.
const DriftLogFrames = 30 * 1000 / int(FrameDuration/time.Millisecond)

// DriftStats summarizes prediction accuracy since the replica started.
type DriftStats struct {
	Compared        int           // frames compared
	Mismatched      int           // frames with any disagreement (within tolerance or not)
	Corrections     int           // rewinds
	MaxCorrection   float32       // largest correction, metres
	SumCorrection   float64       // sum of corrections, metres
	MaxPosError     float32       // largest position error, metres
	MaxYawError     float32       // largest yaw error, radians
	LastCorrection  uint64        // server frame of the last correction (0: none)
	LastCorrectedAt time.Duration // client time of the last correction
	ByField         [numFields]int
	// CorrectionsAfterTravel counts the rewinds within TravelWindow frames of a
	// travel to another region, and MaxCorrectionAfterTravel the largest, in
	// metres: the handoff's, reported apart from steady prediction's (Corrections,
	// MaxCorrection, SumCorrection and LastCorrection leave them out).
	CorrectionsAfterTravel   int
	MaxCorrectionAfterTravel float32
}

// FieldCount returns how many compared frames disagreed in f.
func (d DriftStats) FieldCount(f Field) int {
	if f >= numFields {
		return 0
	}
	return d.ByField[f]
}

// SinceCorrection returns the time since the last correction at now, or -1 if
// there was none.
func (d DriftStats) SinceCorrection(now time.Duration) time.Duration {
	if d.Corrections == 0 {
		return -1
	}
	return now - d.LastCorrectedAt
}

// driftLog is the rolling log: a ring of the last DriftLogFrames samples.
type driftLog struct {
	ring  []DriftSample
	next  int
	full  bool
	stats DriftStats
}

func (l *driftLog) add(s DriftSample) {
	if l.ring == nil {
		l.ring = make([]DriftSample, DriftLogFrames)
	}
	l.ring[l.next] = s
	l.next++
	if l.next == len(l.ring) {
		l.next, l.full = 0, true
	}
	st := &l.stats
	st.Compared++
	if s.Fields != 0 {
		st.Mismatched++
	}
	for f := range numFields {
		if s.Fields.Has(f) {
			st.ByField[f]++
		}
	}
	st.MaxPosError = max(st.MaxPosError, s.PosError)
	st.MaxYawError = max(st.MaxYawError, s.YawError)
	if s.Corrected && s.AfterTravel {
		st.CorrectionsAfterTravel++
		st.MaxCorrectionAfterTravel = max(st.MaxCorrectionAfterTravel, s.Correction)
	} else if s.Corrected {
		st.Corrections++
		st.MaxCorrection = max(st.MaxCorrection, s.Correction)
		st.SumCorrection += float64(s.Correction)
		st.LastCorrection, st.LastCorrectedAt = s.Frame, s.At
	}
}

// samples appends the log, oldest first, to dst.
func (l *driftLog) samples(dst []DriftSample) []DriftSample {
	if l.full {
		dst = append(dst, l.ring[l.next:]...)
	}
	return append(dst, l.ring[:l.next]...)
}

// compare fills the error fields of a sample from a predicted and an authoritative
// state, both absolute.
func compare(pred, auth *locomotion.State) DriftSample {
	s := DriftSample{
		PredPos: mgl32.Vec2{pred.Position[0], pred.Position[1]}, AuthPos: mgl32.Vec2{auth.Position[0], auth.Position[1]},
		PredYaw: pred.Yaw, AuthYaw: auth.Yaw, PredSpeed: pred.Speed, AuthSpeed: auth.Speed,
		PredGoal: pred.Goal, AuthGoal: auth.Goal, PredNodes: len(pred.Path), AuthNodes: len(auth.Path),
	}
	d := locomotion.Diff(auth, pred)
	if d.Fields&locomotion.HasPosition != 0 {
		s.Fields |= 1 << FieldPosition
	}
	if d.Fields&locomotion.HasYaw != 0 {
		s.Fields |= 1 << FieldYaw
	}
	if d.Fields&locomotion.HasSpeed != 0 {
		s.Fields |= 1 << FieldSpeed
	}
	if d.Fields&locomotion.HasPath != 0 {
		s.Fields |= 1 << FieldPath
	}
	if pred.Fields&locomotion.Moving != auth.Fields&locomotion.Moving {
		s.Fields |= 1 << FieldMoving
	}
	dx := quantum(pred.Position[0], auth.Position[0], locomotion.PositionPrecision)
	dy := quantum(pred.Position[1], auth.Position[1], locomotion.PositionPrecision)
	s.PosError = geom.Hypot(dx, dy)
	q := float32(1) / (1 << locomotion.YawPrecision)
	s.YawError = float32(math.Abs(float64(geom.WrapAngle(archive.Quantize(pred.Yaw, locomotion.YawPrecision) - archive.Quantize(auth.Yaw, locomotion.YawPrecision)))))
	if s.YawError < q/2 {
		s.YawError = 0
	}
	return s
}

// quantum returns the difference of two values after quantization to precision p.
func quantum(a, b float32, p int) float32 {
	return archive.Quantize(a, p) - archive.Quantize(b, p)
}

// units returns the difference of a and b in quantization units of precision p.
func units(a, b float32, p int) int64 {
	return int64(archive.FixedFromFloat(a, p)) - int64(archive.FixedFromFloat(b, p))
}

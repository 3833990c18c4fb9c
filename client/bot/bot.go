// Package bot drives Twinframe clients with seeded random inputs and checks, from
// each client's side, what the headless run must hold: the area of interest is
// respected and prediction drift stays bounded.
//
// # Design note
//
// A Bot decides with its own PCG generator, seeded per bot, and only at frame
// boundaries it counts itself, so a run's inputs depend on the seed and the frame
// count, not on timing. Checks read the replica's authoritative states (what the
// server sent), not the drawn ones, so they judge the server and the prediction,
// not the smoothing. A run faster than real time must give each client a clock
// that follows the server (client.Options.Now returning the server's frame count
// times replica.FrameDuration), since prediction runs ahead of that clock.
package bot

import (
	"fmt"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// Options configure a Bot. The zero value gives the defaults.
type Options struct {
	// MoveEvery is the mean number of frames between move-to inputs (default 40).
	MoveEvery int
	// FireChance is the chance, per move decision, of firing instead (default 0.2).
	FireChance float64
	// StopChance is the chance, per move decision, of stopping instead (default 0.05).
	StopChance float64
}

// Bot plays one client.
type Bot struct {
	C     *client.Client
	opt   Options
	rng   *rand.Rand
	frame int
	next  int
}

// New returns a bot for c whose choices are seeded with seed.
func New(c *client.Client, seed uint64, opt *Options) *Bot {
	b := &Bot{C: c, rng: rand.New(rand.NewPCG(seed, 0x626f74))} // "bot"
	if opt != nil {
		b.opt = *opt
	}
	if b.opt.MoveEvery <= 0 {
		b.opt.MoveEvery = 40
	}
	if b.opt.FireChance == 0 {
		b.opt.FireChance = 0.2
	}
	if b.opt.StopChance == 0 {
		b.opt.StopChance = 0.05
	}
	b.next = 1 + b.rng.IntN(b.opt.MoveEvery)
	return b
}

// Step runs one frame of the bot: the client's Update, then an input when one is
// due (a move-to a random point of the region, sometimes a fire or a stop).
func (b *Bot) Step() error {
	b.frame++
	if err := b.C.Update(); err != nil {
		return err
	}
	if b.frame < b.next {
		return nil
	}
	var lo, hi mgl32.Vec2
	ready := false
	b.C.With(func(r *replica.Replica) {
		if g := r.Game(); g != nil && r.Ready() {
			if reg := g.Region(r.RegionID()); reg != nil {
				bb := reg.Mesh().Bounds()
				lo, hi, ready = bb.Min, bb.Max, true
			}
		}
	})
	if !ready {
		return nil
	}
	b.next = b.frame + 1 + b.rng.IntN(2*b.opt.MoveEvery)
	p := mgl32.Vec2{lo[0] + b.rng.Float32()*(hi[0]-lo[0]), lo[1] + b.rng.Float32()*(hi[1]-lo[1])}
	switch x := b.rng.Float64(); {
	case x < b.opt.FireChance:
		return b.C.Fire(p)
	case x < b.opt.FireChance+b.opt.StopChance:
		return b.C.Stop()
	}
	return b.C.MoveTo(p)
}

// Violation is something a check found wrong, at a server frame.
type Violation struct {
	Frame  uint64 `json:"frame"`
	Entity uint64 `json:"entity,omitempty"`
	What   string `json:"what"`
}

func (v Violation) String() string {
	return fmt.Sprintf("frame %d: entity %d: %s", v.Frame, v.Entity, v.What)
}

// ProjectileSlack is how much farther from the avatar a projectile can look than
// it is, where CheckAOI places it: WireSlack for the avatar's and the projectile's
// quantized positions, plus up to 1/8 m per axis (0.18 m) for the quantized end of
// its flight, which sets the direction it is carried along.
const ProjectileSlack = replication.WireSlack + 0.18

// CheckAOI reports the entities the client holds outside aoi's remove radius around
// its avatar at the newest server frame, by their authoritative positions (with
// replication.WireSlack for their quantization).
//
// A projectile gets no updates (the client simulates it from its create), so its
// replicated state is where it was created, often far behind it. The server still
// removes it, every frame, once its real position is beyond the remove radius.
// Its flight is known (a straight line from the create's position along its path
// at its speed, ending at the path's end), so CheckAOI judges it where it is at
// the newest server frame, with ProjectileSlack.
func CheckAOI(c *client.Client, aoi replication.AOI) []Violation {
	var out []Violation
	c.With(func(r *replica.Replica) {
		own, ok := r.State(r.Player())
		if !ok {
			return
		}
		center := own.Position.Vec2()
		f := r.ServerFrame()
		var held, flying []replication.Candidate
		for _, id := range r.IDs(nil) {
			st, _ := r.State(id)
			if r.IsProjectile(id) {
				flying = append(flying, replication.Candidate{ID: id, Pos: InFlight(&st, f)})
			} else {
				held = append(held, replication.Candidate{ID: id, Pos: st.Position.Vec2()})
			}
		}
		leak := func(cands []replication.Candidate, slack float32, kind string) {
			for _, id := range aoi.Leaks(center, r.Player(), cands, slack, nil) {
				for _, c := range cands {
					if c.ID == id {
						out = append(out, Violation{Frame: f, Entity: id,
							What: fmt.Sprintf("%sheld at %.1f m, beyond the remove radius %g", kind, c.Pos.Sub(center).Len(), aoi.Remove)})
					}
				}
			}
		}
		leak(held, replication.WireSlack, "")
		leak(flying, ProjectileSlack, "a projectile ")
	})
	return out
}

// InFlight returns where a projectile whose replicated state is st is at server
// frame f: moved from its position at st.Frame towards its path's end at its
// speed, and stopped there (the server destroys it at the end of its range).
func InFlight(st *locomotion.State, f uint64) mgl32.Vec2 {
	pos := st.Position.Vec2()
	if st.Fields&locomotion.Moving == 0 || int(st.Goal) >= len(st.Path) || f <= st.Frame {
		return pos
	}
	d := st.Path[len(st.Path)-1].Point.Vec2().Sub(pos)
	left := d.Len()
	flown := float32(float64(st.Speed) * float64(sim.FrameSeconds) * float64(f-st.Frame))
	if left == 0 || flown >= left {
		return pos.Add(d)
	}
	return pos.Add(d.Mul(flown / left))
}

// CheckDrift reports the compared frames of the client's drift log whose error,
// before reconciliation, exceeded bound metres (bound 0: any disagreement), and
// inconsistencies the replica found. After reconciliation the predicted state is
// the server's by construction; what the bound judges is how far the prediction
// was off. Prediction has other avatars and NPCs only as obstacles standing where
// the server last said they are, on the wire's grid, so a bump into one is a
// disagreement even without latency.
func CheckDrift(c *client.Client, bound float32) []Violation {
	var out []Violation
	c.With(func(r *replica.Replica) {
		for _, s := range r.DriftLog(nil) {
			if s.PosError > bound || bound == 0 && s.Fields != 0 {
				out = append(out, Violation{Frame: s.Frame, Entity: r.Player(), What: "prediction drift: " + s.String()})
			}
		}
		if err := r.ResyncReason(); err != nil {
			out = append(out, Violation{Frame: r.ServerFrame(), What: err.Error()})
		}
	})
	return out
}

// Report is a bot's summary for the headless run's JSON report.
type Report struct {
	Player      uint64 `json:"player"`
	Frames      int    `json:"frames"`
	BytesIn     int64  `json:"bytesIn"`
	BytesOut    int64  `json:"bytesOut"`
	PacketsIn   int64  `json:"packetsIn"`
	Compared    int    `json:"framesCompared"`
	Mismatched  int    `json:"framesMismatched"`
	Corrections int    `json:"corrections"`
	// Corrections in the second after each region change, counted apart.
	CorrectionsAfterTravel int     `json:"correctionsAfterTravel"`
	RegionChanges          int     `json:"regionChanges"`
	MaxCorrection          float32 `json:"maxCorrectionM"`
	MaxPosError            float32 `json:"maxPositionErrorM"`
	MaxYawError            float32 `json:"maxYawErrorRad"`
	LateInputs             int     `json:"lateInputs"`
	RTTMillis              float64 `json:"rttMs"`
	Errors                 int     `json:"replicaErrors"`
	Resyncs                int     `json:"resyncs"` // fresh copies of the world after inconsistencies
}

// Report summarizes the bot's traffic and prediction drift.
func (b *Bot) Report() Report {
	st := b.C.Stats()
	rep := Report{Frames: b.frame, BytesIn: st.BytesIn, BytesOut: st.BytesOut, PacketsIn: st.PacketsIn}
	b.C.With(func(r *replica.Replica) {
		d, rs := r.Drift(), r.Stats()
		rep.Player = r.Player()
		rep.Compared, rep.Mismatched, rep.Corrections = d.Compared, d.Mismatched, d.Corrections
		rep.MaxCorrection, rep.MaxPosError, rep.MaxYawError = d.MaxCorrection, d.MaxPosError, d.MaxYawError
		rep.LateInputs, rep.Errors, rep.Resyncs = rs.LateInputs, rs.Errors, rs.Resyncs
		rep.CorrectionsAfterTravel, rep.RegionChanges = d.CorrectionsAfterTravel, rs.RegionChanges
		rep.RTTMillis = float64(r.Clock().RTT()) / 1e6
	})
	return rep
}

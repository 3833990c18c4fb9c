package scene

import (
	"fmt"

	"github.com/twinframe/twinframe/shared/sim"
)

func (l *local) timeline() *timeline { return &l.tl }

// timelineStep adds the rows of the step just run: the avatar's travel, then the
// shown region's events and power results. A frame the timeline has (replayed after
// a seek) adds nothing: the replay is the same simulation.
func (l *local) timelineStep() {
	f := l.g.Frame()
	from := l.fromReg
	l.fromReg = ""
	if l.tl.covered(f) {
		return
	}
	if from != "" {
		l.tl.add(TimelineRow{Frame: f, Kind: KindRegion, A: uint64(l.avatar), Origin: OriginLocal,
			Value: fmt.Sprintf("%s → %s", from, l.g.Home().Name())})
	}
	l.tl.simEvents(f, l.g.Events(), l.g.PowerResults(), OriginLocal)
}

// explainContact explains entity a's collision at frame, which must be the frame
// shown (the game's last step).
func (l *local) explainContact(a uint64, frame uint64) (sim.Contact, error) {
	if f := l.g.Frame(); f != frame {
		return sim.Contact{}, fmt.Errorf("scene: the sandbox shows frame %d, not %d", f, frame)
	}
	return l.g.ExplainContact(sim.EntityID(a))
}

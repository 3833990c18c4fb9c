package scene

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/twinframe/twinframe/shared/replica"
	"google.golang.org/protobuf/proto"
)

// errNothingRecorded is returned by a seek before any server frame was received.
var errNothingRecorded = errors.New("scene: nothing recorded yet")

// recorder keeps the networked session's recording and the replay of it on screen.
type recorder struct {
	mu      sync.Mutex // guards rec: the client's reader goroutine records into it
	rec     netRecording
	replay  *netReplay // non-nil: a recorded frame on screen instead of the live state
	fullGen int        // the recording whose filling up was logged
}

// record appends a message the client received (on its reader goroutine).
func (r *recorder) record(m proto.Message) {
	r.mu.Lock()
	r.rec.record(m)
	r.mu.Unlock()
}

// restart starts the recording of a new connection, before its first message.
func (r *recorder) restart() {
	r.mu.Lock()
	r.rec.restart()
	r.mu.Unlock()
}

// report puts the recorded span in the status and logs the recording filling up.
func (r *recorder) report(st *Status, log *eventLog) {
	r.mu.Lock()
	st.RecordedFrom, st.Recorded = r.rec.span()
	full, gen := r.rec.full, r.rec.gen
	r.mu.Unlock()
	if full && r.fullGen != gen {
		r.fullGen = gen
		log.add(st.Recorded, fmt.Sprintf("recording full at frame %d: replay covers %d–%d", st.Recorded, st.RecordedFrom, st.Recorded))
	}
}

// seek replays the recording to frame (clamped to the recorded span) and shows it.
func (r *recorder) seek(frame uint64, log *eventLog) error {
	r.mu.Lock()
	gen, packets := r.rec.gen, slices.Clone(r.rec.packets)
	first, last := r.rec.span()
	r.mu.Unlock()
	if first == 0 {
		return errNothingRecorded
	}
	frame = min(max(frame, first), last)
	p := r.replay
	if p == nil || p.gen != gen || p.frame > frame {
		p = &netReplay{gen: gen, rep: replica.New(nil)}
	}
	p.feed(packets, frame)
	r.replay = p
	log.add(frame, fmt.Sprintf("replaying frame %d of %d–%d", frame, first, last))
	return nil
}

// step shows the next recorded frame after the one shown (while replaying).
func (r *recorder) step(log *eventLog) error {
	r.mu.Lock()
	next := uint64(0)
	for _, p := range r.rec.packets {
		if p.frame > r.replay.frame {
			next = p.frame
			break
		}
	}
	r.mu.Unlock()
	if next == 0 {
		return nil // at the end of the recording
	}
	return r.seek(next, log)
}

// status returns st as shown: the replayed frame's while replaying.
func (r *recorder) status(st Status) Status {
	if r.replay != nil {
		return r.replay.status(st)
	}
	return st
}

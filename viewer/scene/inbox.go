package scene

import (
	"sync"

	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// inbox is what the client's reader goroutine hands the networked source besides
// the replica: the server's latest debug draw (deity) and its error messages.
type inbox struct {
	mu        sync.Mutex
	debugDraw *pb.NetMessageDebugDraw
	errs      []string
}

// maxInboxErrors bounds the errors waiting for the viewer's next update.
const maxInboxErrors = 64

// setDraw keeps the server's newest debug draw.
func (b *inbox) setDraw(m *pb.NetMessageDebugDraw) {
	b.mu.Lock()
	b.debugDraw = m
	b.mu.Unlock()
}

// addError keeps an error for the log; beyond maxInboxErrors waiting, it drops it.
func (b *inbox) addError(text string) {
	b.mu.Lock()
	if len(b.errs) < maxInboxErrors {
		b.errs = append(b.errs, text)
	}
	b.mu.Unlock()
}

// draw returns the server's newest debug draw (nil: none). A received message is
// never changed: the caller reads it without the lock.
func (b *inbox) draw() *pb.NetMessageDebugDraw {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.debugDraw
}

// logErrors moves the errors received to the log, at frame.
func (b *inbox) logErrors(log *eventLog, frame uint64) {
	b.mu.Lock()
	for _, e := range b.errs {
		log.add(frame, e)
	}
	b.errs = b.errs[:0]
	b.mu.Unlock()
}

package netsim

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Conn is a message transport: one websocket binary message per Read or Write.
type Conn interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, p []byte) error
	Close() error
}

// StampedConn is a Conn whose Read can come after the message arrived (a Link
// whose timer fires late because the goroutine that runs it is busy: in a browser,
// drawing a frame). ReadStamped tells when it did.
type StampedConn interface {
	Conn
	// ReadStamped is Read, with when the message was delivered.
	ReadStamped(ctx context.Context) (p []byte, delivered time.Time, err error)
}

// ErrClosed is returned by a Link's Read and Write after Close.
var ErrClosed = errors.New("netsim: link closed")

// queueLen bounds the messages in flight in each direction.
const queueLen = 4096

// Link is a Conn whose messages travel through two Shapers: Up for what is written,
// Down for what is read. Its goroutines end when it is closed or the inner Conn
// fails.
type Link struct {
	Up, Down *Shaper
	inner    Conn
	now      func() time.Time

	ctx    context.Context
	cancel context.CancelFunc
	out    chan item
	in     chan item
	wg     sync.WaitGroup

	rmu     sync.Mutex
	pending *item
	werrMu  sync.Mutex
	werr    error
}

type item struct {
	at   time.Time
	data []byte
	err  error
}

// Wrap returns a Link over c. now is the clock (nil: time.Now).
func Wrap(c Conn, up, down *Shaper, now func() time.Time) *Link {
	if now == nil {
		now = time.Now
	}
	if up == nil {
		up = NewShaper(Conditions{}, 1)
	}
	if down == nil {
		down = NewShaper(Conditions{}, 2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{Up: up, Down: down, inner: c, now: now, ctx: ctx, cancel: cancel,
		out: make(chan item, queueLen), in: make(chan item, queueLen)}
	l.wg.Add(2)
	go l.send()
	go l.receive()
	return l
}

// wait waits until at; it reports false if the link closed first.
func (l *Link) wait(ctx context.Context, at time.Time) bool {
	d := at.Sub(l.now())
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-l.ctx.Done():
		return false
	}
}

func (l *Link) send() {
	defer l.wg.Done()
	for {
		select {
		case <-l.ctx.Done():
			return
		case it := <-l.out:
			if !l.wait(l.ctx, it.at) {
				return
			}
			if err := l.inner.Write(l.ctx, it.data); err != nil {
				l.werrMu.Lock()
				l.werr = err
				l.werrMu.Unlock()
				return
			}
		}
	}
}

func (l *Link) receive() {
	defer l.wg.Done()
	for {
		b, err := l.inner.Read(l.ctx)
		it := item{data: b, err: err}
		if err == nil {
			it.at = l.Down.Deliver(l.now(), len(b))
		}
		select {
		case l.in <- it:
		case <-l.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// Write queues p to arrive when the Up shaper says. It blocks only when 4096
// messages are in flight.
func (l *Link) Write(ctx context.Context, p []byte) error {
	l.werrMu.Lock()
	err := l.werr
	l.werrMu.Unlock()
	if err != nil {
		return err
	}
	if l.ctx.Err() != nil {
		return ErrClosed
	}
	it := item{at: l.Up.Deliver(l.now(), len(p)), data: append([]byte(nil), p...)}
	select {
	case l.out <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-l.ctx.Done():
		return ErrClosed
	}
}

// Read returns the next message when the Down shaper lets it arrive. After the
// inner Conn fails, Read returns its error once the messages before it are read.
func (l *Link) Read(ctx context.Context) ([]byte, error) {
	b, _, err := l.ReadStamped(ctx)
	return b, err
}

// ReadStamped is Read, with the time the Down shaper let the message arrive, which
// stays right however late the timer that waits for it fires. The shaper's
// clock starts when the inner Conn hands the message over: in a browser, in the
// same turn of the event loop as the websocket's message event, since the Go
// runtime runs every goroutine an event wakes before it returns to JavaScript.
func (l *Link) ReadStamped(ctx context.Context) ([]byte, time.Time, error) {
	l.rmu.Lock()
	defer l.rmu.Unlock()
	if l.pending == nil {
		select {
		case it := <-l.in:
			l.pending = &it
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		case <-l.ctx.Done():
			return nil, time.Time{}, ErrClosed
		}
	}
	it := l.pending
	if it.err != nil {
		return nil, time.Time{}, it.err // sticky
	}
	if !l.wait(ctx, it.at) {
		if ctx.Err() != nil {
			return nil, time.Time{}, ctx.Err()
		}
		return nil, time.Time{}, ErrClosed
	}
	l.pending = nil
	return it.data, it.at, nil
}

// Close closes the inner Conn and stops the link's goroutines. Messages still in
// flight are dropped.
func (l *Link) Close() error {
	l.cancel()
	err := l.inner.Close()
	l.wg.Wait()
	return err
}

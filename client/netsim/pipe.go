package netsim

import (
	"context"
	"sync"
)

// Pipe returns the two ends of an in-memory message Conn: what one writes, the
// other reads, in order. Closing either end closes both; what was written
// before is still read.
func Pipe() (Conn, Conn) {
	ab, ba := make(chan []byte, queueLen), make(chan []byte, queueLen)
	done := make(chan struct{})
	once := new(sync.Once)
	return &pipeEnd{in: ba, out: ab, done: done, once: once}, &pipeEnd{in: ab, out: ba, done: done, once: once}
}

type pipeEnd struct {
	in, out chan []byte
	done    chan struct{}
	once    *sync.Once
}

func (p *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		// What was written before the close is still read, as over a
		// websocket, where the close frame follows the last message.
		select {
		case b := <-p.in:
			return b, nil
		default:
		}
		return nil, ErrClosed
	}
}

func (p *pipeEnd) Write(ctx context.Context, b []byte) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	select {
	case p.out <- append([]byte(nil), b...):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return ErrClosed
	}
}

func (p *pipeEnd) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

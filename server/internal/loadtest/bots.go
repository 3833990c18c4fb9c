package loadtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
)

// botPool is the load test's bots: the viewer's client over a real loopback
// websocket each, played by client/bot with its own seed.
type botPool struct {
	bots     []*bot.Bot
	stepErrs atomic.Int64 // Step errors other than a full input queue
	late     atomic.Int64 // ticks the pacing goroutine skipped because stepping every bot took longer than a period
	stop     chan struct{}
	// -xdump-flood: the bots that also dump, and their answers.
	flooders             []*flooder
	dumpsOK, dumpsRefuse atomic.Int64
	done                 chan struct{}
}

// joinConcurrency bounds the logins in flight: each waits for the store and a
// frame boundary, so a few at a time keep the join short without a stampede.
const joinConcurrency = 16

// botName is the name bot i logs in with.
func botName(i int) string { return fmt.Sprintf("load%04d", i) }

// joinBots connects n bots to url and waits until each has its avatar.
// The first flood of them also flood the server with xdump requests once play starts.
func joinBots(ctx context.Context, url string, n, flood int, seed uint64, timeout time.Duration, log *slog.Logger) (*botPool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p := &botPool{bots: make([]*bot.Bot, n), stop: make(chan struct{}), done: make(chan struct{})}
	errs := make([]error, n)
	p.flooders = make([]*flooder, min(flood, n))
	for i := range p.flooders {
		p.flooders[i] = &flooder{answers: make(chan *pb.NetMessageXDumpResponse, 16), ok: &p.dumpsOK, refused: &p.dumpsRefuse}
	}
	sem := make(chan struct{}, joinConcurrency)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			opt := &client.Options{Name: botName(i), Logger: log}
			if i < len(p.flooders) {
				opt.OnMessage = p.flooders[i].onMessage
			}
			c, err := client.Dial(ctx, url, opt)
			if err == nil {
				if err = c.WaitReady(ctx); err != nil {
					_ = c.Close()
				}
			}
			if err != nil {
				errs[i] = fmt.Errorf("bot %d: %w", i, err)
				return
			}
			p.bots[i] = bot.New(c, seed*1000003+uint64(i), nil)
		}()
	}
	wg.Wait()
	if err := joinErrors(errs); err != nil {
		close(p.done)
		p.close()
		return nil, err
	}
	return p, nil
}

// joinErrors sums up the bots that did not join: how many, and the first of
// each distinct cause.
func joinErrors(errs []error) error {
	failed, first := 0, map[string]error{}
	var order []string
	for _, err := range errs {
		if err == nil {
			continue
		}
		failed++
		why := errors.Unwrap(err).Error()
		if _, seen := first[why]; !seen {
			first[why] = err
			order = append(order, why)
		}
	}
	if failed == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d bots did not join", failed, len(errs))
	for i, why := range order {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d other causes", len(order)-3)
			break
		}
		fmt.Fprintf(&b, "; %v", first[why])
	}
	return errors.New(b.String())
}

// play steps every bot once a period (client Update, then a seeded random
// input when one is due) until close. One goroutine paces them all: a tick that
// comes while the last one's steps are still running is skipped and counted.
func (p *botPool) play(period time.Duration) {
	defer close(p.done)
	var floods sync.WaitGroup
	defer floods.Wait()
	for i, f := range p.flooders {
		floods.Add(1)
		go func() { defer floods.Done(); f.run(p.bots[i].C, p.stop) }()
	}
	t := time.NewTicker(period)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			if skipped := int64(now.Sub(last)/period) - 1; skipped > 0 {
				p.late.Add(skipped)
			}
			last = now
			for _, b := range p.bots {
				if b.C.Err() != nil {
					continue
				}
				if err := b.Step(); err != nil && !errors.Is(err, replica.ErrTooManyInputs) && b.C.Err() == nil {
					p.stepErrs.Add(1)
				}
			}
		}
	}
}

// connected counts the bots whose connection is still up, and groups the others
// by why it ended (the client's error, first line).
func (p *botPool) connected() (int, map[string]int) {
	up, ended := 0, map[string]int{}
	for _, b := range p.bots {
		if b == nil {
			continue
		}
		if err := b.C.Err(); err != nil {
			why, _, _ := strings.Cut(err.Error(), "\n")
			ended[why]++
			continue
		}
		up++
	}
	return up, ended
}

// close stops the pacing (if it runs) and closes every client.
func (p *botPool) close() {
	select {
	case <-p.stop:
		return
	default:
		close(p.stop)
	}
	<-p.done
	var wg sync.WaitGroup
	for _, b := range p.bots {
		if b != nil {
			wg.Add(1)
			go func() { defer wg.Done(); _ = b.C.Close() }()
		}
	}
	wg.Wait()
}

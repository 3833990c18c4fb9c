package headless

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
)

// join connects the bots one at a time, each at a frame that depends only on
// the bots before it and the network conditions, so that a seed gives the same
// avatars, entity ids and frames on every run.
//
// A login goes through the server's store and then waits for a frame boundary
// (a request the frame loop runs first thing in a frame); while it waits, its
// session's reader is not reading, so the inputs barrier cannot hold. The driver
// waits until the server has queued the join (gameserver PendingRequests), then
// grants one frame without that barrier: the join runs in it, and the new
// client's link gets the login result and the frame's packet. With latency,
// frames run before (until the login leaves the new client's link) and after
// (until the login result arrives), with every barrier.
func (h *headlessRun) join(ctx context.Context) error {
	u, _ := url.Parse(h.url)
	u.Scheme, u.Path = "ws", "/ws"
	hc := &http.Client{Transport: &http.Transport{DialContext: h.table.dial}}
	deadline := time.Now().Add(h.cfg.timeout)
	for i := range h.cfg.bots {
		ws, _, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{HTTPClient: hc})
		if err != nil {
			return err
		}
		ws.SetReadLimit(int64(protocolReadLimits.MaxPacketSize))
		seed := h.cfg.seed*1000003 + uint64(i)
		hb := &headlessBot{n: i}
		hb.link = newVlink(ws, h.cfg.net, h.cfg.net, seed, &h.vt, h.notify)
		c, err := client.New(hb.link, &client.Options{Name: fmt.Sprintf("bot%03d", i), Now: h.vt.Now,
			Logger: h.log, OnMessage: hb.onMessage})
		if err != nil {
			_ = hb.link.Close()
			return err
		}
		hb.c, hb.b, hb.trv = c, bot.New(c, seed, nil), newTraveller(seed)
		// With latency the login leaves the client's link when it is due, in
		// virtual time: run frames (of the bots already in) until it has.
		for hb.link.pendingOut() > 0 {
			if err := h.frame(ctx, allBarriers, false); err != nil {
				return err
			}
			h.rep.JoinFrames++
			if err := hb.link.deliver(ctx, h.vt.Now()); err != nil {
				return fmt.Errorf("bot %d: %w", i, err)
			}
		}
		if err := h.frameWait(fmt.Sprintf("bot %d's login to reach the frame loop", i), func() (bool, error) {
			return h.srv.PendingRequests() > 0, c.Err()
		}); err != nil {
			return err
		}
		h.bots = append(h.bots, hb)
		sync := packetsOut
		for !ready(c) {
			if err := c.Err(); err != nil {
				return fmt.Errorf("bot %d: %w", i, err)
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("headless: %d of %d bots joined in %v", i, h.cfg.bots, h.cfg.timeout)
			}
			if err := h.frame(ctx, sync, false); err != nil {
				return err
			}
			h.rep.JoinFrames++
			sync = allBarriers
		}
	}
	// Settle: frames with every barrier, so that every client's clock is anchored
	// on frames received on time before the bots play.
	for range settleFrames {
		if err := h.frame(ctx, allBarriers, false); err != nil {
			return err
		}
		h.rep.JoinFrames++
	}
	return nil
}

// settleFrames run with every barrier between the joins and the checked frames.
const settleFrames = 3

// ready reports whether c has its avatar.
func ready(c *client.Client) bool {
	// WaitReady does not wait once Ready; it says whether the login was refused.
	return c.Ready() && c.Err() == nil && c.WaitReady(context.Background()) == nil
}

package scene

import (
	"context"
	"fmt"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"google.golang.org/protobuf/proto"
)

// Reconnection back-off of the networked source.
const (
	minRedial = 500 * time.Millisecond
	maxRedial = 8 * time.Second
	// dialTimeout bounds one connection attempt (dial, login, first region). It is
	// generous because in a browser the attempt shares one thread with the page: a
	// page starved of CPU (a loaded machine, a background tab) runs the login and the
	// navmesh build of the region in slices between its frames.
	dialTimeout = 30 * time.Second
)

// connection is the networked source's link to its server: the client while
// connected; dialling in the background, and redialling with back-off, while not.
type connection struct {
	url, name, deityToken string
	// secret is what the next login presents: the account's password, or the token
	// the server issued at the name's first login.
	secret        string
	onIssuedToken func(token string)
	onMessage     func(proto.Message) // the client's OnMessage (its reader goroutine)
	onDial        func()              // runs before an attempt, so before its first message
	log           *eventLog

	c       *client.Client // nil while not connected
	dialing bool
	results chan dialResult
	redial  time.Duration // back-off of the next attempt
	nextAt  time.Duration // clock time of the next attempt
	cancel  context.CancelFunc
	lastErr string // why the last attempt failed or the connection ended, or the client's last error
}

type dialResult struct {
	c   *client.Client
	err error
}

func (cn *connection) deity() bool { return cn.deityToken != "" }

func (cn *connection) dial(net netsim.Conditions) {
	cn.dialing = true
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	cn.cancel = cancel
	up, down := net, net
	opt := &client.Options{Name: cn.name, DeityToken: cn.deityToken, Secret: cn.secret, Up: &up, Down: &down, OnMessage: cn.onMessage}
	deity := cn.deity()
	if cn.onDial != nil {
		cn.onDial()
	}
	go func() {
		defer cancel()
		c, err := client.Dial(ctx, cn.url, opt)
		if err == nil {
			if err = c.WaitReady(ctx); err != nil {
				c.Close()
				c = nil
			} else if deity {
				// The deity sees the server's own sweeps and contacts (the sweeps overlay).
				c.DebugDraw(true)
			}
		}
		cn.results <- dialResult{c, err}
	}()
}

// poll dials when an attempt is due (with the network conditions net) and takes the
// outcome of one that ended. It reports whether a new connection came up.
func (cn *connection) poll(now time.Duration, net netsim.Conditions) (fresh bool) {
	if cn.c == nil && !cn.dialing && now >= cn.nextAt {
		cn.dial(net)
	}
	select {
	case r := <-cn.results:
		cn.dialing = false
		if r.err != nil {
			cn.lastErr = fmt.Sprintf("cannot connect to %s: %v (retrying in %v)", cn.url, r.err, cn.redial)
			cn.log.add(0, cn.lastErr)
			cn.nextAt = now + cn.redial
			cn.redial = min(2*cn.redial, maxRedial)
			return false
		}
		cn.c, cn.redial, cn.lastErr = r.c, minRedial, ""
		if t := r.c.IssuedToken(); t != "" {
			cn.secret = t
			cn.log.add(0, "account created for "+cn.name+": the server issued its token")
			if cn.onIssuedToken != nil {
				cn.onIssuedToken(t)
			}
		}
		cn.log.add(0, "connected to "+cn.url)
		return true
	default:
		return false
	}
}

// lost reports whether the connection has ended; it then closes the client and
// schedules the next attempt. frame is the server frame to log the loss at.
func (cn *connection) lost(now time.Duration, frame uint64) bool {
	select {
	case <-cn.c.Done():
		err := cn.c.Err()
		cn.c.Close()
		cn.c = nil
		cn.lastErr = fmt.Sprintf("connection lost: %v (reconnecting)", err)
		cn.log.add(frame, cn.lastErr)
		cn.nextAt = now + cn.redial
		return true
	default:
		return false
	}
}

// close closes the connection and stops dialling.
func (cn *connection) close() error {
	if cn.cancel != nil {
		cn.cancel()
	}
	if cn.c != nil {
		err := cn.c.Close()
		cn.c = nil
		return err
	}
	return nil
}

package gameserver

import (
	"context"
	"net"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// connLimiter caps the server's open HTTP connections, in total and per remote
// address, through http.Server.ConnState (so the listener and its connections
// stay the plain types: tests tune their sockets). A connection that would go
// over a cap first makes room by closing the oldest connection that holds no
// request (accepted but silent, or an idle keep-alive) of the same address (per
// address cap) or of any (total cap); only when every counted connection is busy
// (a request in progress or a websocket session) is the new one closed at once.
// So a flood of idle connections churns itself and the health check still gets
// through, while a flood of busy ones is bounded. Websocket connections count
// until their session ends (release), not only until they are hijacked.
type connLimiter struct {
	maxTotal, maxPerAddr int

	mu      sync.Mutex
	conns   map[net.Conn]*limitedConn
	perAddr map[string]int
	seq     uint64 // orders the quiet connections: the lowest goes first

	open    prometheus.Gauge
	refused *prometheus.CounterVec
	evicted prometheus.Counter
}

type limitedConn struct {
	addr     string
	quiet    bool   // holds no request: new or idle
	since    uint64 // seq when it became quiet
	hijacked bool   // a websocket: counted until release
}

func newConnLimiter(maxTotal, maxPerAddr int, reg prometheus.Registerer) *connLimiter {
	l := &connLimiter{maxTotal: maxTotal, maxPerAddr: maxPerAddr,
		conns: map[net.Conn]*limitedConn{}, perAddr: map[string]int{},
		open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "twinframe_http_connections",
			Help: "Open HTTP connections, websocket sessions included."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_http_connections_refused_total",
			Help: "Connections closed at accept because a connection cap was reached and no connection was idle, by cap."},
			[]string{"cap"}),
		evicted: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_http_connections_evicted_total",
			Help: "Idle connections closed to make room for a new one under a connection cap."}),
	}
	reg.MustRegister(l.open, l.refused, l.evicted)
	return l
}

// addrOf is the remote host of c (the IP for TCP), the key of the per-address cap.
func addrOf(c net.Conn) string { return hostOf(c.RemoteAddr().String()) }

// connState is the http.Server.ConnState hook.
func (l *connLimiter) connState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateNew:
		l.admit(c)
	case http.StateActive, http.StateHijacked:
		if lc := l.conns[c]; lc != nil {
			lc.quiet, lc.hijacked = false, st == http.StateHijacked
		}
	case http.StateIdle:
		if lc := l.conns[c]; lc != nil {
			l.seq++
			lc.quiet, lc.since = true, l.seq
		}
	case http.StateClosed:
		l.forget(c)
	}
}

// admit runs with l.mu held for a connection just accepted.
func (l *connLimiter) admit(c net.Conn) {
	addr := addrOf(c)
	if l.maxPerAddr > 0 && l.perAddr[addr] >= l.maxPerAddr && !l.evictQuiet(addr) {
		l.refused.WithLabelValues("per_address").Inc()
		_ = c.Close()
		return
	}
	if l.maxTotal > 0 && len(l.conns) >= l.maxTotal && !l.evictQuiet("") {
		l.refused.WithLabelValues("total").Inc()
		_ = c.Close()
		return
	}
	l.seq++
	l.conns[c] = &limitedConn{addr: addr, quiet: true, since: l.seq}
	l.perAddr[addr]++
	l.open.Set(float64(len(l.conns)))
}

// evictQuiet closes the oldest quiet connection (of addr, or of any address when
// addr is empty) and reports whether there was one. A scan is fine: it runs only
// at a cap, and a cap is a few thousand connections.
func (l *connLimiter) evictQuiet(addr string) bool {
	var victim net.Conn
	var oldest uint64
	for c, lc := range l.conns {
		if lc.quiet && (addr == "" || lc.addr == addr) && (victim == nil || lc.since < oldest) {
			victim, oldest = c, lc.since
		}
	}
	if victim == nil {
		return false
	}
	l.forget(victim)
	_ = victim.Close()
	l.evicted.Inc()
	return true
}

// forget runs with l.mu held.
func (l *connLimiter) forget(c net.Conn) {
	lc := l.conns[c]
	if lc == nil {
		return
	}
	delete(l.conns, c)
	if l.perAddr[lc.addr]--; l.perAddr[lc.addr] <= 0 {
		delete(l.perAddr, lc.addr)
	}
	l.open.Set(float64(len(l.conns)))
}

// release forgets a hijacked connection whose websocket session has ended (the
// server reports no StateClosed for it).
func (l *connLimiter) release(c net.Conn) {
	if l == nil || c == nil {
		return
	}
	l.mu.Lock()
	if lc := l.conns[c]; lc != nil && lc.hijacked {
		l.forget(c)
	}
	l.mu.Unlock()
}

// counts returns the open connections in total and those of addr.
func (l *connLimiter) counts(addr string) (total, ofAddr int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns), l.perAddr[addr]
}

type connKey struct{}

// withConn is the http.Server.ConnContext hook: it lets the /ws handler find the
// connection it hijacks, to release it when the session ends.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

func connOf(r *http.Request) net.Conn {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	return c
}

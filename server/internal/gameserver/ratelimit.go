package gameserver

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"sync"
	"time"
)

// tokenBucket is a token bucket: it holds at most burst tokens and gains rate a
// second; a request takes one. The zero value is full.
type tokenBucket struct {
	tokens float64
	last   time.Time
	used   bool // the bucket has been taken from (a zero bucket is full)
}

// take takes a token at now; when there is none it reports how long until one.
func (b *tokenBucket) take(now time.Time, rate, burst float64) (bool, time.Duration) {
	b.refill(now, rate, burst)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	if rate <= 0 {
		return false, time.Duration(math.MaxInt64)
	}
	return false, time.Duration((1 - b.tokens) / rate * float64(time.Second))
}

func (b *tokenBucket) refill(now time.Time, rate, burst float64) {
	if !b.used {
		b.used, b.tokens, b.last = true, burst, now
		return
	}
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()*rate)
		b.last = now
	}
}

// full reports whether the bucket would be full at now (it can be forgotten).
func (b *tokenBucket) full(now time.Time, rate, burst float64) bool {
	return !b.used || b.tokens+now.Sub(b.last).Seconds()*rate >= burst
}

// addrLimiter is a token bucket per client address, shared by every session and
// HTTP request from that address.
type addrLimiter struct {
	rate, burst float64
	mu          sync.Mutex
	m           map[string]*tokenBucket
}

// maxAddrBuckets bounds the limiter's memory: beyond it, full buckets (which
// limit nothing) are forgotten.
const maxAddrBuckets = 1 << 14

func (l *addrLimiter) take(addr string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*tokenBucket{}
	}
	b := l.m[addr]
	if b == nil {
		if len(l.m) >= maxAddrBuckets {
			for a, o := range l.m {
				if o.full(now, l.rate, l.burst) {
					delete(l.m, a)
				}
			}
		}
		b = &tokenBucket{}
		l.m[addr] = b
	}
	return b.take(now, l.rate, l.burst)
}

// dumpLimiter applies the xdump rate limits: per session (Config.XDumpRate,
// XDumpBurst) and per client address (XDumpAddrRate, XDumpAddrBurst), which
// anonymous HTTP dumps share with the sessions of that address.
type dumpLimiter struct {
	rate, burst float64
	addr        addrLimiter
	now         func() time.Time
}

func newDumpLimiter(cfg *Config) *dumpLimiter {
	return &dumpLimiter{rate: cfg.XDumpRate, burst: float64(cfg.XDumpBurst),
		addr: addrLimiter{rate: cfg.XDumpAddrRate, burst: float64(cfg.XDumpAddrBurst)}, now: time.Now}
}

// allowSession takes a token of the session's bucket and of its address's; when
// either has none it says why (and takes none).
func (l *dumpLimiter) allowSession(b *tokenBucket, addr string) (bool, string) {
	now := l.now()
	ok, wait := b.take(now, l.rate, l.burst)
	if !ok {
		return false, fmt.Sprintf("xdump limit of %g a second per session (bursts of %g); retry in %v",
			l.rate, l.burst, wait.Round(time.Millisecond))
	}
	if ok, wait := l.addr.take(addr, now); !ok {
		b.tokens++ // give the session's token back
		return false, fmt.Sprintf("xdump limit of %g a second per address (bursts of %g); retry in %v",
			l.addr.rate, l.addr.burst, wait.Round(time.Millisecond))
	}
	return true, ""
}

// allowAddr takes a token of an address's bucket, or says how long until one.
func (l *dumpLimiter) allowAddr(addr string) (bool, time.Duration) {
	return l.addr.take(addr, l.now())
}

// clientAddr is the address rate limits key on: the request's remote host
// (without port, so that every connection of a host shares it).
func clientAddr(r *http.Request) string { return hostOf(r.RemoteAddr) }

// hostOf is the host part of a "host:port" address: the one key of every
// per-address limit (connections, dumps), so that they count the same clients.
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

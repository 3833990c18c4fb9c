package gameserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/xdump"
)

// Handler returns the server's HTTP handler: / (status page, or page when not
// nil), /ws, /metrics, /healthz, /xdump and /debug/pprof/ (deity token), behind
// the Host check (checkHost) and per-request deadlines. Serve it with
// HTTPServer, which adds the connection limits and timeouts.
func (s *Server) Handler(page http.Handler) http.Handler {
	mux := http.NewServeMux()
	if page != nil {
		mux.Handle("/", page)
		mux.HandleFunc("GET /status", s.serveStatus)
	} else {
		mux.HandleFunc("GET /{$}", s.serveStatus)
	}
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		defer s.lim.release(connOf(r))
		s.serveWS(w, r)
	})
	mux.Handle("GET /metrics", s.metricsAuth(s.metrics))
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.HandleFunc("GET /xdump", s.serveXdump)
	mux.Handle("/debug/pprof/", s.deityOnly(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/cmdline", s.deityOnly(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("/debug/pprof/profile", s.deityOnly(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", s.deityOnly(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", s.deityOnly(http.HandlerFunc(pprof.Trace)))
	return s.checkHost(withDeadlines(mux))
}

// TokenCookie is the cookie that may carry the deity (or metrics) token.
const TokenCookie = "twinframe_token"

// token returns the token a request carries: "Authorization: Bearer T", the
// cookie TokenCookie, or ?token=T. The query form stays for tools that cannot
// set a header (go tool pprof URLs, a browser's address bar); the server never
// logs request URLs, but proxies and browser histories may, so the header or
// cookie is the one to use.
func token(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return strings.TrimPrefix(h, "Bearer "), true
	}
	if c, err := r.Cookie(TokenCookie); err == nil && c.Value != "" {
		return c.Value, true
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	return "", false
}

// metricsAuth requires Config.MetricsToken (or the deity token) when one is set.
func (s *Server) metricsAuth(h http.Handler) http.Handler {
	if s.cfg.MetricsToken == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := token(r)
		if !ok || subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.MetricsToken)) != 1 && !s.checkToken(t) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="twinframe metrics"`)
			http.Error(w, "metrics token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// deityRequest reports whether r carries the deity token. A request with a
// wrong token is answered 401 here and ok is false: a bad token is refused,
// not served as anonymous.
func (s *Server) deityRequest(w http.ResponseWriter, r *http.Request) (deity, ok bool) {
	t, has := token(r)
	if !has {
		return false, true
	}
	if !s.checkToken(t) {
		http.Error(w, "bad deity token", http.StatusUnauthorized)
		return false, false
	}
	return true, true
}

func (s *Server) deityOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, ok := token(r); !ok || !s.checkToken(t) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="twinframe deity"`)
			http.Error(w, "deity token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveHealth answers 200 "ok frame N" while the frame loop runs and the store
// takes saves, else 503 with the reason. A degraded store (saves failing and being
// retried: full disk, unwritable file) is a 503 so that a load balancer sends new
// players elsewhere: their progress would not be saved here. Use it for readiness,
// not liveness: restarting a degraded server loses the saves it is holding.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	t := s.timings.summary()
	select {
	case <-s.done:
		http.Error(w, "stopping", http.StatusServiceUnavailable)
		return
	default:
	}
	if !s.running.Load() {
		http.Error(w, "frame loop not running", http.StatusServiceUnavailable)
		return
	}
	if h := s.saver.health(); h.degraded != nil {
		http.Error(w, fmt.Sprintf("store degraded: %v; %d avatar saves waiting, oldest for %s",
			h.degraded, h.waiting, h.oldest.Round(time.Second)), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintf(w, "ok frame %d\n", t.LastFrame)
}

// serveXdump answers GET /xdump?q=COMMAND with a live dump: with the deity
// token, the deity view; without, the anonymous view, which has no area of
// interest and so holds no entity rows (configuration tables only). Anonymous
// requests share their address's xdump rate limit with its sessions: over it,
// 429 Too Many Requests with Retry-After.
func (s *Server) serveXdump(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if q == "" {
		http.Error(w, "usage: /xdump?q="+xdump.Usage, http.StatusBadRequest)
		return
	}
	if !strings.HasPrefix(q, "xdump ") {
		q = "xdump " + q
	}
	deity, ok := s.deityRequest(w, r)
	if !ok {
		return
	}
	if !deity {
		if ok, wait := s.dumpLimits.allowAddr(clientAddr(r)); !ok {
			s.metrics.xdumps.WithLabelValues("rate_limited").Inc()
			w.Header().Set("Retry-After", strconv.Itoa(int(max(1, math.Ceil(wait.Seconds())))))
			http.Error(w, fmt.Sprintf("xdump limit of %g a second per address (bursts of %g)",
				s.dumpLimits.addr.rate, s.dumpLimits.addr.burst), http.StatusTooManyRequests)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	text, err := s.httpDump(ctx, q, deity)
	switch {
	case errors.Is(err, errDumpBusy):
		s.metrics.xdumps.WithLabelValues("busy").Inc()
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	case errors.Is(err, ErrStopped) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.metrics.xdumps.WithLabelValues("ok").Inc()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, text)
}

type statusRegion struct {
	ID       int32
	Name     string
	Entities int
	Players  int
	Node     string        // in a cluster: the node that runs it ("none" while nobody holds it)
	StepP50  time.Duration // the region's step and replication, over the recent frames
	StepP99  time.Duration
	Frame    uint64 // the region's own frame count (regions count apart: docs/ARCHITECTURE.md §10); 0 when not run here
}

type statusSession struct {
	ID      uint64
	Name    string
	Role    string
	Region  string
	Avatar  sim.EntityID
	X, Y    float32
	Visible int
	Ack     uint32
}

type statusPage struct {
	Node     string // this server's node name in a cluster
	Frame    uint64
	Paused   bool
	Regions  []statusRegion
	Deity    bool            // the request carried the deity token: Sessions are listed
	Players  int             // sessions in the game
	Sessions []statusSession // names and positions: deity only
	Timings  frameTimings
}

var statusTmpl = template.Must(template.New("status").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Twinframe server</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}</style>
</head><body>
<h1>Twinframe server{{if .Node}}, node {{.Node}}{{end}}</h1>
<p>Game frame {{.Frame}} (of the first region it runs; each region's is in the table){{if .Paused}} (paused){{end}}. Websocket at <code>/ws</code>; <a href="/metrics">metrics</a>, <a href="/healthz">health</a>, <a href="/xdump?q=table+*">xdump</a>.</p>
<h2>Regions</h2>
<table><tr><th>id</th><th>name</th><th>entities</th><th>players</th><th>node</th><th>frame p50</th><th>frame p99</th><th>game frame</th></tr>
{{range .Regions}}<tr><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Entities}}</td><td>{{.Players}}</td><td>{{if .Node}}{{.Node}}{{else}}—{{end}}</td><td>{{.StepP50}}</td><td>{{.StepP99}}</td><td>{{if .Frame}}{{.Frame}}{{else}}—{{end}}</td></tr>{{end}}
</table>
<h2>Sessions ({{.Players}})</h2>
{{if .Deity}}<table><tr><th>session</th><th>name</th><th>role</th><th>avatar</th><th>region</th><th>x</th><th>y</th><th>in view</th><th>last input</th></tr>
{{range .Sessions}}<tr><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Role}}</td><td>{{.Avatar}}</td><td>{{.Region}}</td><td>{{printf "%.2f" .X}}</td><td>{{printf "%.2f" .Y}}</td><td>{{.Visible}}</td><td>{{.Ack}}</td></tr>{{end}}
</table>{{else}}<p>Names and positions need the deity token (Authorization: Bearer, or the cookie ` + TokenCookie + `).</p>{{end}}
<h2>Frame timings (last {{if lt .Timings.Frames 200}}{{.Timings.Frames}}{{else}}200{{end}} frames)</h2>
<table><tr><th></th><th>p50</th><th>p99</th><th>max</th></tr>
<tr><td>duration</td><td>{{.Timings.DurP50}}</td><td>{{.Timings.DurP99}}</td><td>{{.Timings.DurMax}}</td></tr>
<tr><td>lateness</td><td>{{.Timings.LateP50}}</td><td>{{.Timings.LateP99}}</td><td>{{.Timings.LateMax}}</td></tr>
</table>
<p>Loop frames run: {{.Timings.Frames}}; frames dropped: {{.Timings.Dropped}}.</p>
</body></html>
`))

// serveStatus serves the status page: counts and timings to anyone, the
// sessions' names and positions to the deity only.
func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request) {
	deity, ok := s.deityRequest(w, r)
	if !ok {
		return
	}
	var p statusPage
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	err := s.do(ctx, func() { p = s.status() })
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	p.Timings = s.timings.summary()
	s.regionNodes(p.Regions)
	p.Deity, p.Players = deity, len(p.Sessions)
	if !deity {
		p.Sessions = nil
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = statusTmpl.Execute(w, &p)
}

// status runs in the loop.
func (s *Server) status() statusPage {
	p := statusPage{Node: s.nodeName(), Frame: s.frameNumber(), Paused: s.paused}
	for k, r := range s.regions {
		sr := statusRegion{ID: r.id, Name: r.name, Entities: len(r.game.Entities())}
		if r.live {
			sr.Node, sr.Frame = s.nodeName(), r.game.Frame()
		} else {
			sr.Entities = 0 // not run here
		}
		for _, c := range s.sessions {
			if c.reg == r && c.joined {
				sr.Players++
			}
		}
		sr.StepP50, sr.StepP99 = s.timings.regionSummary(k)
		p.Regions = append(p.Regions, sr)
	}
	for _, c := range s.sessions {
		ss := statusSession{ID: c.id, Name: c.name, Role: strings.TrimPrefix(c.role.String(), "ROLE_"),
			Avatar: c.avatar, Visible: len(c.view.Visible()), Ack: c.view.Ack()}
		if c.reg != nil {
			ss.Region = c.reg.name
			if e := c.reg.game.Entity(c.avatar); e != nil {
				ss.X, ss.Y = e.Pos()[0], e.Pos()[1]
			}
		}
		p.Sessions = append(p.Sessions, ss)
	}
	return p
}

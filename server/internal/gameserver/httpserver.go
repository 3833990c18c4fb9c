package gameserver

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTP timeouts. Websocket sessions are exempt from the per-request ones: their
// own timeouts (LoginTimeout, WriteTimeout per packet, IdleTimeout) govern them.
const (
	// HTTPReadHeaderTimeout bounds the wait for a request's headers, on a new
	// connection and on a kept-alive one once its first byte arrived.
	HTTPReadHeaderTimeout = 10 * time.Second
	// HTTPReadTimeout bounds reading a whole request (no route takes a body).
	HTTPReadTimeout = 30 * time.Second
	// HTTPWriteTimeout bounds writing a response: room for the 3 MB compressed
	// viewer at 25 KB/s. A CPU profile or trace gets its duration on top.
	HTTPWriteTimeout = 2 * time.Minute
)

// HTTPServer returns the http.Server every command and test serves the game with:
// Handler(page), the timeouts above, Config.HTTPIdleTimeout for kept-alive
// connections, and Config.MaxConns / MaxConnsPerAddr enforced on every connection
// (connLimiter). Serve it on any listener: hs.Serve(ln).
func (s *Server) HTTPServer(page http.Handler) *http.Server {
	s.limOnce.Do(func() {
		s.lim = newConnLimiter(s.cfg.MaxConns, s.cfg.MaxConnsPerAddr, s.metrics.registry)
	})
	return &http.Server{
		Handler:           s.Handler(page),
		ReadHeaderTimeout: HTTPReadHeaderTimeout,
		IdleTimeout:       s.cfg.HTTPIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         s.lim.connState,
		ConnContext:       withConn,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
}

// withDeadlines sets the read and write deadlines of each request on its
// connection (http.Server's own ReadTimeout and WriteTimeout would also cut
// websocket sessions and long profiles).
func withDeadlines(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.URL.Path == "/ws" {
			// Clear what an earlier request on this connection set.
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Time{})
		} else {
			now := time.Now()
			_ = rc.SetReadDeadline(now.Add(HTTPReadTimeout))
			_ = rc.SetWriteDeadline(now.Add(writeTimeout(r)))
		}
		h.ServeHTTP(w, r)
	})
}

// writeTimeout is HTTPWriteTimeout, plus the ?seconds= of a pprof profile or
// trace (at most an hour), which writes only at its end.
func writeTimeout(r *http.Request) time.Duration {
	switch r.URL.Path {
	case "/debug/pprof/profile", "/debug/pprof/trace":
		if sec, err := strconv.ParseFloat(r.URL.Query().Get("seconds"), 64); err == nil && sec > 0 {
			return HTTPWriteTimeout + time.Duration(min(sec, 3600)*float64(time.Second))
		}
		return HTTPWriteTimeout + 30*time.Second // pprof's default duration
	}
	return HTTPWriteTimeout
}

// LoopbackHosts are the Host names a server answers to by default.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// checkHost answers 421 Misdirected Request to a request whose Host is not one
// of Config.AllowHosts: a page of another site whose name was made to resolve to
// this server (DNS rebinding) sends its own name, and must not reach /ws,
// /status or /xdump. /healthz, which tells nothing, answers any Host, for probes
// that address the server by IP.
func (s *Server) checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && !hostAllowed(s.cfg.AllowHosts, r.Host) {
			http.Error(w, fmt.Sprintf("Host %q is not a name of this server (server serve -allow-host)", r.Host),
				http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// normHost returns host (with or without a port, IPv6 with or without brackets)
// lower-cased, without port, brackets or a trailing dot.
func normHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// hostAllowed matches a request's Host against patterns: a name or address, "*"
// (any) or "*.example.com" (any subdomain of example.com).
func hostAllowed(patterns []string, host string) bool {
	h := normHost(host)
	if h == "" {
		return false
	}
	for _, p := range patterns {
		switch {
		case p == "*":
			return true
		case strings.HasPrefix(p, "*."):
			if strings.HasSuffix(h, normHost(p[1:])) {
				return true
			}
		case normHost(p) == h:
			return true
		}
	}
	return false
}

// IsWildcardHost reports whether a listen address's host is every interface
// ("", 0.0.0.0, ::): a server listening there cannot know its own names.
func IsWildcardHost(host string) bool {
	if host == "" {
		return true
	}
	ip := net.ParseIP(normHost(host))
	return ip != nil && ip.IsUnspecified()
}

package gameserver

import (
	"fmt"
	"time"

	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// Defaults of the admission and HTTP limits (Config).
const (
	// DefaultMaxPlayers keeps the game well below what the default world's spawn
	// area holds: 861 avatars standing around its 4 spawn points fill it (measured
	// with spawnAtPoints on an empty world), and saved avatars come back where
	// they logged out, wherever that is.
	DefaultMaxPlayers = 500
	// DefaultIdleTimeout logs out a player who sent no input for this long.
	DefaultIdleTimeout = 10 * time.Minute
	// DefaultMaxConns and DefaultMaxConnsPerAddr cap open HTTP connections
	// (websockets included): far above DefaultMaxPlayers, far below the usual
	// descriptor limit, and per address room for a household or office behind
	// one NAT.
	DefaultMaxConns        = 4096
	DefaultMaxConnsPerAddr = 256
	// DefaultHTTPIdleTimeout closes kept-alive connections idle this long.
	DefaultHTTPIdleTimeout = time.Minute
)

// netDefaults fills the admission and HTTP fields of Config.
func (c *Config) netDefaults() {
	setDefault(&c.MaxPlayers, DefaultMaxPlayers)
	setDefault(&c.IdleTimeout, DefaultIdleTimeout)
	setDefault(&c.MaxConns, DefaultMaxConns)
	setDefault(&c.MaxConnsPerAddr, DefaultMaxConnsPerAddr)
	setDefault(&c.HTTPIdleTimeout, DefaultHTTPIdleTimeout)
	if len(c.AllowHosts) == 0 {
		c.AllowHosts = LoopbackHosts
	}
}

// admit runs in the loop before a session gets an avatar: a player is refused
// with ERROR_CODE_SERVER_FULL when MaxPlayers players are in the game (join asks
// only for a session that does not take over its older session's avatar). The
// deity is always admitted and not counted.
func (s *Server) admit(c *session) bool {
	if s.cfg.MaxPlayers < 0 || c.role == pb.Role_ROLE_DEITY {
		return true
	}
	n := 0
	for _, o := range s.sessions {
		if o.role != pb.Role_ROLE_DEITY && !o.closed() {
			n++
		}
	}
	if n < s.cfg.MaxPlayers {
		return true
	}
	c.fail(pb.ErrorCode_ERROR_CODE_SERVER_FULL, fmt.Sprintf("server full (%d players); try again later", s.cfg.MaxPlayers))
	return false
}

// kickIdle runs in the loop every frame: a player whose acknowledged input has
// not advanced for IdleTimeout of the loop's clock is logged out with
// ERROR_CODE_IDLE. Pings and requests do not count (an open tab left alone still
// pings); the deity, an observer, is never idle-kicked.
func (s *Server) kickIdle() {
	if s.cfg.IdleTimeout < 0 {
		return
	}
	now := s.cfg.Clock.Now()
	for _, c := range s.sessions {
		switch {
		case c.role == pb.Role_ROLE_DEITY || c.closed():
		case !c.idleSeen || c.view.Ack() != c.idleAck:
			c.idleSeen, c.idleAck, c.activeAt = true, c.view.Ack(), now
		case now-c.activeAt >= s.cfg.IdleTimeout:
			c.fail(pb.ErrorCode_ERROR_CODE_IDLE, fmt.Sprintf("no input for %v", s.cfg.IdleTimeout))
		}
	}
}

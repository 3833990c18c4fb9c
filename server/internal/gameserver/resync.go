package gameserver

import (
	"fmt"
	"slices"
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
)

// A client whose replica found inconsistent data (an update or destroy of an
// entity it does not hold, a region whose tables do not match their hash) sends
// NetMessageResyncRequest. The server answers at the frame boundary that drains
// it with what a fresh join gets: the login result and the region change in one
// packet, and, in that frame's packet, creates of everything in the client's
// area of interest, as if it held nothing. The client resets its world on the
// region change, so what follows is consistent by construction.
//
// An answer costs the region's tables (19 kB for the default world) and a create per
// entity in view, so requests are rate-limited per session: a burst of
// resyncBurst, then one per resyncPeriod of the loop's clock (a generic cell
// rate: each request pushes the session's theoretical arrival time on by a
// period). A client over the limit is disconnected as a flood.
const (
	resyncBurst  = 3
	resyncPeriod = 5 * time.Second
)

// resyncState is a session's rate limit on resync requests (loop-owned).
type resyncState struct {
	tat time.Duration // theoretical arrival time of the next request
	n   int           // requests answered
}

// allow reports whether a request at now is within the limit, and counts it.
func (r *resyncState) allow(now time.Duration) bool {
	tat := max(r.tat, now)
	if tat-now > (resyncBurst-1)*resyncPeriod {
		return false
	}
	r.tat = tat + resyncPeriod
	r.n++
	return true
}

// resync answers a resync request; it reports false when the session failed (a
// flood).
func (s *Server) resync(c *session, m *pb.NetMessageResyncRequest) bool {
	if !c.rs.allow(s.cfg.Clock.Now()) {
		c.fail(pb.ErrorCode_ERROR_CODE_FLOOD,
			fmt.Sprintf("more than %d resync requests in %v", resyncBurst, resyncBurst*resyncPeriod))
		return false
	}
	s.log.Info("resync", "session", c.id, "name", c.name, "reason", m.GetReason(),
		"detail", m.GetDetail(), "clientFrame", m.GetServerFrame(), "frame", s.frameNumber())
	// Forget the view: the next packet recomputes the AOI from nothing and
	// creates everything in it, the avatar included.
	c.reg.repl.Forget(&c.view)
	s.sendRegion(c)
	return !c.closed()
}

// sendRegion queues the packet a session gets when it joins: its login result
// and the region change (the configuration tables and their hash), built by
// replication.WriteJoin as the scripted server builds it.
func (s *Server) sendRegion(c *session) {
	var pk protocol.Packet
	pk.Limits = serverPacketLimits
	err := replication.WriteJoin(&pk, replication.Join{Avatar: c.avatar, Role: c.role, Token: c.issued, Region: s.regionChange(c.reg)})
	c.issued = "" // once: a resync's login result does not repeat it
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, err.Error())
		return
	}
	s.send(c, slices.Clone(pk.Bytes()), pk.Len())
}

package gameserver

import (
	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// Read-only views of the server's own bookkeeping for load tests and tools in
// the same process (server loadtest): what the frame loop measured, and what
// went over the wire, without scraping /metrics.

// FrameReports returns the frame reports the loop has recorded since the cursor
// next (0 at the start), and the cursor for the following call. The loop keeps
// only its last frames (the status page's ring), so a caller must call again
// before that many frames pass: lost says how many reports it missed.
func (s *Server) FrameReports(next int) (reports []frameclock.Report, cursor, lost int) {
	t := &s.timings
	t.mu.Lock()
	defer t.mu.Unlock()
	oldest := max(0, t.n-len(t.r))
	if next < oldest {
		lost, next = oldest-next, oldest
	}
	for i := next; i < t.n; i++ {
		reports = append(reports, t.r[i%len(t.r)])
	}
	return reports, t.n, lost
}

// Traffic is what the server's websockets carried, and how connections ended.
type Traffic struct {
	BytesIn, BytesOut       uint64            // websocket payload bytes received, and queued for sending
	MessagesIn, MessagesOut uint64            // protocol messages
	Disconnects             map[string]uint64 // connections ended, by reason (the metrics' labels)
}

// Traffic returns the totals since the server started. It is safe to call from
// any goroutine.
func (s *Server) Traffic() Traffic {
	out := Traffic{Disconnects: map[string]uint64{}}
	families, err := s.metrics.registry.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			v := uint64(m.GetCounter().GetValue())
			switch f.GetName() {
			case "twinframe_bytes_in_total":
				out.BytesIn = v
			case "twinframe_bytes_out_total":
				out.BytesOut = v
			case "twinframe_messages_in_total":
				out.MessagesIn = v
			case "twinframe_messages_out_total":
				out.MessagesOut = v
			case "twinframe_disconnects_total":
				for _, l := range m.GetLabel() {
					if l.GetName() == "reason" {
						out.Disconnects[l.GetValue()] += v
					}
				}
			}
		}
	}
	return out
}

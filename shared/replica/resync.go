package replica

import (
	"errors"
	"unicode/utf8"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// TakeResyncRequest returns the request for a fresh copy of the world that the
// client should send now, or nil: one per inconsistency, however many messages
// follow it, until the server's answer (a region change) arrives. The answer
// resets the world (entities and prediction; the input sequence goes on) and
// clears ResyncReason; the creates that follow it fill the world again.
func (r *Replica) TakeResyncRequest() *pb.NetMessageResyncRequest {
	if r.resync == nil || r.requested {
		return nil
	}
	r.requested = true
	r.stats.ResyncRequests++
	return &pb.NetMessageResyncRequest{Reason: ResyncCode(r.resync), Detail: truncate(r.resync.Error(), protocol.MaxResyncDetail),
		ServerFrame: r.frame}
}

// resynced is called when a region change has replaced the world: what was
// inconsistent is gone with it.
func (r *Replica) resynced() {
	if r.requested {
		r.stats.Resyncs++
	}
	r.resync, r.requested = nil, false
}

// ResyncCode returns the wire reason for err, one of the package's errors.
func ResyncCode(err error) pb.ResyncReason {
	for _, c := range [...]struct {
		err  error
		code pb.ResyncReason
	}{
		{ErrUnknownEntity, pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY},
		{ErrDuplicate, pb.ResyncReason_RESYNC_REASON_DUPLICATE},
		{ErrHashMismatch, pb.ResyncReason_RESYNC_REASON_HASH_MISMATCH},
		{ErrBadTables, pb.ResyncReason_RESYNC_REASON_BAD_TABLES},
		{ErrNoRegion, pb.ResyncReason_RESYNC_REASON_NO_REGION},
		{ErrBadArchive, pb.ResyncReason_RESYNC_REASON_BAD_ARCHIVE},
	} {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	if err == nil {
		return pb.ResyncReason_RESYNC_REASON_UNSPECIFIED
	}
	return pb.ResyncReason_RESYNC_REASON_OTHER
}

// truncate cuts s to at most n bytes on a UTF-8 boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

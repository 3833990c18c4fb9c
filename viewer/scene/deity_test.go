package scene

import (
	"errors"
	"slices"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// TestDeityRefused: without the deity token, or in the sandbox, a deity tool
// is refused with the reason before anything is sent.
func TestDeityRefused(t *testing.T) {
	t.Parallel()
	player := NewView(newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws"}))
	if err := player.Deity(DeityOp{Kind: DeityKill, Entity: 1}); !errors.Is(err, ErrNotDeity) {
		t.Errorf("player's kill: %v, want ErrNotDeity", err)
	}
	deity := NewView(newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws", DeityToken: "t"}))
	if err := deity.Deity(DeityOp{Kind: DeityPause}); err == nil || errors.Is(err, ErrNotDeity) {
		t.Errorf("deity's pause while not connected: %v, want not connected", err)
	}
	sandbox := NewView(testLocal(t))
	if err := sandbox.Deity(DeityOp{Kind: DeityPause}); !errors.Is(err, errNoDeityTools) {
		t.Errorf("sandbox's pause: %v", err)
	}
	if got := EditableTables(); !slices.Contains(got, "marker") || slices.Contains(got, "entity") || slices.Contains(got, "lost") ||
		slices.Contains(got, "meta") || slices.Contains(got, "marker-kind") {
		t.Errorf("EditableTables() = %v", got)
	}
}

// TestDeityReplies: the server's answers to the deity tools are counted and
// the newest kept; other messages are not answers. A refused command is known
// by its request id, whatever its text says.
func TestDeityReplies(t *testing.T) {
	t.Parallel()
	var d deityReplies
	for _, tc := range []struct {
		m      any
		answer bool
		text   string
		err    bool
	}{
		{&pb.NetMessageLiveEditResponse{RequestId: 2, Frame: 40}, true, "table edit 2 applied at frame 40", false},
		{&pb.NetMessageLiveEditResponse{RequestId: 3, Error: "zz-live-0002.config:4:7: bad"}, true, "table edit 3 refused: zz-live-0002.config:4:7: bad", true},
		{&pb.NetMessageLiveEditResponse{Error: "world w: 40-marker.config:10: x"}, true, "world directory refused: world w: 40-marker.config:10: x", true},
		{&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET, Text: "kill: sim: no such entity: 9", RequestId: 4}, true, "kill: sim: no such entity: 9", true},
		{&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET, Text: "unknown debug op 99", RequestId: 5}, true, "unknown debug op 99", true},
		{&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET, Text: "kill: an error of no command", InputSeq: 3}, false, "", false},
		{&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_RATE_LIMITED, Text: "xdump: too often"}, false, "", false},
		{&pb.NetMessagePong{}, false, "", false},
	} {
		before := d.n
		text, ok := d.answer(tc.m)
		if ok != tc.answer || text != tc.text {
			t.Errorf("%T: answer %q %v, want %q %v", tc.m, text, ok, tc.text, tc.answer)
		}
		var st Status
		d.report(&st, true)
		if tc.answer && (st.DeityReplies != before+1 || st.DeityReply != tc.text || st.DeityReplyError != tc.err || !st.Deity) {
			t.Errorf("%T: status %+v", tc.m, st)
		}
		if !tc.answer && st.DeityReplies != before {
			t.Errorf("%T counted as an answer", tc.m)
		}
	}
}

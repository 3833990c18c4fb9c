package loadtest

import (
	"sync/atomic"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// An xdump flood (-xdump-flood N): N of the bots also dump the whole world, table
// after table, as fast as the server's rate limits allow: each waits for its
// answer before the next request, and after a refusal (ERROR_CODE_RATE_LIMITED)
// waits floodBackoff, so that it stays a flood the limits shape and is never
// disconnected for ignoring them.

// floodBackoff is the wait after a refused dump: the per-session default rate.
const floodBackoff = 250 * time.Millisecond

// dumpTables are the tables a whole-world dump asks for, one request each.
func dumpTables() []string {
	var names []string
	for _, t := range world.New().Registry().Tables() {
		names = append(names, t.Name())
	}
	return names
}

// flooder is one bot's dump flood.
type flooder struct {
	answers chan *pb.NetMessageXDumpResponse
	ok      *atomic.Int64
	refused *atomic.Int64
}

// onMessage is the client's OnMessage hook: it passes dump answers on.
func (f *flooder) onMessage(m proto.Message) {
	if r, ok := m.(*pb.NetMessageXDumpResponse); ok {
		select {
		case f.answers <- r:
		default:
		}
	}
}

// run floods until stop or the client's end.
func (f *flooder) run(c *client.Client, stop <-chan struct{}) {
	tables := dumpTables()
	id := uint32(0)
	for i := 0; ; i++ {
		id++
		if c.Err() != nil || c.Send(&pb.NetMessageXDumpRequest{RequestId: id, Command: "xdump " + tables[i%len(tables)]}) != nil {
			return
		}
		var r *pb.NetMessageXDumpResponse
		for r == nil || r.RequestId != id {
			select {
			case r = <-f.answers:
			case <-stop:
				return
			case <-time.After(5 * time.Second):
				if c.Err() != nil {
					return
				}
			}
		}
		if r.Code == pb.ErrorCode_ERROR_CODE_RATE_LIMITED {
			f.refused.Add(1)
			select {
			case <-time.After(floodBackoff):
			case <-stop:
				return
			}
			continue
		}
		f.ok.Add(1)
	}
}

package scene

import (
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
)

// netConditions are the simulated network conditions of the networked source's
// connection, both ways; every new connection starts with them.
type netConditions struct {
	c netsim.Conditions
}

// set validates c and applies it to the connection (nil: none yet) and later ones.
func (nc *netConditions) set(c netsim.Conditions, conn *client.Client) error {
	if err := c.Validate(); err != nil {
		return err
	}
	nc.c = c
	if conn != nil {
		conn.SetNet(c, c)
	}
	return nil
}

// ReportNet puts conditions c in st as a view's status reports those in force.
func ReportNet(st *Status, c netsim.Conditions) { (&netConditions{c: c}).report(st) }

// report puts the conditions in the status.
func (nc *netConditions) report(st *Status) {
	st.NetLatencyMS = float32(nc.c.Latency.Seconds() * 1000)
	st.NetJitterMS = float32(nc.c.Jitter.Seconds() * 1000)
	st.NetBandwidth = nc.c.Bandwidth
	st.NetLossPct = float32(nc.c.Loss * 100)
}

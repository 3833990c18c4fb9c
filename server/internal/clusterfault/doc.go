// Package clusterfault holds the cluster's fault tests (docs/ARCHITECTURE.md
// §9–§10): node processes built from ./server, a real nats-server and a real
// PostgreSQL, killed with SIGKILL at random times and at named points of a
// handoff (gameserver.FaultEnv), after which every player must exist exactly once
// and nothing committed to the store may be lost. It has no code of its own
// outside its tests.
//
// go test (make test) runs 7 rounds of TestKillDuringHandoff, one of each kind
// (the four named points, and a random time for the source, the target and the
// nats-server); make test-faults runs 60 (-fault-rounds 60, seeded by -fault-seed).
package clusterfault

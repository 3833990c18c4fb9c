package gameserver

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Fault points are a test facility (server/internal/clusterfault): the fault
// tests kill a node at an exact step of a cross-node handoff (docs/ARCHITECTURE.md
// §10), which a kill from outside at a random time reaches only by luck. The
// environment variable FaultEnv, read once at start, names one point; a server
// process that reaches it kills itself with SIGKILL, as a crash there would.
// Unset, as it is outside those tests, nothing happens.
const FaultEnv = "TWINFRAME_FAULT"

// The points, in the order a handoff passes them.
const (
	// The source has emigrated the avatar and not yet asked the target.
	FaultSourceAfterEmigrate = "source-after-emigrate"
	// The target has moved the player's record to itself, not yet immigrated.
	FaultTargetAfterClaim = "target-after-claim"
	// The target runs the player and has not yet answered the source.
	FaultTargetAfterArrive = "target-after-arrive"
	// The source has the target's yes and has not yet dropped its session.
	FaultSourceAfterAnswer = "source-after-answer"
)

// FaultPoints lists the points FaultEnv may name.
var FaultPoints = []string{FaultSourceAfterEmigrate, FaultTargetAfterClaim, FaultTargetAfterArrive, FaultSourceAfterAnswer}

var faultAt = os.Getenv(FaultEnv)

// checkFault refuses a FaultEnv that names no point: a misspelt point would make
// a fault test pass without its fault.
func checkFault() error {
	if faultAt != "" && !slices.Contains(FaultPoints, faultAt) {
		return fmt.Errorf("%s=%q: no such fault point (want one of %s)", FaultEnv, faultAt, strings.Join(FaultPoints, ", "))
	}
	return nil
}

// fault kills this process when FaultEnv names point.
func fault(point string) {
	if faultAt != point {
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		panic("fault point " + point + ": " + err.Error())
	}
	select {} // the signal is on its way: nothing more happens here
}

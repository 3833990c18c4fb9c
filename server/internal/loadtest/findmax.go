package loadtest

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
)

// findMaxReport is the JSON report of -find-max: every run, and the answer.
type findMaxReport struct {
	HoldsRule string `json:"holdsRule"`
	// MaxBots is the largest count that held (0: not even the first).
	MaxBots int `json:"maxBots"`
	// FirstFailing is the smallest count that did not hold (0: none did not, up to -max-bots).
	FirstFailing int           `json:"firstFailing"`
	Runs         []*loadReport `json:"runs"`
}

// findMax runs load tests with more and more bots: from cfg.bots up by cfg.step
// until a run does not hold 20 Hz (or cfg.maxBots), then bisects between the
// last count that held and the first that did not, down to a gap of step/4
// (at least 1). Each run is a fresh server and store in this process.
func findMax(cfg loadConfig, log *slog.Logger, progress io.Writer) (*findMaxReport, error) {
	fm := &findMaxReport{HoldsRule: holdsRule}
	try := func(n int) (bool, error) {
		c := cfg
		c.bots, c.cpuProfile, c.memProfile, c.overload = n, "", "", 0
		runtime.GC()
		rep, err := runLoad(c, log)
		switch {
		case rep != nil && rep.WallSeconds == 0:
			fm.Runs = append(fm.Runs, rep)
			fmt.Fprintf(progress, "loadtest: find-max: %d bots: failed: %s\n", n, rep.Failure)
		case rep != nil:
			fm.Runs = append(fm.Runs, rep)
			fmt.Fprintf(progress, "loadtest: find-max: %d bots: frame p99 %.2f ms, lateness p99 %.3f ms, %d dropped, %d of %d connected: holds %v\n",
				n, rep.FrameDuration.P99Ms, rep.Lateness.P99Ms, rep.DroppedFrames, rep.Connected, n, rep.Holds)
		}
		switch {
		case errors.Is(err, errNotJoined):
			return false, nil // that many bots cannot even join
		case err != nil:
			return false, fmt.Errorf("%d bots: %w", n, err)
		}
		return rep.Holds, nil
	}
	var err error
	fm.MaxBots, fm.FirstFailing, err = searchMax(cfg.bots, cfg.step, cfg.maxBots, try)
	return fm, err
}

// searchMax returns the largest n that holds and the smallest that does not (0
// when none was found): it tries start, start+step, ... up to limit, then
// bisects between the last that held and the first that did not down to a gap
// of step/4 (at least 1). It assumes that holding is monotone in n.
func searchMax(start, step, limit int, holds func(n int) (bool, error)) (ok, fail int, err error) {
	for n := start; n <= limit; n += step {
		held, err := holds(n)
		if err != nil {
			return ok, fail, err
		}
		if !held {
			fail = n
			break
		}
		ok = n
	}
	gap := max(1, step/4)
	for fail > 0 && fail-ok > gap {
		n := (ok + fail) / 2
		held, err := holds(n)
		if err != nil {
			return ok, fail, err
		}
		if held {
			ok = n
		} else {
			fail = n
		}
	}
	return ok, fail, nil
}

func (fm *findMaxReport) summary(w io.Writer) {
	switch {
	case fm.MaxBots == 0 && fm.FirstFailing > 0:
		fmt.Fprintf(w, "loadtest: find-max: not even %d bots hold 20 Hz (%s)\n", fm.FirstFailing, fm.HoldsRule)
	case fm.FirstFailing == 0:
		fmt.Fprintf(w, "loadtest: find-max: every count tried held 20 Hz, up to %d bots (%s)\n", fm.MaxBots, fm.HoldsRule)
	default:
		fmt.Fprintf(w, "loadtest: find-max: %d bots hold 20 Hz, %d do not (%s)\n", fm.MaxBots, fm.FirstFailing, fm.HoldsRule)
	}
}

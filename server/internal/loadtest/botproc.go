package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/server/internal/harness"
)

// The bots run in a child process (`server loadtest-bots`, this same binary),
// so that the server's figures (its CPU, memory, and its frame loop's share of
// the Go scheduler) are the server's alone, as they would be on a server
// machine; the two processes still share the machine's cores. The child can be
// started under nice(1), so that the kernel favours the server when the cores
// are short: the bots are the load, not the thing measured.
//
// The parent talks to the child over its stdin and stdout, one line each way:
// the child prints a botStatus line once every bot has its avatar (or failed),
// then one for every "status" line it reads, and a last one when its stdin
// ends, after closing every client.

// botProcEnv marks the child: a test binary (whose main is the test runner)
// checks it in TestMain and runs the command line instead.
const botProcEnv = "TWINFRAME_LOADTEST_BOTPROC"

// botStatus is the child's report.
type botStatus struct {
	Err          string         `json:"err,omitempty"` // the join failed
	CPUNanos     int64          `json:"cpuNanos"`      // the child's CPU time so far (user+system)
	PeakRSSBytes int64          `json:"peakRSSBytes"`
	Connected    int            `json:"connected"`
	Ended        map[string]int `json:"ended"` // connections ended, by the client's error
	StepErrs     int64          `json:"stepErrors"`
	LateTicks    int64          `json:"lateTicks"`
	XDumpsOK     int64          `json:"xdumpsOK"`      // -xdump-flood: dumps answered
	XDumpsRefuse int64          `json:"xdumpsRefused"` // and refused (rate limited)
}

func (p *botPool) status() botStatus {
	st := botStatus{CPUNanos: int64(cputime.Process()), PeakRSSBytes: peakRSS()}
	st.Connected, st.Ended = p.connected()
	st.StepErrs, st.LateTicks = p.stepErrs.Load(), p.late.Load()
	st.XDumpsOK, st.XDumpsRefuse = p.dumpsOK.Load(), p.dumpsRefuse.Load()
	return st
}

// BotsCommand runs `server loadtest-bots ARGS...`, the bot process that Command
// starts by re-executing its own binary (os.Executable), so the binary's main
// must dispatch that command here; it is not in the usage.
func BotsCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("loadtest-bots", flag.ContinueOnError)
	fl.SetOutput(stderr)
	url := fl.String("url", "", "the server's websocket `url`")
	n := fl.Int("bots", 1, "bot `clients`")
	flood := fl.Int("xdump-flood", 0, "`bots` that also flood the server with xdump requests")
	seed := fl.Uint64("seed", 1, "`seed` of the bots")
	timeout := fl.Duration("join-timeout", time.Minute, "longest join")
	verbose := fl.Bool("v", false, "log the clients' messages")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 || *url == "" || *n <= 0 {
		fmt.Fprintln(stderr, "usage: server loadtest-bots -url URL -bots N [-seed S] [-join-timeout D] (started by server loadtest)")
		return 2
	}
	level := slog.LevelWarn + 100
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	enc := json.NewEncoder(stdout)
	pool, err := joinBots(context.Background(), *url, *n, *flood, *seed, *timeout, log)
	if err != nil {
		_ = enc.Encode(botStatus{Err: err.Error()})
		return 1
	}
	go pool.play(harness.FramePeriod)
	if enc.Encode(pool.status()) != nil {
		pool.close()
		return 1
	}
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		if in.Text() == "status" {
			if enc.Encode(pool.status()) != nil {
				break
			}
		}
	}
	pool.close()
	_ = enc.Encode(pool.status())
	return 0
}

// botProc is the parent's handle on the child.
type botProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *json.Decoder
	nice int
}

// startBotProc starts the child with n bots on url, at niceness nice (0: the
// parent's) when nice(1) is on PATH, and waits until they have joined.
func startBotProc(url string, n, flood int, seed uint64, joinTimeout time.Duration, nice int, verbose bool, stderr io.Writer) (*botProc, botStatus, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, botStatus{}, err
	}
	args := []string{exe, "loadtest-bots", "-url", url, "-bots", strconv.Itoa(n), "-xdump-flood", strconv.Itoa(flood), "-seed", strconv.FormatUint(seed, 10),
		"-join-timeout", joinTimeout.String(), "-v=" + strconv.FormatBool(verbose)}
	p := &botProc{}
	if nice != 0 {
		if path, err := exec.LookPath("nice"); err == nil {
			args = append([]string{path, "-n", strconv.Itoa(nice)}, args...)
			p.nice = nice
		}
	}
	p.cmd = exec.Command(args[0], args[1:]...)
	p.cmd.Env = append(os.Environ(), botProcEnv+"=1")
	p.cmd.Stderr = stderr
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, botStatus{}, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, botStatus{}, err
	}
	p.out = json.NewDecoder(out)
	if err := p.cmd.Start(); err != nil {
		return nil, botStatus{}, err
	}
	st, err := p.read()
	if err == nil && st.Err != "" {
		err = errors.New(st.Err)
	}
	if err != nil {
		_, _ = p.stop()
		return nil, st, fmt.Errorf("the bot process: %w", err)
	}
	return p, st, nil
}

func (p *botProc) read() (botStatus, error) {
	var st botStatus
	if err := p.out.Decode(&st); err != nil {
		return st, fmt.Errorf("the bot process: %w", err)
	}
	return st, nil
}

// status asks the child how its bots are.
func (p *botProc) status() (botStatus, error) {
	if _, err := io.WriteString(p.in, "status\n"); err != nil {
		return botStatus{}, err
	}
	return p.read()
}

// stop closes the child's bots and waits for it.
func (p *botProc) stop() (botStatus, error) {
	_ = p.in.Close()
	st, err := p.read()
	if werr := p.cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("the bot process: %w", werr)
	}
	return st, err
}

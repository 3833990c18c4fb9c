package clusterfault

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/internal/devproc"
	"github.com/twinframe/twinframe/internal/natstest"
	"github.com/twinframe/twinframe/internal/pgtest"
	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestMain removes the server binary built for the tests and stops the shared
// PostgreSQL after them.
func TestMain(m *testing.M) {
	code := natstest.Run(m)
	if build.bin != "" {
		_ = os.RemoveAll(filepath.Dir(build.bin))
	}
	if err := pgtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// slow bounds a broken step (a node that never serves, a login that never
// succeeds); nothing is timed against it.
const slow = 60 * time.Second

// The layout of every test: node a runs downtown, node b the wilds and the
// vault; the player shuttles between downtown and the wilds.
var (
	layout = map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	prefer = "downtown=a,wilds=b,vault=b"
)

var build struct {
	once sync.Once
	bin  string
	err  error
}

// serverBinary builds ./server once per test binary run.
func serverBinary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "clusterfault-")
		if err != nil {
			build.err = err
			return
		}
		// The node processes are this module's server, built as a user builds it.
		build.bin = filepath.Join(dir, "server")
		out, err := exec.Command("go", "build", "-o", build.bin, "github.com/twinframe/twinframe/server").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

// tcluster is a cluster of node processes over one nats-server and one
// PostgreSQL database.
type tcluster struct {
	t     *testing.T
	bin   string
	dir   string
	nats  *natstest.Server
	dsn   string
	st    store.Store
	kv    jetstream.KeyValue // the players bucket, read by the test
	token string
	lease time.Duration
	args  []string // extra serve flags
	// layout is where the regions run: the preferred nodes until a test
	// changes it.
	layout map[string]string

	mu    sync.Mutex
	nodes map[string]*node
}

// node is one node process.
type node struct {
	name  string
	fault string
	p     *devproc.Process
	url   string // http://127.0.0.1:PORT/
	log   string // its output
}

func startCluster(t *testing.T, lease time.Duration, args ...string) *tcluster {
	t.Helper()
	if _, err := os.Stat(filepath.Join(devproc.PostgresBinDir, "postgres")); err != nil {
		t.Skipf("PostgreSQL 15 is not installed: %v", err)
	}
	c := &tcluster{t: t, bin: serverBinary(t), dir: t.TempDir(), nats: natstest.Start(t), dsn: pgtest.DB(t),
		token: "0123456789abcdef0123456789abcdef", lease: lease, args: args, nodes: map[string]*node{}, layout: layout}
	st, err := store.OpenPostgres(context.Background(), c.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c.st = st
	t.Cleanup(c.stopAll)
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range []string{"a", "b"} {
				t.Logf("node %s's log ends:\n%s", n, tail(c.logOf(n)))
			}
		}
	})
	for _, n := range []string{"a", "b"} {
		c.start(n, "")
	}
	c.settle()
	nc, err := nats.Connect(c.nats.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.kv, err = js.KeyValue(ctx, cluster.PlayersBucket); err != nil {
		t.Fatal(err)
	}
	return c
}

var servingLine = regexp.MustCompile(`^twinframe: serving (http://127\.0\.0\.1:\d+/)$`)

// start starts node name (with fault point fault, "" for none) and waits until
// it serves. A node killed a moment ago is still a member until its key
// expires: the start is tried again until the name is free.
func (c *tcluster) start(name, fault string) {
	c.t.Helper()
	deadline := time.Now().Add(slow)
	for attempt := 0; ; attempt++ {
		n, err := c.try(name, fault, attempt)
		if err == nil {
			c.mu.Lock()
			c.nodes[name] = n
			c.mu.Unlock()
			return
		}
		if !strings.Contains(err.Error(), "live member") || time.Now().After(deadline) {
			c.t.Fatalf("start node %s: %v", name, err)
		}
		time.Sleep(c.lease / 4)
	}
}

func (c *tcluster) try(name, fault string, attempt int) (*node, error) {
	n := &node{name: name, fault: fault, log: filepath.Join(c.dir, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano()))}
	args := append([]string{"serve", "-cluster", c.nats.URL(), "-node", name, "-store", c.dsn, "-addr", "127.0.0.1:0",
		"-prefer", prefer, "-lease", c.lease.String(), "-open-login", "-wasm-dir", c.dir}, c.args...)
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "TWINFRAME_DEITY_TOKEN="+c.token, gameserver.FaultEnv+"="+fault)
	logf, err := os.Create(n.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, logf
	p, err := devproc.Start(cmd, syscall.SIGKILL) // a test that dies takes its nodes with it
	outW.Close()
	if err != nil {
		outR.Close()
		return nil, err
	}
	n.p = p
	url := make(chan string, 1)
	go func() {
		defer outR.Close()
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case url <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case n.url = <-url:
		return n, nil
	case <-p.Done():
		b, _ := os.ReadFile(n.log)
		return nil, fmt.Errorf("exited (%v): %s", p.Err(), tail(string(b)))
	case <-time.After(slow):
		p.KillGroup()
		return nil, errors.New("no URL printed")
	}
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 6000 {
		s = s[len(s)-6000:]
	}
	return s
}

func (c *tcluster) node(name string) *node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[name]
}

// alive reports whether node name's process runs.
func (c *tcluster) alive(name string) bool {
	n := c.node(name)
	if n == nil {
		return false
	}
	select {
	case <-n.p.Done():
		return false
	default:
		return true
	}
}

// running lists the nodes whose process runs.
func (c *tcluster) running() []string {
	var out []string
	for _, n := range []string{"a", "b"} {
		if c.alive(n) {
			out = append(out, n)
		}
	}
	return out
}

// kill ends node name with SIGKILL and waits until it is gone.
func (c *tcluster) kill(name string) {
	n := c.node(name)
	_ = n.p.Signal(syscall.SIGKILL)
	<-n.p.Done()
}

// stop ends node name with SIGTERM (it saves and leaves) and waits for it.
func (c *tcluster) stop(name string) {
	c.t.Helper()
	n := c.node(name)
	_ = n.p.Signal(syscall.SIGTERM)
	select {
	case <-n.p.Done():
	case <-time.After(slow):
		n.p.KillGroup()
		c.t.Fatalf("node %s did not stop", name)
	}
}

func (c *tcluster) stopAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		_ = n.p.Signal(syscall.SIGTERM)
	}
	for _, n := range c.nodes {
		select {
		case <-n.p.Done():
		case <-time.After(20 * time.Second):
			n.p.KillGroup()
		}
	}
}

// logOf is what node name has logged so far, in all its lives.
func (c *tcluster) logOf(name string) string {
	files, _ := filepath.Glob(filepath.Join(c.dir, name+"-*.log"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// status is a node's /status page, as the deity sees it.
type status struct {
	frame    uint64            // the first region's the node runs
	regions  map[string]string // region → node
	frames   map[string]uint64 // region → its frame, for the regions the node runs
	sessions []statusSession
	body     string
}

type statusSession struct {
	name, region string
	avatar       uint64
	pos          mgl32.Vec2
	ack          uint32 // the last input applied
}

var (
	frameRe   = regexp.MustCompile(`Game frame (\d+)`)
	regionRe  = regexp.MustCompile(`<tr><td>\d+</td><td>(\w+)</td><td>\d+</td><td>\d+</td><td>([^<]*)</td><td>[^<]*</td><td>[^<]*</td><td>(\d+|—)</td></tr>`)
	sessionRe = regexp.MustCompile(`<tr><td>\d+</td><td>([^<]*)</td><td>[A-Z_]+</td><td>(\d+)</td><td>([^<]*)</td><td>(-?[\d.]+)</td><td>(-?[\d.]+)</td><td>\d+</td><td>(\d+)</td>`)
	// /status looks up the owners of the regions a node does not run: while NATS
	// is down that takes the node its 5 s deadline.
	client = &http.Client{Timeout: 15 * time.Second}
)

func (c *tcluster) status(name string) (status, error) {
	n := c.node(name)
	if n == nil {
		return status{}, fmt.Errorf("no node %s", name)
	}
	req, err := http.NewRequest(http.MethodGet, n.url+"status", nil)
	if err != nil {
		return status{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := client.Do(req)
	if err != nil {
		return status{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return status{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return status{}, fmt.Errorf("%s: %s", resp.Status, b)
	}
	st := status{regions: map[string]string{}, frames: map[string]uint64{}, body: string(b)}
	if m := frameRe.FindSubmatch(b); m != nil {
		st.frame, _ = strconv.ParseUint(string(m[1]), 10, 64)
	}
	for _, m := range regionRe.FindAllStringSubmatch(st.body, -1) {
		st.regions[m[1]] = m[2]
		if f, err := strconv.ParseUint(m[3], 10, 64); err == nil {
			st.frames[m[1]] = f
		}
	}
	for _, m := range sessionRe.FindAllStringSubmatch(st.body, -1) {
		id, _ := strconv.ParseUint(m[2], 10, 64)
		x, _ := strconv.ParseFloat(m[4], 32)
		y, _ := strconv.ParseFloat(m[5], 32)
		ack, _ := strconv.ParseUint(m[6], 10, 32)
		st.sessions = append(st.sessions, statusSession{name: m[1], avatar: id, region: m[3], pos: mgl32.Vec2{float32(x), float32(y)}, ack: uint32(ack)})
	}
	return st, nil
}

// settle waits until both nodes run and each shows the layout's regions on
// their nodes.
func (c *tcluster) settle() {
	c.t.Helper()
	deadline := time.Now().Add(slow)
	for {
		var why string
		for _, n := range c.running() {
			st, err := c.status(n)
			if err != nil {
				why = fmt.Sprintf("%s: %v", n, err)
				break
			}
			if fmt.Sprint(st.regions) != fmt.Sprint(c.layout) {
				why = fmt.Sprintf("%s shows regions %v, want %v", n, st.regions, c.layout)
				break
			}
			// A node that holds a region's lease shows it before it has loaded its
			// save; it has no frame there until it steps it.
			for r, owner := range c.layout {
				if owner == n && st.frames[r] == 0 {
					why = n + " does not step " + r + " yet"
				}
			}
			if why != "" {
				break
			}
		}
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the cluster does not settle: %s", why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// owner is the node the players bucket names for player id ("" for none).
func (c *tcluster) owner(id int64) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := c.kv.Get(ctx, "p"+strconv.FormatInt(id, 10))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(e.Value()), nil
}

// runs returns where player name runs: its sessions with an avatar in a region,
// over every node (node → region).
func (c *tcluster) runs(name string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range c.running() {
		st, err := c.status(n)
		if err != nil {
			return nil, err
		}
		for _, s := range st.sessions {
			if s.name == name && s.region != "" {
				if _, twice := out[n]; twice {
					return nil, fmt.Errorf("%s runs %s twice", n, name)
				}
				out[n] = s.region
			}
		}
	}
	return out, nil
}

// exactlyOnce waits until player p runs on exactly one node, the one its record
// names, in a region that node runs; it fails when that does not come.
func (c *tcluster) exactlyOnce(p store.Player) (node, region string) {
	c.t.Helper()
	deadline := time.Now().Add(slow)
	for {
		node, region, why := c.once(p)
		if why == "" {
			return node, region
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("player %s does not exist exactly once: %s", p.Name, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// once says why player p does not exist exactly once now ("": it does, on node
// in region).
func (c *tcluster) once(p store.Player) (node, region, why string) {
	runs, err := c.runs(p.Name)
	owner, oerr := c.owner(p.ID)
	switch {
	case err != nil:
		return "", "", err.Error()
	case oerr != nil:
		return "", "", oerr.Error()
	case len(runs) != 1:
		return "", "", fmt.Sprintf("%s runs on %d nodes: %v", p.Name, len(runs), runs)
	}
	for n, r := range runs {
		node, region = n, r
	}
	if owner != node {
		return node, region, fmt.Sprintf("%s runs on %s, its record names %q", p.Name, node, owner)
	}
	if c.layout[region] != node {
		return node, region, fmt.Sprintf("%s runs on %s in %s, which %s runs", p.Name, node, region, c.layout[region])
	}
	return node, region, ""
}

// player is the store's row of name.
func (c *tcluster) player(name string) store.Player {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := c.st.Player(ctx, name)
	if err != nil {
		c.t.Fatal(err)
	}
	return p
}

// savedRegion is the region of a stored avatar ("" before the first save).
func savedRegion(w *world.World, b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	a, err := archive.NewUnpacker(archive.Database, b)
	if err != nil {
		return "", err
	}
	var e sim.Entity
	a.TransferObject(&e)
	if err := a.Done(); err != nil {
		return "", err
	}
	for _, r := range w.Regions {
		if r.ID == e.Region() {
			return r.Name, nil
		}
	}
	return "", fmt.Errorf("saved avatar in region %d, which the world has not", e.Region())
}

// player's client: it logs in at a node, keeps its replica up to date and walks.
type player struct {
	t    *testing.T
	name string
	c    *tfclient.Client
	door string
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// login logs name in at door, trying again while the cluster cannot place it
// (its record names a node that is gone but still a member, a region nobody
// runs yet). It returns the region the login put the avatar in.
func (c *tcluster) login(name, door string) (*player, string) {
	c.t.Helper()
	deadline := time.Now().Add(slow)
	for {
		p, region, err := c.loginOnce(name, door)
		if err == nil {
			return p, region
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s cannot log in at %s: %v", name, door, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// loginOnce is one try of login: the server has 20 s to send the avatar.
func (c *tcluster) loginOnce(name, door string) (*player, string, error) {
	// A login that replaces a session still running goes on with its input
	// numbering (gameserver's join), which a new client starts again from 1: its
	// inputs up to the old session's last one would be refused as out of
	// sequence. The client spends those numbers first.
	var ack uint32
	for _, n := range []string{"a", "b"} {
		st, _ := c.status(n)
		for _, s := range st.sessions {
			if s.name == name {
				ack = max(ack, s.ack)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := tfclient.Dial(ctx, "ws"+strings.TrimPrefix(c.node(door).url, "http")+"ws", &tfclient.Options{Name: name})
	if err != nil {
		return nil, "", err
	}
	if err = cl.WaitReady(ctx); err != nil {
		cl.Close()
		return nil, "", err
	}
	for seq := uint32(0); seq < ack; seq++ {
		if err := cl.Stop(); err != nil {
			cl.Close()
			return nil, "", err
		}
	}
	p := &player{t: c.t, name: name, c: cl, door: door, stop: make(chan struct{}), done: make(chan struct{})}
	go p.pump()
	region := ""
	for _, ch := range cl.TakeRegionChanges(nil) {
		if !ch.Travel {
			region = regionName(ch.To)
			break
		}
	}
	return p, region, nil
}

var defaultWorld = func() *world.World {
	w, err := world.LoadDefault()
	if err != nil {
		panic(err)
	}
	return w
}()

func regionName(id int32) string {
	for _, r := range defaultWorld.Regions {
		if r.ID == id {
			return r.Name
		}
	}
	return "region " + strconv.Itoa(int(id))
}

// gateOf is the portal the player takes out of region: downtown's to the wilds,
// the wilds' back.
func gateOf(region string) mgl32.Vec2 {
	name := map[string]string{"downtown": "park-gate", "wilds": "meadow-gate"}[region]
	for _, tr := range defaultWorld.Transitions {
		if tr.Name == name {
			return tr.Pos
		}
	}
	panic("no portal out of " + region)
}

// pump keeps the client's replica and pings going until the player is closed.
func (p *player) pump() {
	defer close(p.done)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-p.c.Done():
			return
		case <-t.C:
			_ = p.c.Update()
		}
	}
}

func (p *player) connected() bool {
	select {
	case <-p.c.Done():
		return false
	default:
		return true
	}
}

// ready reports whether p's client has an avatar to control.
func (p *player) ready() (ok bool) {
	p.c.With(func(r *replica.Replica) { ok = r.Ready() })
	return ok
}

func (p *player) region() string {
	_, name := p.c.Region()
	return name
}

func (p *player) close() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		_ = p.c.Close()
	})
}

// where describes player name's sessions on every node, for failures.
func (c *tcluster) where(name string) string {
	var b strings.Builder
	for _, n := range []string{"a", "b"} {
		st, err := c.status(n)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v; ", n, err)
			continue
		}
		for _, s := range st.sessions {
			if s.name == name {
				fmt.Fprintf(&b, "%s: avatar %d in %q at %v; ", n, s.avatar, s.region, s.pos)
			}
		}
	}
	return b.String()
}

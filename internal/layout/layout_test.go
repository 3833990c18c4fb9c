package layout

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/twinframe/twinframe"

// listedPackage is the part of `go list -json` output the rules need.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Deps       []string
	Imports    []string
	GoFiles    []string
}

// goList runs `go list -deps -json` for the patterns with the given GOOS/GOARCH
// and returns every package in the build graph, keyed by import path.
func goList(t *testing.T, goos, goarch string, patterns ...string) map[string]listedPackage {
	t.Helper()
	args := append([]string{"list", "-deps", "-json"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v (GOOS=%s): %v\n%s", patterns, goos, err, stderr.String())
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if !fileExists(filepath.Join(dir, "go.mod")) {
		t.Fatalf("module root not found at %s", dir)
	}
	return dir
}

// rule says which packages a group of the module's packages may depend on.
type rule struct {
	name    string
	pattern string            // packages the rule applies to
	prefix  string            // import-path prefix of those packages
	allowed func(string) bool // for non-standard dependencies
	forbid  []string          // dependency prefixes that are never allowed
	wasm    bool              // the rule also holds for the GOOS=js GOARCH=wasm build
}

func own(prefix string) func(string) bool {
	return func(dep string) bool { return strings.HasPrefix(dep, module+prefix) }
}

func TestDependencyRules(t *testing.T) {
	t.Parallel()
	forbiddenEverywhereInShared := []string{
		"github.com/hajimehoshi/ebiten", "github.com/coder/websocket", "syscall/js",
		module + "/server", module + "/viewer", module + "/wasm",
	}
	harnesses := []string{module + "/server/internal/headless", module + "/server/internal/loadtest", module + "/server/internal/harness"}
	rules := []rule{
		{
			name: "shared imports only the standard library, mathgl and protobuf", pattern: "./shared/...", prefix: module + "/shared",
			allowed: func(dep string) bool {
				return own("/shared")(dep) || strings.HasPrefix(dep, "github.com/go-gl/mathgl/") ||
					strings.HasPrefix(dep, "google.golang.org/protobuf/")
			},
			forbid: forbiddenEverywhereInShared, wasm: true,
		},
		{
			name: "viewer never imports server", pattern: "./viewer/...", prefix: module + "/viewer",
			forbid: []string{module + "/server"}, wasm: true,
		},
		{
			name: "server never imports ebiten or the viewer", pattern: "./...", prefix: module + "/server",
			forbid: []string{"github.com/hajimehoshi/ebiten", module + "/viewer", module + "/wasm"},
		},
		// The harnesses drive the game server from outside, through its exported
		// hooks; the game and its store must build and run without them.
		{
			name: "the game server never imports the test harnesses", pattern: "./server/internal/gameserver/...", prefix: module + "/server/internal/gameserver",
			forbid: harnesses,
		},
		// The plain-protobuf messages exist to measure what archives save; only
		// benchmarks (test files, which go list -deps does not follow) import them.
		{
			name: "only tests import the benchmark baseline legacypb", pattern: "./...", prefix: module,
			forbid: []string{module + "/internal/legacypb"},
		},
		{
			name: "the store never imports the test harnesses", pattern: "./server/internal/store/...", prefix: module + "/server/internal/store",
			forbid: harnesses,
		},
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		for _, r := range rules {
			if target[0] == "js" && !r.wasm {
				continue // the server is native only; the viewer's wasm build is checked by its own main
			}
			pkgs := goList(t, target[0], target[1], r.pattern)
			for _, p := range pkgs {
				if !strings.HasPrefix(p.ImportPath, r.prefix) {
					continue
				}
				for _, dep := range p.Deps {
					if bad := violates(dep, pkgs[dep].Standard, r); bad != "" {
						t.Errorf("%s (GOOS=%s): %s depends on %s: %s", r.name, target[0], p.ImportPath, dep, bad)
					}
				}
				// The standard library itself uses syscall/js under wasm; what the rule
				// forbids is the module's code (or a third-party package) importing it.
				for _, dep := range append([]string{p.ImportPath}, p.Deps...) {
					if d := pkgs[dep]; !d.Standard && slices.Contains(d.Imports, "syscall/js") && slices.Contains(r.forbid, "syscall/js") {
						t.Errorf("%s (GOOS=%s): %s reaches syscall/js through %s", r.name, target[0], p.ImportPath, dep)
					}
				}
			}
		}
	}
}

func violates(dep string, standard bool, r rule) string {
	for _, f := range r.forbid {
		if f == "syscall/js" {
			continue // checked on direct imports
		}
		if dep == f || strings.HasPrefix(dep, f+"/") {
			return "forbidden dependency"
		}
	}
	if r.allowed != nil && !standard && !r.allowed(dep) {
		return "not on the allow-list"
	}
	return ""
}

// Non-deterministic sources the simulation must never touch (docs/ARCHITECTURE.md §6).
var forbiddenCalls = map[string]map[string]bool{
	"time": {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"Tick": true, "NewTimer": true, "NewTicker": true, "AfterFunc": true},
}

// math/rand/v2 is allowed only through explicitly seeded generators.
var allowedRandV2 = map[string]bool{"New": true, "NewPCG": true, "NewChaCha8": true,
	"NewZipf": true, "Rand": true, "PCG": true, "ChaCha8": true, "Source": true, "Zipf": true}

func TestSharedIsDeterministic(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, "shared"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, problem := range nondeterminism(f) {
			t.Errorf("%s: %s", fset.Position(problem.pos), problem.msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type problem struct {
	pos token.Pos
	msg string
}

func nondeterminism(f *ast.File) []problem {
	names := map[string]string{} // local name -> import path
	var out []problem
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
		if path == "math/rand" {
			out = append(out, problem{imp.Pos(), "math/rand has a global source; use a seeded math/rand/v2 generator owned by the game"})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch names[id.Name] {
		case "time":
			if forbiddenCalls["time"][sel.Sel.Name] {
				out = append(out, problem{sel.Pos(), "time." + sel.Sel.Name + " reads the wall clock; inject time instead"})
			}
		case "math/rand/v2":
			if !allowedRandV2[sel.Sel.Name] {
				out = append(out, problem{sel.Pos(), "rand." + sel.Sel.Name + " uses the global source; use a seeded generator"})
			}
		}
		return true
	})
	return out
}

func TestNondeterminismDetector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want int
	}{
		{"package p\nimport \"time\"\nvar _ = time.Now()", 1},
		{"package p\nimport \"time\"\nvar _ = time.Duration(3)", 0},
		{"package p\nimport \"math/rand\"\nvar _ = rand.Int()", 1},
		{"package p\nimport \"math/rand/v2\"\nvar _ = rand.IntN(3)", 1},
		{"package p\nimport \"math/rand/v2\"\nvar _ = rand.New(rand.NewPCG(1, 2))", 0},
		{"package p\nimport clock \"time\"\nvar _ = clock.Since(clock.Time{})", 1},
	}
	for _, tc := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(nondeterminism(f)); got != tc.want {
			t.Errorf("%q: %d problems, want %d", tc.src, got, tc.want)
		}
	}
}

// The viewer's wasm build never links an HTTP client or TLS: the browser has its own
// WebSocket and fetch, which the page uses (client's ws_js.go, wasm's readRecording),
// and net/http with crypto/tls (and the packages that brought them) were 1.7 MB of
// the wasm, 0.38 MB brotli, that a page downloaded for nothing (docs/ARCHITECTURE.md §2).
func TestWasmViewerLinksNoHTTP(t *testing.T) {
	t.Parallel()
	pkgs := goList(t, "js", "wasm", "./wasm")
	for _, bad := range []string{"net/http", "crypto/tls"} {
		if _, ok := pkgs[bad]; ok {
			t.Errorf("the viewer's wasm build (GOOS=js) links %s through %s: the page must use the browser's "+
				"WebSocket and fetch (syscall/js) instead, so that no HTTP client or TLS is downloaded with it",
				bad, strings.Join(importChain(pkgs, module+"/wasm", bad), " → "))
		}
	}
}

// importChain returns a shortest chain of imports from one package to another in
// pkgs (breadth first, imports in go list's order), or nil when there is none.
func importChain(pkgs map[string]listedPackage, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, imp := range pkgs[p].Imports {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

func TestImportChain(t *testing.T) {
	t.Parallel()
	pkgs := map[string]listedPackage{
		"a": {Imports: []string{"b", "c"}},
		"b": {Imports: []string{"d"}},
		"c": {Imports: []string{"e"}},
		"d": {Imports: []string{"e"}},
		"f": {Imports: []string{"a"}},
	}
	for _, tc := range []struct {
		from, to string
		want     []string
	}{
		{"a", "e", []string{"a", "c", "e"}},
		{"a", "d", []string{"a", "b", "d"}},
		{"a", "a", []string{"a"}},
		{"a", "f", nil},
	} {
		if got := importChain(pkgs, tc.from, tc.to); !slices.Equal(got, tc.want) {
			t.Errorf("importChain(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

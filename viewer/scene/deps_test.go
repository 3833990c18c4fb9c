package scene

import (
	"os/exec"
	"strings"
	"testing"
)

// The headless packages must stay free of ebiten (which panics at init without a
// display) and of the server, natively and for the wasm build.
func TestHeadlessDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go list; make test runs it")
	}
	for _, goos := range []string{"", "js"} {
		args := []string{"list", "-deps", "github.com/twinframe/twinframe/viewer/draw",
			"github.com/twinframe/twinframe/viewer/scene", "github.com/twinframe/twinframe/web"}
		cmd := exec.Command("go", args...)
		if goos == "js" {
			cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (GOOS=%s): %v\n%s", goos, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/hajimehoshi/ebiten") || strings.HasPrefix(dep, "github.com/twinframe/twinframe/server") {
				t.Errorf("GOOS=%q: a headless viewer package depends on %s", goos, dep)
			}
		}
	}
}

package protocol

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGeneratedCodeIsFresh regenerates every .proto into a temporary directory
// with scripts/genproto.sh and fails when a committed .pb.go differs, is
// missing, or has no .proto any more.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("js/wasm cannot run protoc; the native test run checks the generated code")
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc is not installed (make setup installs protobuf-compiler); cannot check generated code")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "scripts", "genproto.sh"), tmp)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/genproto.sh: %v\n%s", err, out)
	}
	generated := map[string]bool{}
	err = filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmp, path)
		generated[filepath.ToSlash(rel)] = true
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(root, rel))
		switch {
		case err != nil:
			t.Errorf("%s is not committed (run `make proto`): %v", rel, err)
		case !bytes.Equal(got, want):
			t.Errorf("%s is stale: run `make proto` and commit the result", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(generated) == 0 {
		t.Fatal("scripts/genproto.sh generated nothing")
	}
	// A committed .pb.go whose .proto is gone is stale too.
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".pb.go") {
			return err
		}
		rel := "shared/protocol/" + filepath.ToSlash(path)
		if !generated[rel] {
			t.Errorf("%s has no .proto source (delete it or restore the .proto)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

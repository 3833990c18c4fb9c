package world

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/twinframe/twinframe/shared/xdump"
)

// World is a configuration and the game state beside it, with the xdump registry that
// describes, dumps and loads both. A World must not be copied: its registry points into
// its slices.
type World struct {
	Config
	State
	// Frame is the frame the state is at; dumps carry it as their timestamp.
	Frame int64

	reg     *xdump.Registry
	files   []configFile     // the files w was loaded from, in load order
	srcOnce sync.Once        // computes src from files
	src     map[string][]Pos // where each row of a table was read, by table name
}

// Pos is a place in a configuration file.
type Pos struct {
	File string
	Line int
}

// New returns an empty world.
func New() *World {
	w := &World{}
	w.reg = NewRegistry(&w.Config, &w.State)
	return w
}

// Registry returns the registry of w's tables: loading through it fills w, and dumps
// show w.
func (w *World) Registry() *xdump.Registry { return w.reg }

// Xdump runs an xdump command (`xdump [meta] TABLE [RECORDS] [?COND&...]`) for viewer v
// and writes the machine-readable dump, with w.Frame as its timestamp.
func (w *World) Xdump(out io.Writer, command string, v xdump.Viewer) error {
	return w.reg.Exec(out, command, v, w.Frame)
}

// pos returns where row of table was read.
func (w *World) pos(table string, row int) (Pos, bool) {
	if len(w.files) == 0 {
		return Pos{}, false
	}
	ps := w.rows()[table]
	if row < 0 || row >= len(ps) {
		return Pos{}, false
	}
	return ps[row], true
}

// maxFileSize caps a configuration file, checked before reading it.
const maxFileSize = 8 << 20

// Load reads every .config file in the root of fsys, in lexical order of their names
// (a file may only refer by name to rows of tables read before it), verifies the
// result, computes the initial state (InitState), and checks on the navmesh of each
// region a portal leads to that its arrival gives the avatar room. Errors name file
// and line.
func Load(fsys fs.FS) (*World, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && path.Ext(e.Name()) == ".config" {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		return nil, ErrNoConfig
	}
	slices.Sort(files)
	w := New()
	for _, name := range files {
		data, err := readFile(fsys, name)
		if err != nil {
			return nil, err
		}
		if err := w.load(name, data); err != nil {
			return nil, err
		}
	}
	if err := w.Verify(); err != nil {
		return nil, err
	}
	if err := w.InitState(); err != nil {
		return nil, err
	}
	if err := w.verifyArrivals(); err != nil {
		return nil, err
	}
	return w, nil
}

func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("world: %s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{File: name, Line: 1, Row: -1, Err: fmt.Errorf("%w: file larger than %d bytes", ErrInvalid, maxFileSize)}
	}
	return data, nil
}

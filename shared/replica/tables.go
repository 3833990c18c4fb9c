package replica

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// BuildWorld checks a region change's tables against its hash and loads them as a
// world (the same loader, verification and initial state as the server's), then
// builds the game the client predicts in: the region's navmesh and props
// (sim.Options.Region), with population off. Errors wrap ErrHashMismatch or
// ErrBadTables.
func BuildWorld(m *pb.NetMessageRegionChange) (*world.World, *sim.Game, error) {
	return buildWorld(m, nil)
}

// buildWorld is BuildWorld with the world w already loaded from the same tables
// (nil: load them). Loading verifies every transition, which builds the navmesh
// of every region a portal leads to; travel, where the tables do not change,
// builds only the new region's game.
func buildWorld(m *pb.NetMessageRegionChange, w *world.World) (*world.World, *sim.Game, error) {
	if err := protocol.CheckRegionChange(m); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrHashMismatch, err)
	}
	if w == nil {
		var err error
		if w, err = loadTables(m); err != nil {
			return nil, nil, err
		}
	}
	if !hasRegion(w, m.GetRegionId()) {
		return nil, nil, fmt.Errorf("%w: no region %d in the tables", ErrBadTables, m.GetRegionId())
	}
	g, err := sim.New(w, &sim.Options{Region: m.GetRegionId(), NoPopulation: true})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadTables, err)
	}
	return w, g, nil
}

func hasRegion(w *world.World, id int32) bool {
	for i := range w.Regions {
		if w.Regions[i].ID == id {
			return true
		}
	}
	return false
}

// loadTables loads a region change's tables as a world.
func loadTables(m *pb.NetMessageRegionChange) (*world.World, error) {
	files := make(tableFS, 0, len(m.GetTables()))
	for _, t := range m.GetTables() {
		name := t.GetName()
		if !fs.ValidPath(name) || path.Base(name) != name || name == "." {
			return nil, fmt.Errorf("%w: bad file name %q", ErrBadTables, name)
		}
		files = append(files, tableFile{name: name, text: []byte(t.GetText())})
	}
	slices.SortFunc(files, func(a, b tableFile) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(files); i++ {
		if files[i].name == files[i-1].name {
			return nil, fmt.Errorf("%w: file %q sent twice", ErrBadTables, files[i].name)
		}
	}
	w, err := world.Load(files)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTables, err)
	}
	return w, nil
}

// tableFS is a flat, read-only file system of configuration files, sorted by name.
type tableFS []tableFile

type tableFile struct {
	name string
	text []byte
}

func (t tableFS) find(name string) (tableFile, bool) {
	i, ok := slices.BinarySearchFunc(t, name, func(f tableFile, n string) int { return strings.Compare(f.name, n) })
	if !ok {
		return tableFile{}, false
	}
	return t[i], true
}

func (t tableFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &tableDir{fs: t}, nil
	}
	f, ok := t.find(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openTable{info: tableInfo{f.name, int64(len(f.text))}, r: bytes.NewReader(f.text)}, nil
}

// ReadDir implements fs.ReadDirFS for the root.
func (t tableFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, len(t))
	for i, f := range t {
		out[i] = tableInfo{f.name, int64(len(f.text))}
	}
	return out, nil
}

type openTable struct {
	info tableInfo
	r    *bytes.Reader
}

func (f *openTable) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openTable) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *openTable) Close() error               { return nil }

type tableDir struct {
	fs  tableFS
	pos int
}

func (d *tableDir) Stat() (fs.FileInfo, error) { return tableInfo{".", -1}, nil }
func (d *tableDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *tableDir) Close() error { return nil }
func (d *tableDir) ReadDir(n int) ([]fs.DirEntry, error) {
	all, _ := d.fs.ReadDir(".")
	rest := all[d.pos:]
	if n > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(n, len(rest))]
	}
	d.pos += len(rest)
	return rest, nil
}

// tableInfo is both the FileInfo and the DirEntry of a file (size -1: the root).
type tableInfo struct {
	name string
	size int64
}

func (i tableInfo) Name() string { return i.name }
func (i tableInfo) Size() int64  { return max(i.size, 0) }
func (i tableInfo) Mode() fs.FileMode {
	if i.size < 0 {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i tableInfo) ModTime() time.Time         { return time.Time{} }
func (i tableInfo) IsDir() bool                { return i.size < 0 }
func (i tableInfo) Sys() any                   { return nil }
func (i tableInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i tableInfo) Info() (fs.FileInfo, error) { return i, nil }

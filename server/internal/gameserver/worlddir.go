package gameserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"time"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
)

// DefaultWatchPeriod is how often WatchWorld looks at the world directory: a
// saved file is applied within about a second, and an unchanged directory costs
// one stat per file.
const DefaultWatchPeriod = 500 * time.Millisecond

// WatchWorld polls the world directory dir (the server's Config.Files) every
// period until ctx ends or the server stops, and hands every change of its
// .config files (a file saved with other contents, added or removed) to the
// frame loop, which verifies the directory as it now is and applies it through
// the live-edit path (reloadWorld). A file is read again only when its
// modification time or size changed, and counts as changed only when its
// contents' hash did, so saving a file unchanged does nothing. A refused
// version is not tried again: the next save is.
func (s *Server) WatchWorld(ctx context.Context, dir string, period time.Duration) error {
	if period <= 0 {
		period = DefaultWatchPeriod
	}
	seen := map[string]watchedFile{}
	if _, err := scanWorldDir(dir, seen); err != nil {
		return err
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.done:
			return nil
		case <-t.C:
		}
		changed, err := scanWorldDir(dir, seen)
		if err != nil {
			// A directory being rewritten by an editor can fail to read for a
			// moment: say so and look again at the next tick.
			s.log.Warn("world directory", "dir", dir, "err", err)
			continue
		}
		if !changed {
			continue
		}
		files := make([]*pb.NetStructConfigFile, 0, len(seen))
		for name, f := range seen {
			files = append(files, &pb.NetStructConfigFile{Name: name, Text: f.text})
		}
		slices.SortFunc(files, func(a, b *pb.NetStructConfigFile) int { return cmp.Compare(a.Name, b.Name) })
		if err := s.do(ctx, func() { s.reloadWorld(dir, files) }); err != nil {
			if errors.Is(err, ErrStopped) || ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// watchedFile is what WatchWorld last saw of a file.
type watchedFile struct {
	mod  time.Time
	size int64
	sum  [32]byte
	text string
}

// scanWorldDir updates seen to the .config files of dir and reports whether
// their set or the contents of one changed.
func scanWorldDir(dir string, seen map[string]watchedFile) (changed bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	present := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".config" {
			continue
		}
		name := e.Name()
		present[name] = true
		info, err := e.Info()
		if err != nil {
			return false, err
		}
		old, ok := seen[name]
		if ok && old.mod.Equal(info.ModTime()) && old.size == info.Size() {
			continue
		}
		b, err := fs.ReadFile(os.DirFS(dir), name)
		if err != nil {
			return false, err
		}
		f := watchedFile{mod: info.ModTime(), size: info.Size(), sum: sha256.Sum256(b), text: string(b)}
		if !ok || f.sum != old.sum {
			changed = true
		}
		seen[name] = f
	}
	for name := range seen {
		if !present[name] {
			delete(seen, name)
			changed = true
		}
	}
	return changed, nil
}

// reloadWorld makes files (the world directory's .config files, sorted by
// name) the server's starting files, in the loop. It is a live edit of the
// files that differ from the starting files (changed, added or removed): each
// is parsed after the current tables, so a const field it changes is refused
// like a deity's edit, and the directory is then loaded and verified whole by
// install, so an error names the directory's file and line and nothing is
// applied. A changed file is the truth for the tables it holds and held: a
// deity's earlier edits of them are dropped; the deity's edits of other tables
// stay. The outcome goes to the log and to every deity session, as a
// NetMessageLiveEditResponse with requestId 0.
func (s *Server) reloadWorld(dir string, files []*pb.NetStructConfigFile) {
	err := s.applyWorldFiles(files)
	if errors.Is(err, errUnchanged) {
		return
	}
	resp := &pb.NetMessageLiveEditResponse{Frame: s.frameNumber()}
	if err != nil {
		resp.Error = "world " + dir + ": " + err.Error()
		s.log.Error("world directory: refused, nothing applied", "dir", dir, "err", err)
	} else {
		s.log.Info("world directory applied", "dir", dir, "frame", resp.Frame)
	}
	for _, c := range s.sessions {
		if c.role == pb.Role_ROLE_DEITY && c.joined && !c.closed() {
			c.replies = append(c.replies, resp)
		}
	}
}

var errUnchanged = errors.New("gameserver: the world directory is as the server runs it")

func (s *Server) applyWorldFiles(files []*pb.NetStructConfigFile) error {
	old := map[string]string{}
	for _, f := range s.baseTables {
		old[f.Name] = f.Text
	}
	var changed []*pb.NetStructConfigFile
	now := map[string]bool{}
	for _, f := range files {
		now[f.Name] = true
		if t, ok := old[f.Name]; !ok || t != f.Text {
			changed = append(changed, f)
		}
	}
	var removed []string
	for _, f := range s.baseTables {
		if !now[f.Name] {
			removed = append(removed, f.Name)
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return errUnchanged
	}
	// The current tables, then each changed file over them.
	w := world.New()
	reg := w.Registry()
	for _, f := range s.tables {
		if err := reg.Load(f.Name, []byte(f.Text)); err != nil {
			return fmt.Errorf("the running tables do not parse: %w", err)
		}
	}
	var touched []string
	for _, f := range changed {
		names, err := configTables(reg, f.Name, f.Text)
		if err != nil {
			return err
		}
		if err := reg.Load(f.Name, []byte(f.Text)); err != nil {
			return err
		}
		touched = append(touched, names...)
	}
	for _, name := range removed {
		names, err := configTables(reg, name, old[name])
		if err != nil {
			return err
		}
		touched = append(touched, names...)
	}
	for _, f := range changed {
		if t, ok := old[f.Name]; ok {
			names, err := configTables(reg, f.Name, t)
			if err != nil {
				return err
			}
			touched = append(touched, names...)
		}
	}
	edited := slices.DeleteFunc(slices.Clone(s.edited), func(n string) bool { return slices.Contains(touched, n) })
	var live *pb.NetStructConfigFile
	if len(edited) > 0 {
		var err error
		if live, err = liveFile(s.world, edited); err != nil {
			return err
		}
	}
	return s.install(files, live, edited)
}

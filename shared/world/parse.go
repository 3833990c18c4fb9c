package world

import "github.com/twinframe/twinframe/shared/xdump"

// configFile is a configuration file a world was loaded from.
type configFile struct {
	name string
	data []byte
}

// load loads the tables of one configuration file into w and keeps the file, to find
// row lines when an error needs them. Errors are *xdump.ParseError values naming
// file, line and column.
func (w *World) load(name string, data []byte) error {
	if err := w.reg.Load(name, data); err != nil {
		return err
	}
	w.files = append(w.files, configFile{name, data})
	return nil
}

// rows returns where each row of each table was read: the files are parsed again (as
// the deity, without changing anything) the first time an error needs a position.
func (w *World) rows() map[string][]Pos {
	w.srcOnce.Do(func() {
		w.src = map[string][]Pos{}
		for _, f := range w.files {
			ds, err := w.reg.Parse(f.name, f.data, xdump.Viewer{Deity: true})
			if err != nil {
				continue // cannot happen: Load accepted the file
			}
			for _, d := range ds {
				if d.Meta {
					continue
				}
				ps := make([]Pos, len(d.Lines))
				for i, l := range d.Lines {
					ps[i] = Pos{f.name, l}
				}
				w.src[d.Table.Name()] = ps
			}
		}
	})
	return w.src
}

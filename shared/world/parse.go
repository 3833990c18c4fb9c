package world

import "github.com/twinframe/twinframe/shared/xdump"

// load loads the tables of one configuration file into w and records where each row
// was read. Errors are *xdump.ParseError values naming file, line and column.
func (w *World) load(name string, data []byte) error {
	if err := w.reg.Load(name, data); err != nil {
		return err
	}
	// The second pass only reads: it yields each row's line for later errors.
	ds, err := w.reg.Parse(name, data, xdump.Viewer{Deity: true})
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.Meta {
			continue
		}
		ps := make([]Pos, len(d.Lines))
		for i, l := range d.Lines {
			ps[i] = Pos{name, l}
		}
		w.src[d.Table.Name()] = ps
	}
	return nil
}

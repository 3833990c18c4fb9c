package sim

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twinframe/twinframe/shared/world"
)

// The bench world is the default world's hub (the region downtown) tiled k×k: one
// region of k·192 m square whose cells, areas, walkable ground, obstacles, markers
// (props, hotspots, spawn points and blackout zones) and populations are k² copies of
// the hub's, shifted by
// 192 m, so that it has the same density of obstacles and of everything else. It is
// written as configuration text from the default world's own files and loaded with
// world.Load, and the game builds its navigation mesh as for any world: nothing is
// shortcut. Copy (tx, ty) names its areas and polygons with the suffix "-t", t = ty·k+tx;
// the prop footprints (in no area) are kept once. The rows of the other regions, and
// the transitions between regions, are left out.

// benchTile is the side of the hub, the offset between copies.
const benchTile = 192

// benchRegion is the region the bench world tiles.
const benchRegion = "downtown"

// benchWorldFiles returns the configuration files of the default world tiled k×k.
func benchWorldFiles(k int) (fs.FS, error) {
	src := world.DefaultFiles()
	names, err := fs.Glob(src, "*.config")
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{}
	tl := &tiler{k: k, footprints: map[string]bool{}, areas: map[string]bool{}, polygons: map[string]bool{}}
	for _, name := range names {
		data, err := fs.ReadFile(src, name)
		if err != nil {
			return nil, err
		}
		text, err := tl.file(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return out, nil
}

// benchWorld loads the default world tiled k×k.
func benchWorld(tb testing.TB, k int) *world.World {
	tb.Helper()
	files, err := benchWorldFiles(k)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := world.Load(files)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// tiler rewrites the default world's tables row by row.
type tiler struct {
	k          int
	footprints map[string]bool // polygons in no area: kept once, not renamed
	areas      map[string]bool // the tiled region's areas, by name
	polygons   map[string]bool // the polygons of those areas, by name
}

// file rewrites the rows of every table of one configuration file; comments and
// blank lines are dropped.
func (tl *tiler) file(text string) (string, error) {
	var b strings.Builder
	var table string
	var cols []string
	next := 0 // the next id of the table: copies are renumbered in order
	var group [][]string
	for n, line := range strings.Split(text, "\n") {
		toks, err := tokens(line)
		if err != nil {
			return "", fmt.Errorf("line %d: %w", n+1, err)
		}
		switch {
		case len(toks) == 0:
			continue
		case toks[0] == "config" && len(toks) == 2:
			table, cols, next = toks[1], nil, 0
			b.WriteString(line + "\n")
			continue
		case toks[0] == "/config":
			if err := tl.emit(&b, table, cols, group, &next); err != nil {
				return "", fmt.Errorf("line %d: %w", n+1, err)
			}
			table, group = "", nil
			b.WriteString("/config\n")
			continue
		case table == "":
			return "", fmt.Errorf("line %d: a row outside a table", n+1)
		case cols == nil:
			cols = toks
			b.WriteString(strings.Join(cols, " ") + "\n")
			continue
		}
		if len(toks) != len(cols) {
			return "", fmt.Errorf("line %d: %d values for %d columns", n+1, len(toks), len(cols))
		}
		// Rows are emitted in groups, each group's copies one after the other: the
		// vertex table is keyed by (polygon, seq), so a polygon's vertices are a group
		// and each copy's must follow one another; any other row is a group of its own.
		if len(group) > 0 && (table != "vertex" || group[0][0] != toks[0]) {
			if err := tl.emit(&b, table, cols, group, &next); err != nil {
				return "", fmt.Errorf("line %d: %w", n+1, err)
			}
			group = group[:0]
		}
		group = append(group, toks)
	}
	return b.String(), nil
}

// emit writes every copy of a group of rows of table, copy by copy.
func (tl *tiler) emit(b *strings.Builder, table string, cols []string, group [][]string, next *int) error {
	for t := range tl.k * tl.k {
		for _, toks := range group {
			row := map[string]string{}
			for i, c := range cols {
				row[c] = toks[i]
			}
			out, keep, err := tl.row(table, row, t, next)
			if err != nil {
				return err
			}
			if !keep {
				continue
			}
			vals := make([]string, len(cols))
			for i, c := range cols {
				vals[i] = out[c]
			}
			b.WriteString(strings.Join(vals, " ") + "\n")
		}
	}
	return nil
}

// row returns the copy of row for tile t, and whether the tile has one.
func (tl *tiler) row(table string, row map[string]string, t int, next *int) (map[string]string, bool, error) {
	out := make(map[string]string, len(row))
	for c, v := range row {
		out[c] = v
	}
	dx, dy := float64(t%tl.k*benchTile), float64(t/tl.k*benchTile)
	shift := func(col string, d float64) error {
		v, err := strconv.ParseFloat(row[col], 64)
		if err != nil {
			return fmt.Errorf("%s: %w", col, err)
		}
		out[col] = strconv.FormatFloat(v+d, 'f', -1, 64)
		return nil
	}
	suffix := func(name string) string {
		if strings.HasPrefix(name, `"`) {
			return strings.TrimSuffix(name, `"`) + "-" + strconv.Itoa(t) + `"`
		}
		return name + "-" + strconv.Itoa(t)
	}
	renumber := func() {
		out["id"] = strconv.Itoa(*next)
		*next++
	}
	unquote := func(col string) string { return strings.Trim(row[col], `"`) }
	// Rows of the other regions are left out; the tables come in the order of the
	// default world's files, so a region's areas are known before their rows.
	switch table {
	case "region":
		if unquote("name") != benchRegion {
			return nil, false, nil
		}
	case "cell":
		if row["region"] != benchRegion {
			return nil, false, nil
		}
	case "area":
		if row["region"] != benchRegion {
			return nil, false, nil
		}
		tl.areas[unquote("name")] = true
	case "polygon":
		if row["area"] != "-1" && !tl.areas[row["area"]] {
			return nil, false, nil
		}
		tl.polygons[unquote("name")] = true
	case "vertex":
		if !tl.polygons[row["polygon"]] {
			return nil, false, nil
		}
	case "marker", "population":
		if !tl.areas[row["area"]] {
			return nil, false, nil
		}
	case "transition":
		return nil, false, nil
	}
	var err error
	switch table {
	case "region":
		if t > 0 {
			return nil, false, nil
		}
		side := strconv.Itoa(tl.k * benchTile)
		out["max(0)"], out["max(1)"] = side, side
	case "cell":
		// The copy keeps the cell's seed: its props are the same as the original's.
		renumber()
		err = firstErr(shift("min(0)", dx), shift("min(1)", dy))
	case "area", "population":
		renumber()
		if table == "area" {
			out["name"] = suffix(row["name"])
			err = firstErr(shift("min(0)", dx), shift("min(1)", dy), shift("max(0)", dx), shift("max(1)", dy))
		} else {
			out["area"] = suffix(row["area"])
		}
	case "polygon":
		if row["area"] == "-1" {
			tl.footprints[strings.Trim(row["name"], `"`)] = true
			if t > 0 {
				return nil, false, nil
			}
			renumber()
			break
		}
		renumber()
		out["name"], out["area"] = suffix(row["name"]), suffix(row["area"])
	case "vertex":
		if tl.footprints[strings.Trim(row["polygon"], `"`)] {
			if t > 0 {
				return nil, false, nil
			}
			break
		}
		out["polygon"] = suffix(row["polygon"])
		err = firstErr(shift("pos(0)", dx), shift("pos(1)", dy))
	case "marker":
		renumber()
		out["area"] = suffix(row["area"])
		err = firstErr(shift("pos(0)", dx), shift("pos(1)", dy))
	default: // prototypes and prop sets: one copy
		if t > 0 {
			return nil, false, nil
		}
	}
	return out, true, err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// tokens splits a configuration line into its values: quoted strings and
// parenthesised sets stay whole; a # outside them starts a comment.
func tokens(line string) ([]string, error) {
	var toks []string
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			return toks, nil
		case c == '"' || c == '(':
			end := byte('"')
			if c == '(' {
				end = ')'
			}
			j := strings.IndexByte(line[i+1:], end)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %q", c)
			}
			toks = append(toks, line[i:i+j+2])
			i += j + 2
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r#", rune(line[j])) {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
		}
	}
	return toks, nil
}

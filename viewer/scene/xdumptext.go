package scene

import (
	"strconv"
	"strings"
)

// metaNames returns the column names of a table from its machine-readable meta dump
// (`xdump meta TABLE`), an array field of length n giving name(0) … name(n-1).
func metaNames(dump string) []string {
	var names []string
	for _, line := range dataLines(dump) {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		name := strings.Trim(f[0], `"`)
		n, _ := strconv.Atoi(f[3])
		if n <= 1 {
			names = append(names, name)
			continue
		}
		for i := range n {
			names = append(names, name+"("+strconv.Itoa(i)+")")
		}
	}
	return names
}

// rowFields pairs a dumped row's values with the column names (tables of numbers only:
// values are split at spaces).
func rowFields(names []string, line, prefix string) []Field {
	var out []Field
	for i, v := range strings.Fields(line) {
		name := "?"
		if i < len(names) {
			name = names[i]
		}
		out = append(out, Field{prefix + name, v})
	}
	return out
}

// dataLines returns the record lines of a machine-readable dump.
func dataLines(dump string) []string {
	var out []string
	for _, line := range strings.Split(dump, "\n") {
		if line == "" || strings.HasPrefix(line, "XDUMP") || strings.HasPrefix(line, "/") {
			continue
		}
		out = append(out, line)
	}
	return out
}

func ftoa(f float32) string { return strconv.FormatFloat(float64(f), 'g', 6, 32) }

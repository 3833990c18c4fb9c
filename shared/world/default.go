package world

import (
	"embed"
	"io/fs"
)

//go:embed default/*.config
var defaultFiles embed.FS

// DefaultFiles returns the configuration files of the default world: three regions
// joined by portals — downtown, 3×3 cells with streets, buildings, alleys, parked cars
// and crates, a park with spawn points inside blackout zones and a collision lab; the
// wilds; and the vault. Load(DefaultFiles()) loads it.
func DefaultFiles() fs.FS {
	sub, err := fs.Sub(defaultFiles, "default")
	if err != nil {
		panic(err) // "default" is a valid path
	}
	return sub
}

// LoadDefault loads the default world.
func LoadDefault() (*World, error) { return Load(DefaultFiles()) }

package scene

import (
	"fmt"
	"strings"
)

// Overlay is one toggleable layer of the view, or a set of them (a bit mask).
type Overlay uint32

// The overlays. Their names (Name) are the contract of toggle(name) in the page.
const (
	ovNavmesh     Overlay = 1 << iota // navmesh triangles coloured by flags
	ovEdges                           // every triangle edge
	ovConstraints                     // constraint (input) edges; blocking ones stand out
	ovBlackout                        // blackout zones
	ovSpawns                          // spawn markers
	ovProps                           // props and obstacles
	ovEntities                        // entities: bounds, facing
	ovLabels                          // entity names
	ovPaths                           // remaining path of moving entities
	ovSweeps                          // last sweep: swept disc, hit point and normal
	ovEvents                          // collision and overlap events (flash)
	ovHotspots                        // hotspot circles
	ovAOI                             // area of interest: add and remove circles
	ovPrediction                      // predicted vs authoritative avatar, error vector
	ovGraphs                          // drift, frame time, lateness, RTT, bytes/s
	ovPortals                         // portals: their discs or polygons and where they lead
	numOverlays   = iota
)

var overlayNames = [numOverlays]string{
	"navmesh", "edges", "constraints", "blackout", "spawns", "props", "entities", "labels",
	"paths", "sweeps", "events", "hotspots", "aoi", "prediction", "graphs", "portals",
}

// defaultOverlays is what a viewer shows at start.
const defaultOverlays = ovNavmesh | ovConstraints | ovBlackout | ovSpawns | ovProps | ovEntities | ovLabels |
	ovPaths | ovSweeps | ovEvents | ovHotspots | ovAOI | ovPrediction | ovGraphs | ovPortals

// AllOverlays lists every overlay in a fixed order.
func AllOverlays() []Overlay {
	out := make([]Overlay, numOverlays)
	for i := range out {
		out[i] = 1 << i
	}
	return out
}

// Name returns the overlay's name, or "" for a set of several or none.
func (o Overlay) Name() string {
	for i := range numOverlays {
		if o == 1<<i {
			return overlayNames[i]
		}
	}
	return ""
}

// String lists the overlays of the set by name.
func (o Overlay) String() string {
	var b strings.Builder
	for i := range numOverlays {
		if o&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(overlayNames[i])
		}
	}
	return b.String()
}

// Has reports whether every overlay of x is in the set.
func (o Overlay) Has(x Overlay) bool { return o&x == x && x != 0 }

// parseOverlay returns the overlay named name (case-insensitive).
func parseOverlay(name string) (Overlay, error) {
	for i, n := range overlayNames {
		if strings.EqualFold(n, name) {
			return 1 << i, nil
		}
	}
	return 0, fmt.Errorf("scene: unknown overlay %q (have %s)", name, strings.Join(overlayNames[:], ", "))
}

package sim

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Trigger says when a hotspot rule fires; the values match world.Trigger.
type Trigger uint8

const (
	Enter Trigger = iota + 1 // an entity's centre enters the hotspot
	Leave                    // an entity's centre leaves the hotspot
)

// ActionKind says what a hotspot rule does; the values match world.Action.
type ActionKind uint8

const (
	ActionSpawn          ActionKind = iota + 1 // spawn an entity of prototype Arg near the hotspot
	ActionDespawn                              // destroy the entity that triggered the rule
	ActionToggleBlackout                       // toggle the blackout zone of marker Arg
)

// Rule is a hotspot condition and its action: when an entity of Prototype (-1: any)
// triggers the hotspot of marker Hotspot, do Action with Arg. Actions run in the
// deferred part of the frame, in the order their rules fired. The world's
// configuration table hotspot-rule holds rules (New loads them); AddRule adds more.
type Rule struct {
	Hotspot   int32
	Prototype int32
	On        Trigger
	Action    ActionKind
	Arg       int32
}

// Serialize packs or unpacks the rule.
func (r *Rule) Serialize(a *archive.Archive) error {
	a.TransferInt32(&r.Hotspot)
	a.TransferInt32(&r.Prototype)
	on, act := byte(r.On), byte(r.Action)
	a.TransferByte(&on)
	a.TransferByte(&act)
	r.On, r.Action = Trigger(on), ActionKind(act)
	a.TransferInt32(&r.Arg)
	return a.Err()
}

type action struct {
	rule   Rule
	entity EntityID
	at     mgl32.Vec2
	region int32
}

// AddRule adds a hotspot rule. The hotspot must be a hotspot marker of one of the
// game's regions.
func (g *Game) AddRule(r Rule) error {
	if r.On != Enter && r.On != Leave || r.Action < ActionSpawn || r.Action > ActionToggleBlackout {
		return fmt.Errorf("%w: rule %+v", ErrBadCommand, r)
	}
	if _, h := g.hotspot(r.Hotspot); h == nil {
		return fmt.Errorf("%w: marker %d is not a hotspot", ErrBadCommand, r.Hotspot)
	}
	g.rules = append(g.rules, r)
	return nil
}

// ruleOf returns the rule of a world hotspot-rule row.
func ruleOf(wr world.HotspotRule) Rule {
	r := Rule{Hotspot: wr.Hotspot, Prototype: wr.Prototype, On: Trigger(wr.On), Action: ActionKind(wr.Action), Arg: -1}
	switch wr.Action {
	case world.ActionSpawn:
		r.Arg = wr.Spawn
	case world.ActionToggleBlackout:
		r.Arg = wr.Zone
	}
	return r
}

// Rules returns the hotspot rules in the order they were added.
func (g *Game) Rules() []Rule { return g.rules }

func (g *Game) hotspot(marker int32) (*Region, *hotspot) {
	for _, r := range g.regions {
		for ai := range r.areas {
			for hi := range r.areas[ai].hotspots {
				if h := &r.areas[ai].hotspots[hi]; h.marker == marker {
					return r, h
				}
			}
		}
	}
	return nil, nil
}

// updateHotspots recomputes which moving entities are inside each hotspot, emits enter
// and leave events and queues the actions of the rules they trigger.
func (g *Game) updateHotspots() {
	for _, r := range g.regions {
		eg := &r.grid
		for ai := range r.areas {
			for hi := range r.areas[ai].hotspots {
				h := &r.areas[ai].hotspots[hi]
				cur := h.next[:0]
				reach := h.radius + g.maxMotion // grid cells are from the start of the frame
				x0, y0, x1, y1 := eg.span(geom.Sub(h.center, vec(reach)), geom.Add(h.center, vec(reach)))
				for y := y0; y <= y1; y++ {
					for _, e := range eg.row(y, x0, x1) {
						if e.dead || e.flags&world.FlagStatic != 0 {
							continue
						}
						if geom.LenSq(geom.Sub(e.pos, h.center)) < float32(h.radius*h.radius) {
							cur = append(cur, e.id)
						}
					}
				}
				slices.Sort(cur)
				prev := h.inside
				i, j := 0, 0
				for i < len(prev) || j < len(cur) {
					switch {
					case j == len(cur) || (i < len(prev) && prev[i] < cur[j]):
						g.hotspotEvent(r, h, OnHotspotLeave, prev[i])
						i++
					case i == len(prev) || cur[j] < prev[i]:
						g.hotspotEvent(r, h, OnHotspotEnter, cur[j])
						j++
					default:
						i++
						j++
					}
				}
				h.inside, h.next = cur, prev
			}
		}
	}
}

func (g *Game) hotspotEvent(r *Region, h *hotspot, k EventKind, id EntityID) {
	g.events = append(g.events, Event{Kind: k, Frame: g.frame, A: id, Marker: h.marker, Point: h.center})
	e := g.Entity(id)
	proto := int32(-1 << 30)
	if e != nil {
		proto = e.proto
	}
	on := Enter
	if k == OnHotspotLeave {
		on = Leave
	}
	for _, rule := range g.rules {
		if rule.Hotspot == h.marker && rule.On == on && (rule.Prototype < 0 || rule.Prototype == proto) {
			g.actions = append(g.actions, action{rule: rule, entity: id, at: h.center, region: r.id})
		}
	}
}

func (g *Game) runActions() {
	for _, a := range g.actions {
		switch a.rule.Action {
		case ActionSpawn:
			_, _ = g.Spawn(a.rule.Arg, a.region, a.at, 0) // no room: nothing spawns
		case ActionDespawn:
			_ = g.Destroy(a.entity) // already gone: nothing to do
		case ActionToggleBlackout:
			if r := g.Region(a.region); r != nil {
				for _, z := range r.zones {
					if z.marker == a.rule.Arg {
						r.setZone(z.marker, !z.on)
					}
				}
			}
		}
	}
	g.actions = g.actions[:0]
}

// BlackoutOn reports whether the blackout zone of a marker is active.
func (g *Game) BlackoutOn(marker int32) bool {
	for _, r := range g.regions {
		for _, z := range r.zones {
			if z.marker == marker {
				return z.on
			}
		}
	}
	return false
}

package gameserver

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// Deity tool errors.
var (
	ErrPlayerPrototype = errors.New("gameserver: a player's prototype enters by login, not by spawn")
	ErrAvatar          = errors.New("gameserver: the entity is a player's avatar (log the player out instead)")
)

// spawn is the deity's DEBUG_OP_SPAWN: an entity of the prototype in the
// region, at the position or the nearest free spot within 8 m
// (sim.Game.Spawn), facing east. It returns the new entity's id.
func (s *Server) spawn(m *pb.NetMessageDebugCommand) (sim.EntityID, error) {
	r := s.regionByID(m.GetRegionId())
	if r == nil {
		return 0, fmt.Errorf("%w: region %d", ErrNoTarget, m.GetRegionId())
	}
	protos := r.game.World().Prototypes
	i := m.GetPrototypeId()
	if i < 0 || int(i) >= len(protos) || protos[i].ID != i {
		return 0, fmt.Errorf("%w: %d", sim.ErrNoPrototype, i)
	}
	if protos[i].Flags&world.FlagPlayer != 0 {
		return 0, fmt.Errorf("%w: %s", ErrPlayerPrototype, protos[i].Name)
	}
	p := m.GetPosition()
	return r.game.Spawn(i, r.id, mgl32.Vec2{p.GetX(), p.GetY()}, 0)
}

// kill is the deity's DEBUG_OP_KILL: the entity leaves its region's game, and
// every client holding it gets its destroy. A player's avatar is refused: its
// session would be left without one.
func (s *Server) kill(m *pb.NetMessageDebugCommand) error {
	id := sim.EntityID(m.GetEntityId())
	for _, r := range s.regions {
		e := r.game.Entity(id)
		if e == nil {
			continue
		}
		if e.Owner() >= 0 || s.byAvatar(r, id) != nil {
			return fmt.Errorf("%w: %d", ErrAvatar, id)
		}
		return r.game.Destroy(id)
	}
	return fmt.Errorf("%w: %d", sim.ErrNoEntity, id)
}

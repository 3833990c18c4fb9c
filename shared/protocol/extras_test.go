package protocol_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

func TestHashConfigFiles(t *testing.T) {
	files := []*pb.NetStructConfigFile{{Name: "a.config", Text: "region id=1\n"}}
	sum := protocol.HashConfigFiles(files)
	// Pinned (= sha256sum of "\x08a.config\x0cregion id=1\n"): the hash is part of the
	// protocol, so it must not change by accident.
	const want = "3f0abe8053c7453884198a42dd124f94f78906a27d0c49031e648360f8d79254"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("HashConfigFiles = %s, want %s", got, want)
	}
	split := func(name, text string) [32]byte {
		return protocol.HashConfigFiles([]*pb.NetStructConfigFile{{Name: name, Text: text}})
	}
	if split("ab", "c") == split("a", "bc") {
		t.Error("moving a byte between name and text does not change the hash")
	}
	if protocol.HashConfigFiles(nil) == sum {
		t.Error("no files hash like one file")
	}

	m := &pb.NetMessageRegionChange{RegionId: 1, Tables: files, TablesHash: sum[:]}
	if err := protocol.CheckRegionChange(m); err != nil {
		t.Errorf("CheckRegionChange: %v", err)
	}
	m.Tables = []*pb.NetStructConfigFile{{Name: "a.config", Text: "region id=2\n"}}
	if err := protocol.CheckRegionChange(m); !errors.Is(err, protocol.ErrConfigHash) {
		t.Errorf("CheckRegionChange of changed tables: %v", err)
	}
}

func TestDebugDrawRoundTrip(t *testing.T) {
	draw := func(d debugdraw.Drawer) { // in ReplayDraw's order: segments, polygons, circles, points, texts
		d.Segment(mgl32.Vec2{0, 0}, mgl32.Vec2{1, 2}, debugdraw.Red)
		d.Segment(mgl32.Vec2{-1, -2}, mgl32.Vec2{3, 4}, debugdraw.Blue.WithAlpha(128))
		d.Polygon([]mgl32.Vec2{{0, 0}, {1, 0}, {0, 1}}, debugdraw.Green, true)
		d.Circle(mgl32.Vec2{5, 5}, 0.75, debugdraw.Yellow, false)
		d.Point(mgl32.Vec2{2, 3}, 4, debugdraw.White)
		d.Text(mgl32.Vec2{1, 1}, "hit", debugdraw.Cyan)
	}
	var want debugdrawtest.Recorder
	draw(&want)

	var rec protocol.DrawRecorder
	draw(&rec)
	id, b, err := protocol.Marshal(rec.Msg)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := protocol.Unmarshal(id, b)
	if err != nil {
		t.Fatal(err)
	}
	var got debugdrawtest.Recorder
	protocol.ReplayDraw(&got, msg.(*pb.NetMessageDebugDraw))
	if got.String() != want.String() {
		t.Errorf("replayed:\n%s\nwant:\n%s", got.String(), want.String())
	}
	if !proto.Equal(msg, rec.Msg) {
		t.Error("round trip changed the message")
	}
	c := debugdraw.RGBA(1, 2, 3, 4)
	if v := protocol.PackColor(c); v != 0x01020304 || protocol.UnpackColor(v) != c {
		t.Errorf("PackColor = %#x", v)
	}
}

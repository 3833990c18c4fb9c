package debugdrawtest_test

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
)

func TestRecorderCopiesAndCounts(t *testing.T) {
	t.Parallel()
	var r debugdrawtest.Recorder
	var d debugdraw.Drawer = &r
	buf := []mgl32.Vec2{{0, 0}, {1, 0}, {0, 1}}
	d.Polygon(buf, debugdraw.Green, true)
	buf[0] = mgl32.Vec2{9, 9} // the emitter reuses its buffer
	d.Segment(mgl32.Vec2{0, 0}, mgl32.Vec2{1, 1}, debugdraw.Red)
	d.Circle(mgl32.Vec2{2, 2}, 0.5, debugdraw.Blue, false)
	d.Point(mgl32.Vec2{3, 3}, 4, debugdraw.Red)
	d.Text(mgl32.Vec2{4, 4}, "hi", debugdraw.White)

	tests := []struct {
		kind debugdrawtest.Kind
		want int
	}{
		{debugdrawtest.Segment, 1}, {debugdrawtest.Polygon, 1}, {debugdrawtest.Circle, 1},
		{debugdrawtest.Point, 1}, {debugdrawtest.Text, 1},
	}
	for _, tc := range tests {
		if got := r.Count(tc.kind); got != tc.want {
			t.Errorf("Count(%v) = %d, want %d", tc.kind, got, tc.want)
		}
	}
	if got := r.Calls[0].Points[0]; got != (mgl32.Vec2{0, 0}) {
		t.Errorf("polygon point was not copied: %v", got)
	}
	if got := len(r.Filter(debugdrawtest.Segment, debugdraw.Red)) + len(r.Filter(debugdrawtest.Point, debugdraw.Red)); got != 2 {
		t.Errorf("red calls = %d, want 2", got)
	}
	want := "polygon rgba(60,200,90,255) (0,0) (1,0) (0,1) filled\n" +
		"segment rgba(230,60,50,255) (0,0) (1,1)\n" +
		"circle rgba(60,120,230,255) (2,2) r=0.5\n" +
		"point rgba(230,60,50,255) (3,3) size=4\n" +
		"text rgba(255,255,255,255) (4,4) \"hi\"\n"
	if got := r.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	r.Reset()
	if len(r.Calls) != 0 {
		t.Errorf("Reset left %d calls", len(r.Calls))
	}
}

func ExampleRecorder() {
	var r debugdrawtest.Recorder
	r.Segment(mgl32.Vec2{0, 0}, mgl32.Vec2{2, 0}, debugdraw.Yellow)
	r.Circle(mgl32.Vec2{1, 1}, 0.5, debugdraw.Cyan.WithAlpha(128), true)
	fmt.Print(r.String())
	// Output:
	// segment rgba(240,210,60,255) (0,0) (2,0)
	// circle rgba(60,210,220,128) (1,1) r=0.5 filled
}

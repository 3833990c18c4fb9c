// Package draw turns debug primitives into batches of screen-space triangles: a List
// implements shared/debugdraw's Drawer through a Camera, and the viewer hands its batches
// to ebiten's DrawTriangles.
//
// Design note: the package does not import ebiten, so the draw list is built, tested and
// benchmarked without a window or a GPU (ebiten panics at init without a display). Vertex
// has exactly the fields of ebiten.Vertex, so the viewer converts each one without
// arithmetic. Primitives are tessellated the way ebiten's vector package does it (lines as
// quads, discs as fans, rings as quad strips) but straight into reused slices: a List
// allocates only while its buffers grow, and a frame of the same size allocates nothing.
// Everything outside the viewport is culled before tessellation, circles get as many
// segments as their on-screen size needs, and a batch is closed before its vertex count
// would overflow a uint16 index.
package draw

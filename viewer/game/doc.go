// Package game is Twinframe's debugger as an ebiten.Game: it draws a scene.View (the
// world of a scene.Source through a camera, with toggleable overlays and graphs) and
// turns mouse and keyboard into the view's input.
//
// Design note: everything that can run without a screen lives in viewer/draw (the
// triangle batcher implementing debugdraw.Drawer) and viewer/scene (sources, overlays,
// camera control, selection, graphs), where it is tested and benchmarked headless; this
// package is the thin platform layer that ebiten needs a display (or a browser) for. It
// hands each batch to DrawTriangles with one white source image, prints labels in a
// 7×13 bitmap face (text.go), and, natively, draws the side panel that the web page otherwise
// provides in HTML. It never imports the server.
package game

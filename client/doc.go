// Package client is Twinframe's Go client: it connects to a server's websocket,
// logs in, sends the player's inputs and pings, and feeds every packet it
// receives to a shared/replica Replica that predicts the avatar and interpolates
// the rest. The same code serves bots and tests natively and the viewer in the
// browser (GOOS=js, where it drives the page's own WebSocket through syscall/js:
// ws_js.go; natively the websocket is coder/websocket's, client/internal/wsconn).
//
// # Design note
//
// A Client owns one connection and one reader goroutine. The reader decodes each
// packet (one websocket binary message, one server frame) with shared/protocol,
// hands its messages to the replica under the client's lock, then advances the
// prediction. Inputs are made by the replica (which stamps them with a sequence
// number and the client frame) and written at once, one packet each. Update,
// called once per rendered or simulated frame, advances the prediction and sends
// a ping every PingInterval. When the replica finds the server's data
// inconsistent, the reader sends the one NetMessageResyncRequest it makes
// (replica.TakeResyncRequest); the answer resets the replica. The transport is a message Conn, so tests use an
// in-memory netsim.Pipe, and netsim.Wrap adds simulated network conditions that
// can be changed while the client runs.
package client

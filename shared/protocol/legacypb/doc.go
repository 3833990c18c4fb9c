// Package legacypb holds game messages in their pre-archive protobuf form
// (generated from powerresult.proto by `make proto`; never edit the .pb.go).
// They are not part of the protocol and have no ids: benchmarks use them to
// measure what the archive form saves.
package legacypb

// Package legacypb holds game messages in a pre-archive, plain protobuf form
// (generated from powerresult.proto and entitycreate.proto by `make proto`; never
// edit the .pb.go files). They are not part of the protocol and have no ids:
// benchmarks use them to measure what the archive form saves. Only test files may
// import the package (internal/layout checks it).
package legacypb

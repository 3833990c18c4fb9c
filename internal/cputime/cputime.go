// Package cputime reads the CPU time of the calling thread and of the process.
// Benchmarks and the load tools report CPU time beside wall time because the
// machines they run on are shared: other load inflates wall time far more.
package cputime

// Package cputime reads the CPU time the process has used, user and system.
//
// Benchmarks report it beside wall time: on a shared machine CPU time
// measures the work, where wall time also measures the wait for a core.
package cputime

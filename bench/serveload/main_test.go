package main

import (
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the harness's child, as the
// harness's own executable does.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "-child-serve" {
		os.Exit(childServe(os.Args[2]))
	}
	os.Exit(m.Run())
}

// The harness seeds a small store, serves it and measures every scenario
// without an unexpected answer (the figures themselves are not judged).
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a monitor per scenario")
	}
	dir := t.TempDir()
	cfg, err := setup(dir, 3, 120)
	if err != nil {
		t.Fatal(err)
	}
	o := options{checks: 3, runs: 120, clients: 4, floodConns: 4, floodKB: 100, duration: 200 * time.Millisecond}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			c, err := startChild(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.stop()
			r := sc.drive(c.addr, o)
			if r.requests == 0 || r.errors != 0 {
				t.Errorf("got %d requests, %d unexpected answers (%v), want some and none", r.requests, r.errors, r.statuses)
			}
		})
	}
}

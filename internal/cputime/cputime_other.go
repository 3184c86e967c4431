//go:build !unix

package cputime

import "time"

// Process returns 0 where getrusage is missing: callers then report wall
// time only.
func Process() time.Duration { return 0 }

// Package multiset holds what the drift statistics and the probes share
// about multisets kept as sorted slices.
package multiset

import "cmp"

// Common returns the size of the multiset intersection of sorted a and b:
// how many elements they share, counting repeats.
func Common[T cmp.Ordered](a, b []T) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

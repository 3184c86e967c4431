// Package suggest finds the known name nearest to a misspelt one, for
// "did you mean …?" hints.
package suggest

import "strings"

// Closest returns the candidate nearest to name by edit distance, or "" when
// none is close enough to be a plausible typo.
func Closest(name string, candidates []string) string {
	best, bestD := "", -1
	lname := strings.ToLower(name)
	if len(lname) >= 3 {
		// A known name that starts with what was typed is the likeliest intent.
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), lname) && (best == "" || len(c) < len(best)) {
				best = c
			}
		}
		if best != "" {
			return best
		}
	}
	// Allow roughly one edit per three characters, at least two.
	n := len([]rune(lname))
	limit := max(2, n/3)
	for _, c := range candidates {
		// The distance is at least the difference in length: a candidate
		// beyond the limit by that alone is not measured, so that a name
		// of megabytes costs nothing.
		if abs(n-len([]rune(c))) > limit {
			continue
		}
		d := distance(lname, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Hint returns " (did you mean X?)" for the closest candidate, or "".
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

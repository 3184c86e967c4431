package text

// LCS returns the length of the longest common subsequence of a and b, by
// the textbook dynamic programme in O(len(a)·len(b)) time and
// O(len(b)) space.
func LCS[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

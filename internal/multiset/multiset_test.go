package multiset

import "testing"

func TestCommon(t *testing.T) {
	tests := []struct {
		a, b []int
		want int
	}{
		{nil, nil, 0},
		{[]int{1, 2, 3}, nil, 0},
		{[]int{1, 2, 3}, []int{1, 2, 3}, 3},
		{[]int{1, 1, 2}, []int{1, 2, 2}, 2},
		{[]int{1, 1, 1}, []int{1, 1}, 2},
		{[]int{1, 3, 5}, []int{2, 4, 6}, 0},
	}
	for _, tc := range tests {
		if got := Common(tc.a, tc.b); got != tc.want {
			t.Errorf("Common(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Common(tc.b, tc.a); got != tc.want {
			t.Errorf("Common(%v, %v) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

package httpc

import (
	"net/http"
	"testing"
)

func TestOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://h/x", "http://H:80/y", true},
		{"https://h/x", "https://h:443/y", true},
		{"http://h/x", "https://h/x", false},
		{"http://h:1/x", "http://h:2/x", false},
		{"http://a.example/x", "http://b.example/x", false},
	}
	for _, tc := range tests {
		a, _ := http.NewRequest("GET", tc.a, nil)
		b, _ := http.NewRequest("GET", tc.b, nil)
		if got := origin(a.URL) == origin(b.URL); got != tc.same {
			t.Errorf("same origin %s %s = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

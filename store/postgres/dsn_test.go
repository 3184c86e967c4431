package postgres

import (
	"context"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://canary:s3cret@db.example.com:5432/history?sslmode=require",
			"postgres://canary:xxxxx@db.example.com:5432/history?sslmode=require"},
		{"postgresql://canary@db/history", "postgresql://canary@db/history"},
		{"postgres://db/history", "postgres://db/history"},
		{"postgres://canary:p%40ss%2Fw0rd@db/history", "postgres://canary:xxxxx@db/history"},
		{"postgres://canary:pa/ss@db/history", "postgres://canary:xxxxx@db/history"},
		{"postgres://canary@db/history?password=s3cret&sslmode=disable", "postgres://canary@db/history?password=xxxxx&sslmode=disable"},
		{"host=db user=canary password=s3cret dbname=history", "host=db user=canary password=xxxxx dbname=history"},
		{"host=db password='s3 cret' dbname=history", "host=db password=xxxxx dbname=history"},
		{"POSTGRES://u:s3cret@db/h", "POSTGRES://u:xxxxx@db/h"},
	}
	for _, tc := range tests {
		t.Run(tc.dsn, func(t *testing.T) {
			if got := Redact(tc.dsn); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIsDSN(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://db/h": true, "postgresql://db/h": true, "Postgres://db/h": true,
		".promptcanary/history.db": false, "/var/lib/postgres://x": false, "host=db": false, "": false,
	} {
		if got := IsDSN(dsn); got != want {
			t.Errorf("IsDSN(%q): got %v, want %v", dsn, got, want)
		}
	}
}

// TestNoPasswordInErrors opens stores that cannot be opened: no error
// shows the password, in whatever form it was given.
func TestNoPasswordInErrors(t *testing.T) {
	const secret = "s3cret-Pw"
	tests := []struct{ name, dsn string }{
		{"refused", "postgres://canary:" + secret + "@127.0.0.1:1/history?connect_timeout=2"},
		{"bad port", "postgres://canary:" + secret + "@127.0.0.1:port/history"},
		{"bad parameter", "postgres://canary:" + secret + "@127.0.0.1/history?sslmode=sometimes"},
		{"password with a slash", "postgres://canary:" + secret + "/x@127.0.0.1:1/history?connect_timeout=2"},
		{"key=value refused", "host=127.0.0.1 port=1 user=canary password=" + secret + " connect_timeout=2"},
		{"key=value bad", "host=127.0.0.1 port=x password='" + secret + "'"},
		{"broken URL", "postgres://canary:" + secret + "@[::1/history"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), tc.dsn)
			if err == nil {
				t.Fatal("got no error, want one")
			}
			t.Log(err)
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the password: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "open store ") {
				t.Errorf("got %q, want it to start with open store", err)
			}
		})
	}
}

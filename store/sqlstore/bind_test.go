package sqlstore

import "testing"

func TestBindNumbersPlaceholdersOutsideQuotes(t *testing.T) {
	s := New(nil, &Dialect{Numbered: true}, Hooks{})
	tests := []struct{ q, want string }{
		{`SELECT a FROM t WHERE a = ? AND b IN (?, ?)`, `SELECT a FROM t WHERE a = $1 AND b IN ($2, $3)`},
		{`SELECT '?', "a?" FROM t WHERE a = ?`, `SELECT '?', "a?" FROM t WHERE a = $1`},
		{`SELECT 'it''s ?', '' WHERE a = ? AND b = 'x?'`, `SELECT 'it''s ?', '' WHERE a = $1 AND b = 'x?'`},
		{`SELECT "say ""?""" WHERE a = ?`, `SELECT "say ""?""" WHERE a = $1`},
		{`SELECT 1`, `SELECT 1`},
		{"SELECT a -- don't: a = ?\nFROM t WHERE a = ? AND b = '-- ?'", "SELECT a -- don't: a = ?\nFROM t WHERE a = $1 AND b = '-- ?'"},
		{"SELECT a FROM t WHERE a = ? -- the end, it's ?", "SELECT a FROM t WHERE a = $1 -- the end, it's ?"},
	}
	for _, tc := range tests {
		if got := s.bind(tc.q); got != tc.want {
			t.Errorf("bind(%q): got %q, want %q", tc.q, got, tc.want)
		}
	}
	lite := New(nil, &Dialect{}, Hooks{})
	if q := `SELECT '?' WHERE a = ?`; lite.bind(q) != q {
		t.Errorf("bind(%q) without numbered placeholders: got %q, want it unchanged", q, lite.bind(q))
	}
}

// Package termtext makes untrusted text safe to print on a terminal and
// measures it in terminal columns.
//
// Model output, suite names, model ids and the contents of baseline files
// can hold escape sequences that move the cursor, change colours, set the
// window title or reorder text (bidirectional overrides). Everything the
// tool prints from such a source goes through Safe first; the width helpers
// then lay it out by columns rather than bytes.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe makes untrusted text safe for one terminal line: line breaks and tabs
// become spaces, and C0 and C1 controls (ESC and with it every ANSI CSI and
// OSC sequence, BEL, DEL), invalid UTF-8 and format characters (the
// bidirectional overrides and isolates among them) are shown escaped, as
// \x1b or \u202e, so they cannot move the cursor, change colours, set a
// title or reorder text. Text that needs no change is returned as is.
func Safe(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			b.WriteByte(' ')
			w = 2
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SafeLines is like Safe but keeps line breaks ("\r\n" and "\r" become
// "\n"), for untrusted text shown as a block of several lines. Tabs become
// spaces.
func SafeLines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return Safe(s)
	}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\n")
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	return strings.Join(lines, "\n")
}

// isClean reports whether s holds nothing Safe would change.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0xa0 || r == utf8.RuneError || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += size
	}
	return true
}

// RuneWidth is the number of terminal columns r takes: 0 for controls,
// combining marks and format characters, 2 for East Asian wide characters
// and most emoji, 1 otherwise.
func RuneWidth(r rune) int {
	switch {
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return 0
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || (r >= 0xfe00 && r <= 0xfe0f):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0x303e, r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf, r >= 0x4e00 && r <= 0x9fff, r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// Width is the number of terminal columns s takes; s should be safe (see
// Safe), since escape sequences are counted as the characters they are.
func Width(s string) int {
	if isASCIIPrintable(s) {
		return len(s)
	}
	n := 0
	for _, r := range s {
		n += RuneWidth(r)
	}
	return n
}

// Truncate cuts s to at most w columns, ending with "…" when it was cut.
// It returns "" when w is 0 or less.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	n := 0
	for i, r := range s {
		rw := RuneWidth(r)
		if n+rw > w-1 {
			return s[:i] + "…"
		}
		n += rw
	}
	return s
}

// PadRight pads s with spaces to w columns; s is returned as is when it is
// already as wide.
func PadRight(s string, w int) string {
	if n := Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

package promptcanary

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cut bounds r to n bytes of content: a longer Content is cut on a
// character boundary and copied, so that the whole answer can be freed;
// original, when larger, is the size the provider reported before it cut
// the answer itself while reading it. Either way r is marked Truncated
// with the whole answer's size in OriginalBytes. A raw response longer
// than n is dropped (the fields parsed from it are kept). n <= 0 keeps
// everything.
func (r *Response) Cut(n int, original int64) {
	if n <= 0 {
		return
	}
	if len(r.Content) > n {
		original = max(original, int64(len(r.Content)))
		k := n
		for k > 0 && !utf8.RuneStart(r.Content[k]) {
			k--
		}
		r.Content = strings.Clone(r.Content[:k])
	}
	if original > int64(len(r.Content)) {
		r.Truncated = true
		r.OriginalBytes = max(r.OriginalBytes, original)
	}
	if len(r.RawResponse) > n {
		r.RawResponse = nil
	}
}

// CutNote says how much of a truncated answer was kept ("answer cut to
// 1.0 MiB of 5.0 MiB", "tool calls cut to the first 128 of 20000");
// "" when r was not cut.
func (r *Response) CutNote() string {
	if !r.Truncated {
		return ""
	}
	bytes := "answer cut to " + FormatBytes(r.ContentLen()) + " of " + FormatBytes(r.OriginalBytes)
	if r.OriginalToolCalls <= len(r.ToolCalls) {
		return bytes
	}
	calls := fmt.Sprintf("tool calls cut to the first %d of %d", len(r.ToolCalls), r.OriginalToolCalls)
	if r.OriginalBytes > r.ContentLen() {
		return bytes + "; " + calls
	}
	return calls
}

// FormatBytes prints a size in bytes with binary units: "900 B",
// "12.5 KiB", "5.0 MiB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

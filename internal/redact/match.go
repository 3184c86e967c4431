package redact

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// MinRun is the shortest run of a secret's characters that is scrubbed on
// its own: any MinRun or more consecutive bytes of a secret (or of one of
// its JSON forms), in any case of its ASCII letters, are replaced, so
// that a key cut short ("the first 20 characters") or upper-cased by a
// model does not survive. A secret shorter than MinRun is replaced only
// whole, in any case.
const MinRun = 12

// filterBits is the size, as a power of two, of the bit set of window
// hashes that lets the scan skip almost every window without a map look-up.
const filterBits = 16

// hashBase is the multiplier of the rolling hash (odd, so the hash of a
// window is a bijection of its last byte).
const hashBase = 0x100000001b3

// index is an immutable snapshot of a Set: its forms, and the MinRun-byte
// windows ("grams") of the lower-cased forms that are at least MinRun bytes
// long, for a Rabin–Karp scan of a text.
type index struct {
	// forms are the secrets and their JSON forms as added, longest first.
	forms  []string
	maxLen int
	// short are the lower-cased forms shorter than MinRun, matched whole.
	short []string
	// long are the lower-cased forms of MinRun bytes or more.
	long []string
	// grams holds every lower-cased MinRun-byte window of long; filter has
	// the bit of each gram's hash set.
	grams  map[[MinRun]byte]struct{}
	filter []uint64
	// brackets is set when a form holds a byte of Placeholder's ends, so
	// that a Placeholder written in may complete a run: scrubbing then
	// repeats until nothing changes.
	brackets bool
}

// lower maps ASCII upper-case letters to lower case and every other byte to
// itself, so that a lower-cased text keeps its byte offsets.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower[c]
	}
	return string(b)
}

// hashPow is hashBase to the power MinRun: what the byte leaving a window
// contributed to its hash.
var hashPow = func() uint64 {
	p := uint64(1)
	for range MinRun {
		p *= hashBase
	}
	return p
}()

// bucket is the filter bit of a window hash.
func bucket(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> (64 - filterBits) }

// newIndex indexes forms (longest first).
func newIndex(forms []string) *index {
	x := &index{forms: forms}
	for _, f := range forms {
		x.maxLen = max(x.maxLen, len(f))
		lf := lowerASCII(f)
		x.brackets = x.brackets || strings.ContainsAny(f, "[]")
		if len(lf) < MinRun {
			if !slices.Contains(x.short, lf) {
				x.short = append(x.short, lf)
			}
			continue
		}
		if slices.Contains(x.long, lf) {
			continue
		}
		x.long = append(x.long, lf)
		if x.grams == nil {
			x.grams = map[[MinRun]byte]struct{}{}
			x.filter = make([]uint64, 1<<filterBits/64)
		}
		for i := SecretStart(lf); i+MinRun <= len(lf); i++ {
			var g [MinRun]byte
			copy(g[:], lf[i:])
			x.grams[g] = struct{}{}
			var h uint64
			for _, c := range g {
				h = h*hashBase + uint64(c)
			}
			b := bucket(h)
			x.filter[b/64] |= 1 << (b % 64)
		}
	}
	return x
}

// empty reports whether x scrubs nothing.
func (x *index) empty() bool { return x == nil || len(x.forms) == 0 }

// span is a byte range [start, end) of a text to replace.
type span struct{ start, end int }

// replace returns str with every run of a secret replaced with
// Placeholder (see MinRun). Overlapping or touching runs are replaced
// with one Placeholder. A text that holds none is returned as is, without
// allocating.
func (x *index) replace(str string) string {
	if x.empty() {
		return str
	}
	for range len(str) + 1 {
		spans := x.spans(str)
		if len(spans) == 0 {
			return str
		}
		str = cut(str, spans)
		if !x.brackets {
			return str
		}
	}
	return str
}

// cut replaces each span of str with Placeholder.
func cut(str string, spans []span) string {
	var b strings.Builder
	b.Grow(len(str))
	at := 0
	for _, s := range spans {
		b.WriteString(str[at:s.start])
		b.WriteString(Placeholder)
		at = s.end
	}
	b.WriteString(str[at:])
	return b.String()
}

// spans returns the merged, sorted ranges of str to replace, widened to
// whole UTF-8 characters.
func (x *index) spans(str string) []span {
	spans := x.gramSpans(str, nil)
	if len(x.short) > 0 {
		spans = x.shortSpans(str, spans)
	}
	if len(spans) == 0 {
		return nil
	}
	for i := range spans {
		s := &spans[i]
		s.start = charStart(str, s.start)
		if j := charStart(str, s.end-1); j < s.end {
			_, size := utf8.DecodeRuneInString(str[j:])
			s.end = max(s.end, j+size)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start <= last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// charStart returns the start of the UTF-8 character that holds byte i of
// str, or i when no valid character does (a stray continuation byte is a
// character of its own, as utf8.DecodeRuneInString reads it).
func charStart(str string, i int) int {
	for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(str[j]) {
			if _, size := utf8.DecodeRuneInString(str[j:]); j+size > i {
				return j
			}
			return i
		}
	}
	return i
}

// gramSpans appends the windows of str that are grams of a long form, by a
// rolling hash over its lower-cased bytes checked against the filter, then
// against the grams. Windows that overlap or touch are appended as one.
func (x *index) gramSpans(str string, spans []span) []span {
	if x.grams == nil || len(str) < MinRun {
		return spans
	}
	var h uint64
	for i := range MinRun - 1 {
		h = h*hashBase + uint64(lower[str[i]])
	}
	filter := x.filter
	for i := MinRun - 1; i < len(str); i++ {
		h = h*hashBase + uint64(lower[str[i]])
		if i >= MinRun {
			h -= uint64(lower[str[i-MinRun]]) * hashPow
		}
		if b := bucket(h); filter[b/64]&(1<<(b%64)) == 0 {
			continue
		}
		start := i + 1 - MinRun
		var g [MinRun]byte
		for j := range g {
			g[j] = lower[str[start+j]]
		}
		if _, ok := x.grams[g]; !ok {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1].end >= start {
			spans[n-1].end = i + 1
			continue
		}
		spans = append(spans, span{start, i + 1})
	}
	return spans
}

// shortSpans appends every occurrence of a short form in str, in any case.
// It finds the form's first byte in either case with strings.IndexByte,
// which is fast, remembering the next of each so that neither is looked
// for twice, and allocates nothing.
func (x *index) shortSpans(str string, spans []span) []span {
	for _, f := range x.short {
		last := len(str) - len(f) // the last index f can start at
		c := [2]byte{f[0], f[0]}
		if c[0] >= 'a' && c[0] <= 'z' {
			c[1] = c[0] - 'a' + 'A'
		}
		next := [2]int{-1, -1} // the next index of each, -2 for none
		for at := 0; at <= last; {
			i := -2
			for v := range c {
				if next[v] != -2 && next[v] < at {
					next[v] = -2
					if j := strings.IndexByte(str[at:last+1], c[v]); j >= 0 {
						next[v] = at + j
					}
				}
				if next[v] >= 0 && (i < 0 || next[v] < i) {
					i = next[v]
				}
			}
			if i < 0 {
				break
			}
			if equalLower(str[i:i+len(f)], f) {
				spans = append(spans, span{i, i + len(f)})
			}
			at = i + 1
		}
	}
	return spans
}

// equalLower reports whether s lower-cased (ASCII letters only) is f.
func equalLower(s, f string) bool {
	for i := range len(f) {
		if lower[s[i]] != f[i] {
			return false
		}
	}
	return true
}

// pending is the length of the longest tail of str that a later write may
// extend into a run to replace: a tail that is the start of a gram of a
// long form or a proper prefix of a short form, in any case, or a last
// character cut short (incompleteTail), moved back to the start of its
// character and of any span it overlaps or touches.
func (x *index) pending(str string, spans []span) int {
	keep := 0
	for k := min(MinRun-1, len(str)); k > 0 && keep == 0; k-- {
		tail := lowerASCII(str[len(str)-k:])
		for _, f := range x.long {
			if strings.Contains(f[:len(f)-MinRun+k], tail) {
				keep = k
				break
			}
		}
		for _, f := range x.short {
			if len(f) > k && strings.HasPrefix(f, tail) {
				keep = k
				break
			}
		}
	}
	at := min(len(str)-keep, incompleteTail(str))
	for at > 0 && at < len(str) && !utf8.RuneStart(str[at]) {
		at--
	}
	for _, s := range spans {
		if s.end >= at {
			at = min(at, s.start)
			break
		}
	}
	return len(str) - at
}

// incompleteTail returns where the character that the end of str cuts
// short begins, or len(str) when none is: a later write may complete it,
// and a span that starts within it is widened to its start (spans), so
// none of it may be written yet.
func incompleteTail(str string) int {
	for j := len(str) - 1; j >= 0 && j > len(str)-utf8.UTFMax; j-- {
		if utf8.RuneStart(str[j]) {
			if !utf8.FullRuneInString(str[j:]) {
				return j
			}
			break
		}
	}
	return len(str)
}

// SecretStart returns the offset in secret where the part to guard begins:
// past the scheme and host of a URL, whose path holds the secret
// ("https://hooks.slack.com" begins every Slack webhook's URL and answers
// about them; a run of it is no leak), or 0. A URL whose authority holds
// credentials, or whose path is shorter than MinRun bytes, is guarded
// whole. Runs of a secret are scrubbed from SecretStart on; the secret
// whole, always.
func SecretStart(secret string) int {
	for _, sep := range []string{"://", `:\/\/`} {
		i := strings.Index(secret, sep)
		if i <= 0 || !scheme(secret[:i]) {
			continue
		}
		host := i + len(sep)
		end := strings.IndexAny(secret[host:], `/\?#`)
		if end < 0 {
			return 0
		}
		end += host
		if strings.ContainsRune(secret[host:end], '@') || len(secret)-end < MinRun {
			return 0
		}
		return end
	}
	return 0
}

// scheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func scheme(s string) bool {
	for i, c := range []byte(s) {
		letter := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

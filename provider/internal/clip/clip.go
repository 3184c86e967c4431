// Package clip bounds an answer while it is read, so that a provider's
// body of many megabytes is never held whole: a JSON body keeps every
// string value to its first Max bytes (the rest of each string is
// dropped, the document stays valid JSON), a body of plain text keeps its
// first Max bytes. What was cut, and how large the largest cut string
// was, is recorded in a provider.Bound.
package clip

import (
	"io"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/provider"
)

// state is where the scanner stands in the body.
type state uint8

const (
	start   state = iota // before the first byte that is not a space
	text                 // a body that is not JSON
	outside              // JSON, outside a string
	inside               // JSON, inside a string
	escape               // JSON, after a backslash
	hex                  // JSON, inside the four digits of \u
)

// scanner follows a body byte by byte and says which bytes are kept.
type scanner struct {
	bound *provider.Bound
	max   int
	st    state
	// raw counts the bytes of the current string (or text) kept, decoded
	// the decoded bytes it had in all, cut whether it is being dropped.
	raw     int
	decoded int64
	cut     bool
	// digits and code read a \u escape.
	digits int
	code   rune
}

// Reader reads r with every JSON string, or the whole of a text, cut to
// Max bytes of its JSON form (a text: of its bytes).
type Reader struct {
	r io.Reader
	scanner
}

// New returns a Reader of r that cuts at b.Max and records cuts in b; a
// nil b, or one with no Max, returns r itself.
func New(r io.Reader, b *provider.Bound) io.Reader {
	if b == nil || b.Max <= 0 {
		return r
	}
	return &Reader{r: r, scanner: scanner{bound: b, max: b.Max}}
}

// Read reads from the underlying reader and filters in place.
func (c *Reader) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		k := c.filter(p[:n], p)
		if err == io.EOF {
			c.end()
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// Writer writes to w what it is given with every JSON string, or the
// whole of a text, cut as a Reader cuts it. Close records a cut text.
type Writer struct {
	w   io.Writer
	buf []byte
	scanner
}

// NewWriter returns a Writer to w that cuts at b.Max and records cuts in
// b; with a nil b, or one with no Max, it passes everything.
func NewWriter(w io.Writer, b *provider.Bound) *Writer {
	x := &Writer{w: w, scanner: scanner{bound: b}}
	if b != nil {
		x.max = b.Max
	}
	return x
}

// Write writes the bytes of p that are kept and returns len(p).
func (c *Writer) Write(p []byte) (int, error) {
	if c.bound == nil || c.max <= 0 {
		return c.w.Write(p)
	}
	c.buf = append(c.buf[:0], p...)
	k := c.filter(c.buf, c.buf)
	if k == 0 {
		return len(p), nil
	}
	if _, err := c.w.Write(c.buf[:k]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close records the cut of a text that ended; it closes nothing.
func (c *Writer) Close() error {
	c.end()
	return nil
}

// filter copies the kept bytes of b to out (which may be b) and returns
// how many there are.
func (c *scanner) filter(b, out []byte) int {
	k := 0
	for _, x := range b {
		if c.keep(x) {
			out[k] = x
			k++
		}
	}
	return k
}

// keep advances the scanner by one byte and reports whether it is kept.
func (c *scanner) keep(x byte) bool {
	switch c.st {
	case start:
		switch x {
		case ' ', '\t', '\r', '\n':
			return true
		case '{', '[', '"':
			c.st = outside
			return c.keep(x)
		}
		c.st = text
		return c.keep(x)
	case text:
		c.decoded++
		if c.raw >= c.max && utf8.RuneStart(x) {
			c.cut = true
		}
		if c.cut {
			return false
		}
		c.raw++
		return true
	case outside:
		if x == '"' {
			c.st, c.raw, c.decoded, c.cut = inside, 0, 0, false
		}
		return true
	case escape:
		c.st = inside
		if x == 'u' {
			c.st, c.digits, c.code = hex, 0, 0
			return c.kept(1)
		}
		c.decoded++
		return c.kept(1)
	case hex:
		c.code = c.code<<4 | rune(unhex(x))
		if c.digits++; c.digits == 4 {
			c.st = inside
			if c.code >= 0xd800 && c.code < 0xe000 {
				c.decoded += 2 // half of a surrogate pair's four bytes
			} else {
				c.decoded += int64(utf8.RuneLen(c.code))
			}
		}
		return c.kept(1)
	}
	// inside a string
	switch {
	case x == '"':
		c.st = outside
		c.close()
		return true
	case !c.cut && c.raw >= c.max && utf8.RuneStart(x):
		c.cut = true // a new character (or escape) past the bound
	}
	if x == '\\' {
		c.st = escape
	} else {
		c.decoded++
	}
	return c.kept(1)
}

// kept counts n bytes of the current string as kept unless it is cut.
func (c *scanner) kept(n int) bool {
	if c.cut {
		return false
	}
	c.raw += n
	return true
}

// close records a cut string when one ends.
func (c *scanner) close() {
	if c.cut {
		c.bound.Record(c.decoded)
	}
}

// end records a cut text at the end of the body.
func (c *scanner) end() {
	if c.st == text {
		c.close()
		c.st = start
	}
}

func unhex(x byte) byte {
	switch {
	case x >= '0' && x <= '9':
		return x - '0'
	case x >= 'a' && x <= 'f':
		return x - 'a' + 10
	case x >= 'A' && x <= 'F':
		return x - 'A' + 10
	}
	return 0
}

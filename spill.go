package promptcanary

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// AnswerHeadBytes is how much of an answer a Response holds in memory
// (64 KiB): a longer answer, once the probes have judged it, keeps its
// first AnswerHeadBytes in Content and moves whole to a temporary spill
// file (see Response.SpillContent), from which the stores copy it. A
// comparison reads no more than the head of an answer: its similarity
// profiles take the first 4,000 characters and the similarity probe the
// first 32 KiB; its length and its identity come with the spill.
const AnswerHeadBytes = 64 << 10

// Spill is the whole of an answer longer than AnswerHeadBytes, kept in a
// temporary file of this process rather than in memory: its size, its
// characters, a digest that tells equal answers apart, and the text
// itself, read back with Reader or Text. A Spill never changes; the
// file is removed when the process exits and its space freed once no
// Spill refers to it.
type Spill struct {
	n     int64
	runes int
	sum   [sha256.Size]byte
	head  string
	seg   *segment
	off   int64
}

// Len is the size of the answer in bytes.
func (s *Spill) Len() int64 { return s.n }

// Runes is the number of characters of the answer.
func (s *Spill) Runes() int { return s.runes }

// Head is the first AnswerHeadBytes of the answer, cut on a character
// boundary: what Response.Content holds.
func (s *Spill) Head() string { return s.head }

// Reader reads the whole answer.
func (s *Spill) Reader() io.Reader { return io.NewSectionReader(s.seg.f, s.off, s.n) }

// Text reads the whole answer into memory.
func (s *Spill) Text() (string, error) {
	var b strings.Builder
	b.Grow(int(s.n))
	if _, err := io.Copy(&b, s.Reader()); err != nil {
		return "", fmt.Errorf("read a spilled answer back: %w", err)
	}
	if int64(b.Len()) != s.n {
		return "", fmt.Errorf("read a spilled answer back: got %d bytes, want %d", b.Len(), s.n)
	}
	return b.String(), nil
}

// key identifies the answer among others: its digest, after two bytes
// that are not UTF-8 (no answer's text) and its size.
func (s *Spill) key() string {
	return "\xff\xfe" + strconv.FormatInt(s.n, 10) + ":" + string(s.sum[:])
}

// segment is one temporary spill file. It is unlinked as soon as it is
// made, and closed (its space freed) when no Spill refers to it.
type segment struct {
	f    *os.File
	size int64
}

// segmentBytes is how large a spill file grows before the next answer
// goes to a new one, so that the space of answers no longer needed is
// freed with their file.
const segmentBytes = 64 << 20

var spool struct {
	mu  sync.Mutex
	seg *segment
}

// SpillString moves s, an answer, to a spill file and returns its Spill.
func SpillString(s string) (*Spill, error) {
	return spill(strings.NewReader(s), int64(len(s)))
}

// SpillReader copies an answer of n bytes from r to a spill file and
// returns its Spill, never holding more than AnswerHeadBytes of it.
func SpillReader(r io.Reader, n int64) (*Spill, error) { return spill(r, n) }

func spill(r io.Reader, n int64) (*Spill, error) {
	spool.mu.Lock()
	defer spool.mu.Unlock()
	if spool.seg == nil || spool.seg.size >= segmentBytes {
		seg, err := newSegment()
		if err != nil {
			return nil, err
		}
		spool.seg = seg
	}
	seg := spool.seg
	s := &Spill{seg: seg, off: seg.size}
	h := sha256.New()
	w := &spillWriter{f: seg.f, off: seg.size, h: h, s: s}
	copied, err := io.Copy(w, io.LimitReader(r, n))
	if err == nil && copied != n {
		err = fmt.Errorf("got %d bytes, want %d", copied, n)
	}
	if err == nil {
		err = w.finish()
	}
	if err != nil {
		spool.seg = nil // a failed write may have left the file short
		return nil, fmt.Errorf("spill an answer to a temporary file: %w", err)
	}
	seg.size += n
	s.n = n
	h.Sum(s.sum[:0])
	return s, nil
}

// spillWriter writes to the spill file at off, hashing and counting the
// characters of what it writes and keeping its head.
type spillWriter struct {
	f       *os.File
	off     int64
	h       io.Writer
	s       *Spill
	head    []byte
	partial []byte // the start of a character split between writes
	buf     []byte
}

func (w *spillWriter) Write(p []byte) (int, error) {
	if _, err := w.f.WriteAt(p, w.off); err != nil {
		return 0, err
	}
	w.off += int64(len(p))
	w.h.Write(p)
	if room := AnswerHeadBytes + utf8.UTFMax - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(room, len(p))]...)
	}
	for q := p; len(q) > 0; {
		n := min(len(q), 32<<10)
		w.buf = append(append(w.buf[:0], w.partial...), q[:n]...)
		q = q[n:]
		k := len(w.buf)
		for i := 1; i <= utf8.UTFMax && i <= len(w.buf); i++ {
			if utf8.RuneStart(w.buf[len(w.buf)-i]) {
				if !utf8.FullRune(w.buf[len(w.buf)-i:]) {
					k = len(w.buf) - i // held back: the rest comes next
				}
				break
			}
		}
		w.s.runes += utf8.RuneCount(w.buf[:k])
		w.partial = append(w.partial[:0], w.buf[k:]...)
	}
	return len(p), nil
}

// finish counts a dangling partial character and cuts the head.
func (w *spillWriter) finish() error {
	w.s.runes += utf8.RuneCount(w.partial)
	head := w.head
	if len(head) > AnswerHeadBytes {
		k := AnswerHeadBytes
		for k > 0 && !utf8.RuneStart(head[k]) {
			k--
		}
		head = head[:k]
	}
	w.s.head = string(head)
	return nil
}

func newSegment() (*segment, error) {
	f, err := os.CreateTemp("", "promptcanary-answers-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	seg := &segment{f: f}
	runtime.AddCleanup(seg, func(f *os.File) { f.Close() }, f)
	return seg, nil
}

// SpillContent moves a Content longer than AnswerHeadBytes to a spill
// file: Content keeps its head and Spill the whole. It does nothing to a
// shorter Content or a response already spilled.
func (r *Response) SpillContent() error {
	if r.Spill != nil || len(r.Content) <= AnswerHeadBytes {
		return nil
	}
	s, err := SpillString(r.Content)
	if err != nil {
		return err
	}
	r.Content, r.Spill = s.head, s
	return nil
}

// ContentLen is the size of the answer in bytes, spilled or not.
func (r *Response) ContentLen() int64 {
	if r.Spill != nil {
		return r.Spill.n
	}
	return int64(len(r.Content))
}

// ContentRunes is the number of characters of the answer, spilled or not.
func (r *Response) ContentRunes() int {
	if r.Spill != nil {
		return r.Spill.runes
	}
	return utf8.RuneCountInString(r.Content)
}

// ContentKey identifies the answer's content: two responses have equal
// keys exactly when their contents are equal (up to a SHA-256 collision
// of spilled ones).
func (r *Response) ContentKey() string {
	if r.Spill != nil {
		return r.Spill.key()
	}
	return r.Content
}

// FullContent is the whole answer: Content, or the spilled text.
func (r *Response) FullContent() (string, error) {
	if r.Spill == nil {
		return r.Content, nil
	}
	return r.Spill.Text()
}

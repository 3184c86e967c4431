package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// Answers longer than promptcanary.AnswerHeadBytes live in spill files
// (promptcanary.Spill), and a response holds their head. A run or a
// baseline is encoded with a marker in place of each such answer, a
// string no model can write (it holds a random token of this process),
// and the encoded JSON is then copied with every marker replaced by the
// whole answer (expandTo), read from its spill file: the document never
// holds the answers. Decoding goes the other way (contractJSON): an
// answer longer than the head, read from a document a piece at a time,
// moves to a spill file and a marker takes its place, which the decoders
// resolve (resolveSpill) into the head and the spill.

// spillToken makes this process's markers its own.
var spillToken = func() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// markerPrefix starts every marker; a marker is markerPrefix, a number
// and a NUL.
var markerPrefix = markerBase + spillToken + "-"

// markerJSON is how markerPrefix starts in encoded JSON.
var markerJSON = []byte(`"\u0000promptcanary-answer-` + spillToken + "-")

var (
	spills     sync.Map // marker → *promptcanary.Spill
	markerSeq  atomic.Int64
	errNoSpill = errors.New("an answer's spill file is gone")
)

// markers are the markers of one encoding or decoding, forgotten by
// release.
type markers struct{ keys []string }

func (m *markers) add(s *promptcanary.Spill) string {
	k := markerPrefix + strconv.FormatInt(markerSeq.Add(1), 10) + "\x00"
	spills.Store(k, s)
	m.keys = append(m.keys, k)
	return k
}

func (m *markers) release() {
	for _, k := range m.keys {
		spills.Delete(k)
	}
	m.keys = nil
}

// resolveSpill turns a marker in r's content into the spilled answer's
// head and spill.
func resolveSpill(r *promptcanary.Response) {
	if !strings.HasPrefix(r.Content, markerBase) {
		return
	}
	if v, ok := spills.Load(r.Content); ok {
		s := v.(*promptcanary.Spill)
		r.Content, r.Spill = s.Head(), s
	}
}

// spilled reports whether some response of r lives in a spill file.
func spilled(r *promptcanary.Run) bool {
	for i := range r.LLMResponses {
		if r.LLMResponses[i].Spill != nil {
			return true
		}
	}
	return false
}

// marked returns r, or when some answers of r are spilled a copy of it
// whose responses hold markers in their place, with the markers.
func marked(r *promptcanary.Run) (*promptcanary.Run, *markers) {
	m := &markers{}
	if !spilled(r) {
		return r, m
	}
	c := *r
	c.LLMResponses = slices.Clone(r.LLMResponses)
	for i := range c.LLMResponses {
		if s := c.LLMResponses[i].Spill; s != nil {
			c.LLMResponses[i].Content, c.LLMResponses[i].Spill = m.add(s), nil
		}
	}
	return &c, m
}

// markedValue is marked for a value Marshal may be given: a run or a
// baseline, or anything else as it is.
func markedValue(v any) (any, *markers) {
	switch x := v.(type) {
	case *promptcanary.Run:
		return marked(x)
	case promptcanary.Run:
		return marked(&x)
	case *promptcanary.Baseline:
		r, m := marked(&x.RunResult)
		if r == &x.RunResult {
			return x, m
		}
		c := *x
		c.RunResult = *r
		return &c, m
	case promptcanary.Baseline:
		r, m := marked(&x.RunResult)
		x.RunResult = *r
		return &x, m
	}
	return v, &markers{}
}

// withAnswers returns data, JSON encoded with the markers m, with every
// marker replaced by its answer: data itself when there is none.
func withAnswers(data []byte, m *markers) ([]byte, error) {
	defer m.release()
	if len(m.keys) == 0 {
		return data, nil
	}
	var b bytes.Buffer
	if err := expandTo(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// expandTo writes data, JSON, to w with every marker string replaced by
// its answer, quoted as encoding/json quotes it and read from its spill
// file a piece at a time.
func expandTo(w io.Writer, data []byte) error {
	for {
		i := bytes.Index(data, markerJSON)
		if i < 0 {
			_, err := w.Write(data)
			return err
		}
		rest := data[i+len(markerJSON):]
		end := bytes.Index(rest, []byte(`\u0000"`))
		if end < 0 {
			return errors.New("encode answers: a marker without its end")
		}
		key := markerPrefix + string(rest[:end]) + "\x00"
		v, ok := spills.Load(key)
		if !ok {
			return errNoSpill
		}
		if _, err := w.Write(data[:i]); err != nil {
			return err
		}
		if err := writeQuoted(w, v.(*promptcanary.Spill).Reader()); err != nil {
			return fmt.Errorf("encode answers: %w", err)
		}
		data = rest[end+len(`\u0000"`):]
	}
}

// writeQuoted writes what r reads as a JSON string, quoted as
// appendString quotes it, a piece at a time, each cut on a character
// boundary so that it is quoted as the whole would be.
func writeQuoted(w io.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	var out []byte
	if _, err := w.Write([]byte{'"'}); err != nil {
		return err
	}
	n := 0
	for {
		k, err := r.Read(buf[n:])
		n += k
		cut := n
		if err == nil {
			cut = wholeRunes(buf[:n])
		}
		if cut > 0 {
			out = appendString(out[:0], string(buf[:cut]))
			if _, werr := w.Write(out[1 : len(out)-1]); werr != nil {
				return werr
			}
		}
		n = copy(buf, buf[cut:n])
		if err == io.EOF {
			_, err = w.Write([]byte{'"'})
			return err
		}
		if err != nil {
			return err
		}
	}
}

// wholeRunes is the length of the longest prefix of b that does not end
// within a character.
func wholeRunes(b []byte) int {
	for j := len(b) - 1; j >= 0 && j >= len(b)-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			if !utf8.FullRune(b[j:]) {
				return j
			}
			break
		}
	}
	return len(b)
}

// contractJSON reads a JSON document from r and returns it with every
// answer longer than promptcanary.AnswerHeadBytes (a "content" of a plain
// list of responses, a string of a compact one) moved to a spill file and
// a marker in its place, and those markers: the document is never held
// with its answers. Other strings are left as they are.
func contractJSON(r io.Reader) ([]byte, *markers, error) {
	c := &contractor{in: bufio.NewReaderSize(r, 64<<10), m: &markers{}}
	if err := c.run(); err != nil {
		c.m.release()
		return nil, nil, err
	}
	return c.out.Bytes(), c.m, nil
}

// contractor is the state of contractJSON: the containers it is in, each
// with the key it sits under and, for an object, its current key.
type contractor struct {
	in    *bufio.Reader
	out   bytes.Buffer
	m     *markers
	stack []frame
	str   []byte
}

type frame struct {
	object   bool
	under    string // the key of this container in its parent object
	key      string // an object's current key
	afterKey bool   // an object's next string is a value
}

func (c *contractor) run() error {
	for {
		b, err := c.in.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch b {
		case '{', '[':
			under := ""
			if n := len(c.stack); n > 0 && c.stack[n-1].object {
				under = c.stack[n-1].key
			}
			c.stack = append(c.stack, frame{object: b == '{', under: under})
			c.out.WriteByte(b)
		case '}', ']':
			if len(c.stack) > 0 {
				c.stack = c.stack[:len(c.stack)-1]
			}
			c.out.WriteByte(b)
		case ':':
			if n := len(c.stack); n > 0 {
				c.stack[n-1].afterKey = true
			}
			c.out.WriteByte(b)
		case ',':
			if n := len(c.stack); n > 0 {
				c.stack[n-1].afterKey = false
			}
			c.out.WriteByte(b)
		case '"':
			if err := c.string(); err != nil {
				return err
			}
		default:
			c.out.WriteByte(b)
		}
	}
}

// string copies one string literal, its opening quote read.
func (c *contractor) string() error {
	c.str = append(c.str[:0], '"')
	for {
		b, err := c.in.ReadByte()
		if err != nil {
			return fmt.Errorf("read answers: unterminated string: %w", err)
		}
		c.str = append(c.str, b)
		if b == '\\' {
			e, err := c.in.ReadByte()
			if err != nil {
				return fmt.Errorf("read answers: unterminated string: %w", err)
			}
			c.str = append(c.str, e)
			continue
		}
		if b == '"' {
			break
		}
	}
	n := len(c.stack)
	if n > 0 && c.stack[n-1].object && !c.stack[n-1].afterKey {
		var k string
		if json.Unmarshal(c.str, &k) == nil {
			c.stack[n-1].key = k
		}
		c.out.Write(c.str)
		return nil
	}
	if len(c.str) <= promptcanary.AnswerHeadBytes+2 || !c.answer() {
		c.out.Write(c.str)
		return nil
	}
	sp, ok, err := c.spill()
	if err != nil {
		return err
	}
	if !ok {
		c.out.Write(c.str)
		return nil
	}
	q, _ := json.Marshal(c.m.add(sp))
	c.out.Write(q)
	return nil
}

// spill moves the string read, when longer than the head, to a spill
// file: as it is when it has no escapes, decoded otherwise.
func (c *contractor) spill() (*promptcanary.Spill, bool, error) {
	raw := c.str[1 : len(c.str)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		sp, err := promptcanary.SpillReader(bytes.NewReader(raw), int64(len(raw)))
		return sp, err == nil, err
	}
	var s string
	if err := json.Unmarshal(c.str, &s); err != nil || len(s) <= promptcanary.AnswerHeadBytes {
		return nil, false, nil
	}
	sp, err := promptcanary.SpillString(s)
	return sp, err == nil, err
}

// answer reports whether the string being read is an answer: the content
// of a response in a plain "llm_responses" list, or a string of the
// table of a compact one.
func (c *contractor) answer() bool {
	n := len(c.stack)
	if n < 2 {
		return false
	}
	top, parent := c.stack[n-1], c.stack[n-2]
	if top.object {
		return top.key == "content" && !parent.object && parent.under == "llm_responses"
	}
	return top.under == "strings" && parent.object && parent.under == "llm_responses"
}

// Answer is an answer a store keeps apart from the run or baseline it
// belongs to (see MarshalRunApart): the document holds Marker in its
// place. A store keeps Marker and the whole answer, read from Spill, and
// gives them back to ResolveAnswers before it decodes the document.
type Answer struct {
	Marker string
	Spill  *promptcanary.Spill
}

// storedMarker is the marker of answer i of a document a store saves;
// token is the save's own, so that no model can write one.
func storedMarker(token string, i int) string {
	return markerBase + token + "-" + strconv.Itoa(i) + "\x00"
}

// markerBase starts every marker, this process's and a store's.
const markerBase = "\x00promptcanary-answer-"

// apart returns r, or when some answers of r are spilled a copy whose
// responses hold stored markers in their place, with those answers.
func apart(r *promptcanary.Run) (*promptcanary.Run, []Answer) {
	if !spilled(r) {
		return r, nil
	}
	var b [12]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	c := *r
	c.LLMResponses = slices.Clone(r.LLMResponses)
	var as []Answer
	for i := range c.LLMResponses {
		if s := c.LLMResponses[i].Spill; s != nil {
			a := Answer{Marker: storedMarker(token, i), Spill: s}
			c.LLMResponses[i].Content, c.LLMResponses[i].Spill = a.Marker, nil
			as = append(as, a)
		}
	}
	return &c, as
}

// MarshalRunApart is MarshalRun for a store that keeps long answers apart:
// each spilled answer of r is written as a marker, and returned to be
// stored beside the run. A run without spilled answers is encoded exactly
// as by MarshalRun.
func MarshalRunApart(r *promptcanary.Run, l Layout) ([]byte, []Answer, error) {
	c, as := apart(r)
	out, err := MarshalRun(c, l)
	return out, as, err
}

// MarshalBaselineApart is MarshalRunApart for a baseline (MarshalBaseline).
func MarshalBaselineApart(b *promptcanary.Baseline, l Layout) ([]byte, []Answer, error) {
	c, as := apart(&b.RunResult)
	if len(as) == 0 {
		out, err := MarshalBaseline(b, l)
		return out, nil, err
	}
	cb := *b
	cb.RunResult = *c
	out, err := MarshalBaseline(&cb, l)
	return out, as, err
}

// ResolveAnswers makes the decoders read each answer's marker as its
// answer until release is called: call it with the answers a store kept
// apart from a document before decoding the document.
func ResolveAnswers(as []Answer) (release func()) {
	for _, a := range as {
		spills.Store(a.Marker, a.Spill)
	}
	return func() {
		for _, a := range as {
			spills.CompareAndDelete(a.Marker, a.Spill)
		}
	}
}

// DecodeAnswer moves an answer a store kept apart, read from r (n bytes),
// to a spill file.
func DecodeAnswer(marker string, r io.Reader, n int64) (Answer, error) {
	if !strings.HasPrefix(marker, markerBase) {
		return Answer{}, fmt.Errorf("stored answer: marker %.40q is not one", marker)
	}
	s, err := promptcanary.SpillReader(r, n)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Marker: marker, Spill: s}, nil
}

// ReadDocument reads a run, a baseline or any document that holds them
// from r for the decoders of this package, moving every answer longer
// than promptcanary.AnswerHeadBytes to a spill file as it reads: the
// document returned holds a marker in its place, which the decoders read
// as the answer until release is called. A document that is not JSON
// fails with the error of the first string that does not end.
func ReadDocument(r io.Reader) (data []byte, release func(), err error) {
	data, m, err := contractJSON(r)
	if err != nil {
		return nil, nil, err
	}
	return data, m.release, nil
}

type spilledKey struct{}

// WithSpilledAnswers returns ctx asking the stores that load a run or a
// baseline under it to leave each answer longer than
// promptcanary.AnswerHeadBytes in its spill file, the response holding
// its head (promptcanary.Response.Spill), as a comparison reads it.
// Without it a loaded response holds its whole answer.
func WithSpilledAnswers(ctx context.Context) context.Context {
	return context.WithValue(ctx, spilledKey{}, true)
}

// WholeAnswers reads back into r's responses the answers that decoding
// left in spill files, unless ctx carries WithSpilledAnswers: then it
// moves every answer longer than promptcanary.AnswerHeadBytes that r
// holds whole to a spill file instead.
func WholeAnswers(ctx context.Context, r *promptcanary.Run) error {
	if r == nil {
		return nil
	}
	if ctx.Value(spilledKey{}) != nil {
		for i := range r.LLMResponses {
			if err := r.LLMResponses[i].SpillContent(); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range r.LLMResponses {
		resp := &r.LLMResponses[i]
		if resp.Spill == nil {
			continue
		}
		text, err := resp.Spill.Text()
		if err != nil {
			return err
		}
		resp.Content, resp.Spill = text, nil
	}
	return nil
}

// HasMarkers reports whether data, an encoded run or baseline, holds the
// marker of some answer kept apart (MarshalRunApart).
func HasMarkers(data []byte) bool {
	return bytes.Contains(data, []byte(`"\u0000promptcanary-answer-`))
}

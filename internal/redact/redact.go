// Package redact is the one scrubber of secrets: a Set collects every value
// the tool knows to be secret (API keys read from the environment, header
// values expanded from ${ENV}, passwords in URLs, notifier tokens) and
// removes them from strings, from what passes through a Writer and from
// everything a Run holds, before any of it is printed or persisted.
//
// A secret is replaced with Placeholder wherever it occurs, in its raw form
// and in the forms JSON gives it inside a string ("\u003c", "\/", …), so
// raw response bodies are scrubbed too; so is any run of MinRun or more of
// its bytes, with its ASCII letters in any case (a model that quotes the
// first 20 characters of a key, or the key upper-cased, leaks it too).
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// Placeholder replaces every occurrence of a secret.
const Placeholder = "[REDACTED]"

// MinLen is the length in bytes below which a value is not taken for a
// secret: Add ignores shorter values, since replacing every occurrence of
// a short string ("on", "1234") would mangle ordinary text and hide
// nothing worth hiding. Real API keys and tokens are far longer.
const MinLen = 8

// MinPrefix is the shortest trailing piece of a secret that Truncate
// removes at a cut: a cut that leaves the first MinPrefix or more bytes
// of a secret drops them.
const MinPrefix = 4

// Set is a set of secrets. It is safe for concurrent use, and a nil *Set
// is valid: it holds no secret and scrubs nothing.
type Set struct {
	mu sync.RWMutex
	// idx indexes the secrets and their JSON-escaped forms; it is replaced,
	// never changed, so that readers may keep a snapshot.
	idx  *index
	seen map[string]bool
}

// New returns a set holding secrets (see Add).
func New(secrets ...string) *Set {
	s := &Set{}
	s.Add(secrets...)
	return s
}

// Add adds secrets to the set. Empty values and values shorter than MinLen
// bytes are ignored, as are duplicates. Add on a nil *Set does nothing.
func (s *Set) Add(secrets ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A new index each time: snapshots taken by readers stay unchanged.
	var next []string
	if s.idx != nil {
		next = slices.Clone(s.idx.forms)
	}
	changed := false
	for _, sec := range secrets {
		if len(sec) < MinLen || s.seen[sec] {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[sec] = true
		for _, f := range forms(sec) {
			if !slices.Contains(next, f) {
				next = append(next, f)
				changed = true
			}
		}
	}
	if changed {
		slices.SortStableFunc(next, func(a, b string) int { return len(b) - len(a) })
		s.idx = newIndex(next)
	}
}

// forms returns sec and the distinct forms JSON encoders give it inside a
// string: with and without HTML escaping, and with "/" escaped as "\/".
func forms(sec string) []string {
	out := []string{sec}
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	var b bytes.Buffer
	for _, html := range []bool{true, false} {
		b.Reset()
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(sec) == nil {
			f := strings.TrimSuffix(b.String(), "\n")
			f = strings.TrimPrefix(strings.TrimSuffix(f, `"`), `"`)
			add(f)
			add(strings.ReplaceAll(f, "/", `\/`))
		}
	}
	return out
}

// Len returns how many secrets the set holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.seen)
}

// snapshot returns the set's current index (nil for none).
func (s *Set) snapshot() *index {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx
}

// String returns str with every occurrence of a secret, raw or
// JSON-escaped, and every run of MinRun or more of its bytes in any case,
// replaced with Placeholder.
func (s *Set) String(str string) string { return s.snapshot().replace(str) }

// Truncate scrubs str (see String), then cuts it to at most n bytes on a
// UTF-8 boundary, then drops a trailing piece of at least MinPrefix bytes
// that begins a secret, so that a secret straddling the cut leaves none of
// its characters behind (a cut Placeholder is dropped likewise). It adds
// no ellipsis.
func (s *Set) Truncate(str string, n int) string {
	x := s.snapshot()
	str = x.replace(str)
	if n < 0 {
		n = 0
	}
	if len(str) <= n {
		return str
	}
	for n > 0 && !utf8.RuneStart(str[n]) {
		n--
	}
	// A cut placeholder goes too: "[REDA" helps no reader.
	var forms []string
	if x != nil {
		forms = x.forms
	}
	return dropPartial(str[:n], append(slices.Clip(forms), Placeholder))
}

// dropPartial removes from the end of str proper prefixes of forms that
// are at least MinPrefix bytes long, until none is left.
func dropPartial(str string, forms []string) string {
	for {
		cut := 0
		for _, f := range forms {
			for k := min(len(f)-1, len(str)); k >= MinPrefix && k > cut; k-- {
				if strings.HasSuffix(str, f[:k]) {
					cut = k
					break
				}
			}
		}
		if cut == 0 {
			return str
		}
		str = str[:len(str)-cut]
	}
}

// Writer scrubs what is written through it. It holds back, unscrubbed,
// the shortest tail that a later write could extend into a secret or a
// run of one (see MinRun), so that a secret split across Write calls is
// scrubbed as String scrubs the whole text, while everything else (a
// progress bar, a prompt) is written at once; Flush writes the tail out.
// It is not safe for concurrent use.
type Writer struct {
	set     *Set
	w       io.Writer
	pending []byte
}

// Writer returns a Writer that scrubs what it passes to w. Call Flush
// when done.
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{set: s, w: w} }

// Write scrubs p and writes all of it but the held-back tail. It returns
// len(p) when the underlying writer accepted what was passed to it.
func (w *Writer) Write(p []byte) (int, error) {
	x := w.set.snapshot()
	if x.empty() {
		if err := w.Flush(); err != nil {
			return 0, err
		}
		if _, err := w.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	text := string(w.pending)
	keep := x.pending(text, x.spans(text))
	out := x.replace(text[:len(text)-keep])
	w.pending = append(w.pending[:0], text[len(text)-keep:]...)
	if out != "" {
		if _, err := io.WriteString(w.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes the held-back tail, scrubbed.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := w.set.String(string(w.pending))
	w.pending = w.pending[:0]
	_, err := io.WriteString(w.w, out)
	return err
}

// Response scrubs every string of r in place: content, model fields,
// finish reason, ids, the raw response and the tool calls.
func (s *Set) Response(r *promptcanary.Response) {
	x := s.snapshot()
	if x.empty() || r == nil {
		return
	}
	str := func(p *string) { *p = x.replace(*p) }
	str(&r.PromptID)
	str(&r.ProviderModelID)
	str(&r.Content)
	str(&r.FinishReason)
	str(&r.ServedModel)
	str(&r.SystemFingerprint)
	str(&r.ResponseID)
	r.RawResponse = rawJSON(r.RawResponse, x)
	for i := range r.ToolCalls {
		tc := &r.ToolCalls[i]
		str(&tc.ID)
		str(&tc.Name)
		tc.Arguments = rawJSON(tc.Arguments, x)
	}
}

// CallError scrubs the strings of e in place.
func (s *Set) CallError(e *promptcanary.CallError) {
	x := s.snapshot()
	if x.empty() || e == nil {
		return
	}
	e.PromptID = x.replace(e.PromptID)
	e.Provider = x.replace(e.Provider)
	e.Message = x.replace(e.Message)
}

// ProbeResult scrubs the strings of pr in place, metadata at any depth
// included.
func (s *Set) ProbeResult(pr *promptcanary.ProbeResult) {
	x := s.snapshot()
	if x.empty() || pr == nil {
		return
	}
	scrubProbeResult(pr, x)
}

func scrubProbeResult(pr *promptcanary.ProbeResult, x *index) {
	pr.ProbeID = x.replace(pr.ProbeID)
	pr.ProbeName = x.replace(pr.ProbeName)
	pr.PromptID = x.replace(pr.PromptID)
	pr.Details = x.replace(pr.Details)
	if pr.Metadata != nil && holds(pr.Metadata, x) {
		pr.Metadata = value(pr.Metadata, x).(map[string]any)
	}
}

// Run scrubs every string r holds, in place: responses (content, model
// fields, raw responses, tool calls), probe results (details, metadata at
// any depth), call errors, the suite and provider names and the extra
// parameters.
func (s *Set) Run(r *promptcanary.Run) {
	x := s.snapshot()
	if x.empty() || r == nil {
		return
	}
	r.SuiteName = x.replace(r.SuiteName)
	r.Tool = x.replace(r.Tool)
	r.Provider.ModelID = x.replace(r.Provider.ModelID)
	if r.Provider.ExtraParams != nil && holds(r.Provider.ExtraParams, x) {
		r.Provider.ExtraParams = value(r.Provider.ExtraParams, x).(map[string]any)
	}
	for i := range r.LLMResponses {
		s.Response(&r.LLMResponses[i])
	}
	for i := range r.ProbeResults {
		scrubProbeResult(&r.ProbeResults[i], x)
	}
	for i := range r.Errors {
		s.CallError(&r.Errors[i])
	}
}

// rawJSON scrubs a JSON document. Replacing a secret inside a JSON string
// with Placeholder keeps it valid; should a secret have spanned the
// document's structure, the whole document is replaced.
func rawJSON(raw json.RawMessage, x *index) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	s := x.replace(string(raw))
	if s == string(raw) {
		return raw
	}
	if json.Valid(raw) && !json.Valid([]byte(s)) {
		return json.RawMessage(`"` + Placeholder + `"`)
	}
	return json.RawMessage(s)
}

// value returns v with its strings scrubbed, at any depth, map keys
// included. Maps and slices are copied, never modified: they may be
// shared (a run's extra parameters are its plan's, still in use).
func value(v any, x *index) any {
	switch t := v.(type) {
	case string:
		return x.replace(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[x.replace(k)] = value(e, x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = value(e, x)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(t))
		for k, e := range t {
			out[x.replace(k)] = x.replace(e)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, e := range t {
			out[i] = x.replace(e)
		}
		return out
	case json.RawMessage:
		return rawJSON(t, x)
	case []map[string]any:
		out := make([]map[string]any, len(t))
		for i, e := range t {
			out[i] = value(e, x).(map[string]any)
		}
		return out
	}
	return v
}

// holds reports whether v's JSON form holds a secret, so that clean
// values (the usual case) are not copied.
func holds(v any, x *index) bool {
	data, err := json.Marshal(v)
	if err != nil {
		return true
	}
	return x.replace(string(data)) != string(data)
}

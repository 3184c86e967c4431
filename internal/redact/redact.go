// Package redact is the one scrubber of secrets: a Set collects every value
// the tool knows to be secret (API keys read from the environment, header
// values expanded from ${ENV}, passwords in URLs, notifier tokens) and
// removes them from strings, from what passes through a Writer and from
// everything a Run holds, before any of it is printed or persisted.
//
// A secret is replaced with Placeholder wherever it occurs, in its raw form
// and in the forms JSON gives it inside a string ("\u003c", "\/", …), so
// raw response bodies are scrubbed too.
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
	// forms are the secrets and their JSON-escaped forms, longest first,
	// so that a secret containing another is replaced whole.
	forms  []string
	seen   map[string]bool
	maxLen int
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
	// A new slice each time: snapshots taken by readers stay unchanged.
	next := slices.Clone(s.forms)
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
				s.maxLen = max(s.maxLen, len(f))
				changed = true
			}
		}
	}
	if changed {
		slices.SortStableFunc(next, func(a, b string) int { return len(b) - len(a) })
		s.forms = next
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

// snapshot returns the forms and the longest form's length.
func (s *Set) snapshot() ([]string, int) {
	if s == nil {
		return nil, 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.forms, s.maxLen
}

// String returns str with every occurrence of a secret, raw or
// JSON-escaped, replaced with Placeholder.
func (s *Set) String(str string) string {
	forms, _ := s.snapshot()
	return replace(str, forms)
}

func replace(str string, forms []string) string {
	for _, f := range forms {
		if strings.Contains(str, f) {
			str = strings.ReplaceAll(str, f, Placeholder)
		}
	}
	return str
}

// Truncate scrubs str (see String), then cuts it to at most n bytes on a
// UTF-8 boundary, then drops a trailing piece of at least MinPrefix bytes
// that begins a secret, so that a secret straddling the cut leaves none of
// its characters behind (a cut Placeholder is dropped likewise). It adds
// no ellipsis.
func (s *Set) Truncate(str string, n int) string {
	forms, _ := s.snapshot()
	str = replace(str, forms)
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

// Writer scrubs what is written through it. It holds back the shortest
// tail that could be the start of a secret, so that a secret split across
// two Write calls is still caught while everything else (a progress bar,
// a prompt) is written at once; Flush writes the tail out. It is not safe for
// concurrent use.
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
	forms, maxLen := w.set.snapshot()
	if len(forms) == 0 {
		if err := w.Flush(); err != nil {
			return 0, err
		}
		if _, err := w.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	scrubbed := replace(string(w.pending), forms)
	keep := heldBack(scrubbed, forms, maxLen)
	out, tail := scrubbed[:len(scrubbed)-keep], scrubbed[len(scrubbed)-keep:]
	w.pending = append(w.pending[:0], tail...)
	if out != "" {
		if _, err := io.WriteString(w.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// heldBack is the length of the longest tail of s that a secret form
// starts with (and is not all of it): what a later write may complete.
func heldBack(s string, forms []string, maxLen int) int {
	for k := min(maxLen-1, len(s)); k > 0; k-- {
		tail := s[len(s)-k:]
		for _, f := range forms {
			if len(f) > k && strings.HasPrefix(f, tail) {
				return k
			}
		}
	}
	return 0
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
	forms, _ := s.snapshot()
	if len(forms) == 0 || r == nil {
		return
	}
	str := func(p *string) { *p = replace(*p, forms) }
	str(&r.PromptID)
	str(&r.ProviderModelID)
	str(&r.Content)
	str(&r.FinishReason)
	str(&r.ServedModel)
	str(&r.SystemFingerprint)
	str(&r.ResponseID)
	r.RawResponse = rawJSON(r.RawResponse, forms)
	for i := range r.ToolCalls {
		tc := &r.ToolCalls[i]
		str(&tc.ID)
		str(&tc.Name)
		tc.Arguments = rawJSON(tc.Arguments, forms)
	}
}

// CallError scrubs the strings of e in place.
func (s *Set) CallError(e *promptcanary.CallError) {
	forms, _ := s.snapshot()
	if len(forms) == 0 || e == nil {
		return
	}
	e.PromptID = replace(e.PromptID, forms)
	e.Provider = replace(e.Provider, forms)
	e.Message = replace(e.Message, forms)
}

// ProbeResult scrubs the strings of pr in place, metadata at any depth
// included.
func (s *Set) ProbeResult(pr *promptcanary.ProbeResult) {
	forms, _ := s.snapshot()
	if len(forms) == 0 || pr == nil {
		return
	}
	scrubProbeResult(pr, forms)
}

func scrubProbeResult(pr *promptcanary.ProbeResult, forms []string) {
	pr.ProbeID = replace(pr.ProbeID, forms)
	pr.ProbeName = replace(pr.ProbeName, forms)
	pr.PromptID = replace(pr.PromptID, forms)
	pr.Details = replace(pr.Details, forms)
	if pr.Metadata != nil && holds(pr.Metadata, forms) {
		pr.Metadata = value(pr.Metadata, forms).(map[string]any)
	}
}

// Run scrubs every string r holds, in place: responses (content, model
// fields, raw responses, tool calls), probe results (details, metadata at
// any depth), call errors, the suite and provider names and the extra
// parameters.
func (s *Set) Run(r *promptcanary.Run) {
	forms, _ := s.snapshot()
	if len(forms) == 0 || r == nil {
		return
	}
	r.SuiteName = replace(r.SuiteName, forms)
	r.Tool = replace(r.Tool, forms)
	r.Provider.ModelID = replace(r.Provider.ModelID, forms)
	if r.Provider.ExtraParams != nil && holds(r.Provider.ExtraParams, forms) {
		r.Provider.ExtraParams = value(r.Provider.ExtraParams, forms).(map[string]any)
	}
	for i := range r.LLMResponses {
		s.Response(&r.LLMResponses[i])
	}
	for i := range r.ProbeResults {
		scrubProbeResult(&r.ProbeResults[i], forms)
	}
	for i := range r.Errors {
		s.CallError(&r.Errors[i])
	}
}

// rawJSON scrubs a JSON document. Replacing a secret inside a JSON string
// with Placeholder keeps it valid; should a secret have spanned the
// document's structure, the whole document is replaced.
func rawJSON(raw json.RawMessage, forms []string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	s := replace(string(raw), forms)
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
func value(v any, forms []string) any {
	switch t := v.(type) {
	case string:
		return replace(t, forms)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[replace(k, forms)] = value(x, forms)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = value(x, forms)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(t))
		for k, x := range t {
			out[replace(k, forms)] = replace(x, forms)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = replace(x, forms)
		}
		return out
	case json.RawMessage:
		return rawJSON(t, forms)
	case []map[string]any:
		out := make([]map[string]any, len(t))
		for i, x := range t {
			out[i] = value(x, forms).(map[string]any)
		}
		return out
	}
	return v
}

// holds reports whether v's JSON form holds a secret, so that clean
// values (the usual case) are not copied.
func holds(v any, forms []string) bool {
	data, err := json.Marshal(v)
	if err != nil {
		return true
	}
	return replace(string(data), forms) != string(data)
}

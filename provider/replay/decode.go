package replay

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// fastLine decodes the common replay line, a flat object of the known
// fields without tool calls, in one pass and without encoding/json's
// reflection (about a tenth of its time). It gives up, returning false,
// on anything else: invalid JSON, a field it does not handle, a value of
// the wrong type, a duplicate key, an escape it does not decode the way
// encoding/json does. slowLine then decodes the line or names its error,
// so a line means the same whichever path decoded it (FuzzFastLine holds
// the two to that).
func fastLine(b []byte) (record, bool) {
	rec := record{sample: -1, resp: &promptcanary.Response{}}
	d := lineDecoder{b: b}
	d.space()
	if !d.eat('{') {
		return rec, false
	}
	resp := rec.resp
	var seen uint16
	for {
		d.space()
		key, ok := d.plainKey()
		if !ok {
			return rec, false
		}
		d.space()
		if !d.eat(':') {
			return rec, false
		}
		d.space()
		bit := fieldBit(key)
		if bit == 0 || seen&bit != 0 {
			return rec, false
		}
		seen |= bit
		null := d.null()
		switch bit {
		case bitPromptID:
			if null {
				return rec, false
			}
			if rec.promptID, ok = d.str(); !ok || rec.promptID == "" {
				return rec, false
			}
		case bitContent:
			// A null content is an error without tool calls, which this
			// path never has.
			if null {
				return rec, false
			}
			if resp.Content, ok = d.str(); !ok {
				return rec, false
			}
		case bitFinishReason, bitModel, bitFingerprint, bitResponseID:
			if null {
				break
			}
			s, ok := d.str()
			if !ok {
				return rec, false
			}
			switch bit {
			case bitFinishReason:
				resp.FinishReason = s
			case bitModel:
				resp.ServedModel = s
			case bitFingerprint:
				resp.SystemFingerprint = s
			default:
				resp.ResponseID = s
			}
		case bitSample, bitPromptTokens, bitCompletionTokens, bitTotalTokens:
			if null {
				break
			}
			v, ok := d.number()
			if !ok || v < 0 || v != math.Trunc(v) || v > math.MaxInt32 {
				return rec, false
			}
			switch bit {
			case bitSample:
				rec.sample = int(v)
			case bitPromptTokens:
				resp.PromptTokens = int(v)
			case bitCompletionTokens:
				resp.CompletionTokens = int(v)
			default:
				resp.TotalTokens = int(v)
			}
		case bitLatency:
			if null {
				break
			}
			v, ok := d.number()
			if !ok || v < 0 || math.IsInf(v, 0) {
				return rec, false
			}
			resp.LatencyMS = v
		default: // tool_calls
			if !null {
				return rec, false
			}
		}
		d.space()
		if d.eat(',') {
			continue
		}
		if d.eat('}') {
			break
		}
		return rec, false
	}
	d.space()
	if d.i != len(d.b) || seen&bitPromptID == 0 || seen&bitContent == 0 {
		return rec, false
	}
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
	}
	return rec, true
}

// The fields of a line, one bit each.
const (
	bitPromptID uint16 = 1 << iota
	bitContent
	bitSample
	bitFinishReason
	bitToolCalls
	bitPromptTokens
	bitCompletionTokens
	bitTotalTokens
	bitLatency
	bitModel
	bitFingerprint
	bitResponseID
)

// fieldBit returns the bit of a field, 0 for an unknown one.
func fieldBit(key []byte) uint16 {
	switch string(key) {
	case "prompt_id":
		return bitPromptID
	case "content":
		return bitContent
	case "sample":
		return bitSample
	case "finish_reason":
		return bitFinishReason
	case "tool_calls":
		return bitToolCalls
	case "prompt_tokens":
		return bitPromptTokens
	case "completion_tokens":
		return bitCompletionTokens
	case "total_tokens":
		return bitTotalTokens
	case "latency_ms":
		return bitLatency
	case "model":
		return bitModel
	case "system_fingerprint":
		return bitFingerprint
	case "response_id":
		return bitResponseID
	}
	return 0
}

// lineDecoder reads JSON tokens from one line.
type lineDecoder struct {
	b []byte
	i int
}

// space skips JSON whitespace.
func (d *lineDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// eat consumes c when it is next.
func (d *lineDecoder) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes a JSON null when it is next.
func (d *lineDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// plainKey reads an object key of printable ASCII without escapes.
func (d *lineDecoder) plainKey() ([]byte, bool) {
	if !d.eat('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// str reads a JSON string: valid UTF-8, the escapes of JSON, \u escapes
// of surrogates only in pairs (encoding/json replaces a lone one, which
// this path leaves to it).
func (d *lineDecoder) str() (string, bool) {
	if !d.eat('"') {
		return "", false
	}
	start := d.i
	// The common string has no escape and is ASCII: one copy.
	for d.i < len(d.b) && plain[d.b[d.i]] {
		d.i++
	}
	if d.i < len(d.b) && d.b[d.i] == '"' {
		d.i++
		return string(d.b[start : d.i-1]), true
	}
	out := make([]byte, d.i-start, d.i-start+64)
	copy(out, d.b[start:d.i])
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c >= 0x80:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, d.b[d.i:d.i+n]...)
			d.i += n
		case c != '\\':
			// A run of plain ASCII, copied at once.
			j := d.i + 1
			for j < len(d.b) && plain[d.b[j]] {
				j++
			}
			out = append(out, d.b[d.i:j]...)
			d.i = j
		default:
			if d.i+1 >= len(d.b) {
				return "", false
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					if !d.eat('\\') || !d.eat('u') {
						return "", false
					}
					r2, ok := d.hex4()
					if !ok {
						return "", false
					}
					r = utf16.DecodeRune(r, r2)
					if r == utf8.RuneError {
						return "", false
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		}
	}
	return "", false
}

// plain marks the bytes a JSON string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hex4 reads the four hex digits of a \u escape.
func (d *lineDecoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// number reads a JSON number (the grammar exactly) as a float64.
func (d *lineDecoder) number() (float64, bool) {
	start := d.i
	d.eat('-')
	switch {
	case d.eat('0'):
	case d.i < len(d.b) && '1' <= d.b[d.i] && d.b[d.i] <= '9':
		d.digits()
	default:
		return 0, false
	}
	if d.eat('.') {
		if d.digits() == 0 {
			return 0, false
		}
	}
	if d.eat('e') || d.eat('E') {
		if !d.eat('+') {
			d.eat('-')
		}
		if d.digits() == 0 {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	return v, err == nil
}

// digits consumes decimal digits and returns how many.
func (d *lineDecoder) digits() int {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

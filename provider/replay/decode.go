package replay

import (
	"math"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
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
	d := jsonscan.NewLexer(b)
	d.Space()
	if !d.Eat('{') {
		return rec, false
	}
	var seen uint16
	for {
		d.Space()
		key, ok := d.PlainKey()
		if !ok {
			return rec, false
		}
		d.Space()
		if !d.Eat(':') {
			return rec, false
		}
		d.Space()
		bit := fieldBit(key)
		if bit == 0 || seen&bit != 0 {
			return rec, false
		}
		seen |= bit
		if !fastField(d, bit, &rec) {
			return rec, false
		}
		d.Space()
		if d.Eat(',') {
			continue
		}
		if d.Eat('}') {
			break
		}
		return rec, false
	}
	d.Space()
	if !d.Done() || seen&bitPromptID == 0 || seen&bitContent == 0 {
		return rec, false
	}
	if rec.resp.TotalTokens == 0 {
		rec.resp.TotalTokens = rec.resp.PromptTokens + rec.resp.CompletionTokens
	}
	if rec.resp.FinishReason == "" {
		rec.resp.FinishReason = "stop"
	}
	return rec, true
}

// fastField decodes the value of the field of bit into rec and reports
// whether fastLine may go on: false on a value of the wrong type or one
// it leaves to slowLine.
func fastField(d *jsonscan.Lexer[[]byte], bit uint16, rec *record) bool {
	null := d.Null()
	switch bit {
	case bitPromptID:
		if null {
			return false
		}
		s, ok := d.String()
		rec.promptID = s
		return ok && s != ""
	case bitContent:
		// A null content is an error without tool calls, which this path
		// never has.
		if null {
			return false
		}
		s, ok := d.String()
		rec.resp.Content = s
		return ok
	case bitFinishReason, bitModel, bitFingerprint, bitResponseID:
		if null {
			return true
		}
		s, ok := d.String()
		if ok {
			*textField(rec.resp, bit) = s
		}
		return ok
	case bitSample, bitPromptTokens, bitCompletionTokens, bitTotalTokens:
		return null || fastCount(d, bit, rec)
	case bitLatency:
		if null {
			return true
		}
		v, ok := d.Number()
		if !ok || v < 0 || math.IsInf(v, 0) {
			return false
		}
		rec.resp.LatencyMS = v
		return true
	}
	// tool_calls: only null is left to this path.
	return null
}

// textField is the field of resp that the string field of bit, one that
// may be empty, sets.
func textField(resp *promptcanary.Response, bit uint16) *string {
	switch bit {
	case bitFinishReason:
		return &resp.FinishReason
	case bitModel:
		return &resp.ServedModel
	case bitFingerprint:
		return &resp.SystemFingerprint
	}
	return &resp.ResponseID
}

// fastCount decodes the value of the sample index or a token count into
// rec.
func fastCount(d *jsonscan.Lexer[[]byte], bit uint16, rec *record) bool {
	v, ok := d.Index()
	if !ok {
		return false
	}
	switch bit {
	case bitSample:
		rec.sample = v
	case bitPromptTokens:
		rec.resp.PromptTokens = v
	case bitCompletionTokens:
		rec.resp.CompletionTokens = v
	default:
		rec.resp.TotalTokens = v
	}
	return true
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

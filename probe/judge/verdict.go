package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary/internal/textcut"
)

// Verdict is a judge's grade of one answer.
type Verdict struct {
	// Score is on the probe's scale, an integer in [min, max].
	Score int
	// Reason is the judge's one-sentence explanation.
	Reason string
}

// ParseVerdict reads a judge's answer in the one format it accepts:
// exactly one JSON object with exactly two keys,
//
//	{"score": 4, "reason": "Names Paris and nothing else."}
//
// where score is an integer (a JSON number with no fraction) in
// [min, max] and reason a string that is not blank. White space around
// the object is allowed, and so is one Markdown code fence around it
// (a first line ``` or ```json and a last line ```), since models add
// one even when told not to. Anything else is an error naming what is
// wrong: text before or after the object, another key, a duplicated key,
// a missing key, a score that is a string, a fraction or out of range.
func ParseVerdict(answer string, min, max int) (Verdict, error) {
	s := strings.TrimSpace(answer)
	if s == "" {
		return Verdict{}, errors.New("the answer is empty")
	}
	s = unfence(s)
	if !strings.HasPrefix(s, "{") {
		return Verdict{}, errors.New("the answer does not start with a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return Verdict{}, fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	var v Verdict
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Verdict{}, fmt.Errorf("the answer is not valid JSON: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return Verdict{}, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Verdict{}, fmt.Errorf("the answer is not valid JSON: %w", err)
		}
		switch key {
		case "score":
			if c := raw[0]; c != '-' && (c < '0' || c > '9') {
				return Verdict{}, errors.New(`"score" must be a number`)
			}
			score, err := integer(json.Number(raw))
			if err != nil {
				return Verdict{}, err
			}
			if score < min || score > max {
				return Verdict{}, fmt.Errorf(`"score" %d is outside the scale %d to %d`, score, min, max)
			}
			v.Score = score
		case "reason":
			var r string
			if raw[0] != '"' || json.Unmarshal(raw, &r) != nil {
				return Verdict{}, errors.New(`"reason" must be a string`)
			}
			if strings.TrimSpace(r) == "" {
				return Verdict{}, errors.New(`"reason" is empty`)
			}
			v.Reason = strings.TrimSpace(r)
		default:
			return Verdict{}, fmt.Errorf(`unexpected key %q: want only "score" and "reason"`, preview(key, 40))
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return Verdict{}, fmt.Errorf("the answer is not valid JSON: %w", err)
	}
	for _, k := range []string{"score", "reason"} {
		if !seen[k] {
			return Verdict{}, fmt.Errorf("the object has no %q", k)
		}
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return Verdict{}, errors.New("there is text after the JSON object")
	}
	return v, nil
}

// integer reads a JSON number that must be a whole number within int32.
func integer(n json.Number) (int, error) {
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf(`"score" %s is not a finite number`, preview(n.String(), 20))
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf(`"score" %s is not a whole number`, preview(n.String(), 20))
	}
	if math.Abs(f) > math.MaxInt32 {
		return 0, fmt.Errorf(`"score" %s is out of range`, preview(n.String(), 20))
	}
	return int(f), nil
}

// unfence drops one Markdown code fence around s: a first line ``` or
// ```json and a last line ```. Anything else is left as it is.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	first, body, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	if lang := strings.TrimSpace(strings.TrimPrefix(first, "```")); lang != "" && !strings.EqualFold(lang, "json") {
		return s
	}
	body = strings.TrimRight(body, " \t\r\n")
	inner, ok := strings.CutSuffix(body, "```")
	if !ok || inner != "" && !strings.HasSuffix(strings.TrimRight(inner, " \t\r"), "\n") {
		return s // the closing fence must be a line of its own
	}
	return strings.TrimSpace(inner)
}

// preview is s cut to n bytes on a character boundary, with "…" when cut.
func preview(s string, n int) string {
	return textcut.Bytes(s, n, textcut.Ellipsis)
}

// clip cuts s to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	return textcut.Bytes(s, n, "")
}

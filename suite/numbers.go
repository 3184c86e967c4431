package suite

import (
	"fmt"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
)

// Bounds of the numeric fields that promptcanary's shared limits do not
// cover yet. maxTimeout matches the bound of the --timeout flag.
const (
	// maxTimeout bounds a provider's timeout:.
	maxTimeout = 24 * time.Hour
	// maxPrice bounds a price in USD per million tokens, so that cost
	// arithmetic stays finite.
	maxPrice = 1_000_000.0
)

// intLikeRE matches a plain decimal integer, which YAML tags !!float when it
// does not fit in 64 bits.
var intLikeRE = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// outOfRange is the message of a number outside its allowed range.
func outOfRange(got, lo, hi string) string {
	return fmt.Sprintf("out of range: got %s, allowed %s to %s", got, lo, hi)
}

// rangeHint is the hint of a number outside its allowed range.
func rangeHint(lo, hi string) string {
	return fmt.Sprintf("use a value from %s to %s", lo, hi)
}

// temperature validates `temperature:`, a finite number in
// [MinTemperature, MaxTemperature].
func (p *parser) temperature(n *yaml.Node) *float64 {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
		p.wrongType(n, "temperature", "a number")
		return nil
	}
	lo, hi := fmtFloat(promptcanary.MinTemperature), fmtFloat(promptcanary.MaxTemperature)
	var t float64
	if err := n.Decode(&t); err == nil && (math.IsNaN(t) || math.IsInf(t, 0)) {
		p.add(n, "temperature", "must be a finite number, got "+n.Value, rangeHint(lo, hi)+"; 0 is the most repeatable")
		return nil
	}
	if !(t >= promptcanary.MinTemperature && t <= promptcanary.MaxTemperature) {
		p.add(n, "temperature", outOfRange(n.Value, lo, hi), rangeHint(lo, hi)+"; 0 is the most repeatable")
		return nil
	}
	return &t
}

// integer returns the value of an integer field within [lo, hi]. A value
// that does not fit in 64 bits, or lies outside the range, is reported as
// out of range with the allowed range.
func (p *parser) integer(n *yaml.Node, field string, lo, hi int64) (int64, bool) {
	isInt := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int"
	// YAML reads a decimal too large for 64 bits as a float.
	tooBig := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && intLikeRE.MatchString(n.Value)
	if !isInt && !tooBig {
		p.wrongType(n, field, "an integer")
		return 0, false
	}
	var v int64
	if tooBig || n.Decode(&v) != nil || v < lo || v > hi {
		l, h := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
		p.add(n, field, outOfRange(n.Value, l, h), rangeHint(l, h))
		return 0, false
	}
	return v, true
}

// boundedInt validates an optional integer field within [lo, hi]; null
// yields nil.
func (p *parser) boundedInt(n *yaml.Node, field string, lo, hi int64) *int {
	if yamlwalk.IsNull(n) {
		return nil
	}
	v, ok := p.integer(n, field, lo, hi)
	if !ok {
		return nil
	}
	i := int(v)
	return &i
}

// seed validates `seed:`, any 64-bit integer.
func (p *parser) seed(n *yaml.Node) *int64 {
	if yamlwalk.IsNull(n) {
		return nil
	}
	v, ok := p.integer(n, "seed", math.MinInt64, math.MaxInt64)
	if !ok {
		return nil
	}
	return &v
}

// duration validates a positive duration of at most maxTimeout, such as
// "30s".
func (p *parser) duration(n *yaml.Node, field string) (time.Duration, bool) {
	if yamlwalk.IsNull(n) {
		return 0, false
	}
	if !yamlwalk.IsString(n) {
		p.add(n, field, "must be a duration, got "+yamlwalk.Describe(n), "write a duration with its unit, for example 30s or 2m")
		return 0, false
	}
	str := n.Value
	d, err := time.ParseDuration(str)
	switch {
	case err != nil || d <= 0:
		p.add(n, field, fmt.Sprintf("invalid duration %q", str), "a positive duration such as 30s or 2m")
		return 0, false
	case d > maxTimeout:
		p.add(n, field, fmt.Sprintf("out of range: got %s, allowed up to %s", str, FormatDuration(maxTimeout)), "use a positive duration of at most "+FormatDuration(maxTimeout)+", for example 30s")
		return 0, false
	}
	return d, true
}

// price validates one price, a finite number in [0, maxPrice].
func (p *parser) price(n *yaml.Node, field string) (float64, bool) {
	v, ok := p.value(n, field)
	if !ok {
		return 0, false
	}
	x, isNum := toFloat(v)
	switch {
	case !isNum:
		p.add(n, field, "must be a number, got "+yamlwalk.Describe(n), priceHint)
		return 0, false
	case x < 0:
		p.add(n, field, "must be a non-negative number, got "+n.Value, priceHint)
		return 0, false
	case x > maxPrice:
		hi := fmtFloat(maxPrice)
		p.add(n, field, outOfRange(n.Value, "0", hi), "USD per million tokens, from 0 to "+hi)
		return 0, false
	}
	return x, true
}

const priceHint = "USD per million tokens, for example 2.5"

// FormatDuration writes d as canary.yaml and the monitor's configuration
// take it, without zero units: 24h, not 24h0m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

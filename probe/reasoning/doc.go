// Package reasoning holds the built-in probes that look at how a model
// reasons and sounds: step_by_step, verbosity, confidence_language,
// direct_answer and sentiment. Importing the package registers them.
//
// Every probe is also an exported struct, so a Go program can build one
// directly; the zero value of a struct is not the YAML default, so set the
// fields (or use probe.New) and call Validate before use.
package reasoning

import (
	"fmt"
	"math"
	"strconv"

	"github.com/promptcanary/promptcanary/probe"
)

// plural formats n with word, adding an "s" unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// round rounds x to places decimal places, as the reference rounds the
// rates it stores in metadata.
func round(x float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(x*p) / p
}

// finite reports a *probe.ParamError when v is NaN or infinite.
func finite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return &probe.ParamError{Param: name, Msg: fmt.Sprintf("must be a finite number, got %v", v)}
	}
	return nil
}

// appendPlural appends n and word as plural formats them.
func appendPlural(b []byte, n int, word string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, word...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// appendFixed appends x as fmt's %.Nf does, N being prec.
func appendFixed(b []byte, x float64, prec int) []byte {
	return strconv.AppendFloat(b, x, 'f', prec, 64)
}

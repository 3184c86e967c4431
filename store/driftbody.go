package store

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/promptcanary/promptcanary"
)

// driftBodyEncoding names the stored form of a drift report that
// MarshalDriftBody writes, before compression.
const driftBodyEncoding = "drift-examples-once"

// driftBodyJSON is that form: the report without the example answers of
// its comparisons, which are listed once each in Examples; ExampleOf
// gives each comparison's baseline and current example as indexes into
// Examples (0 is the empty string, no example).
type driftBodyJSON struct {
	driftBodyHead
	Report json.RawMessage `json:"report"`
}

// driftBodyHead is what precedes the report in driftBodyJSON.
type driftBodyHead struct {
	Encoding  string   `json:"encoding"`
	Version   int      `json:"version"`
	Examples  []string `json:"examples"`
	ExampleOf [][2]int `json:"example_of"`
}

// MarshalDriftBody encodes d as the SQLite and PostgreSQL stores keep it.
// A drift report repeats itself: every comparison carries an example
// answer of each side, the same for every probe of a prompt, and names its
// probe and evidence in words. So the stored form lists each distinct
// example answer once, and is compressed with gzip at its fastest level:
// the report of a 200-prompt × 10-probe compare at 30 samples is 3 to 6 MB
// of JSON and 0.1 to 0.3 MB stored. UnmarshalDrift reads it back, and the
// plain JSON that earlier versions stored.
func MarshalDriftBody(d *promptcanary.DriftReport) ([]byte, error) {
	var examples interner[string]
	examples.add("")
	of := make([][2]int, len(d.Comparisons))
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		of[i] = [2]int{examples.add(c.BaselineExample), examples.add(c.CurrentExample)}
	}
	// The report goes in as it is encoded, a few comparisons at a time,
	// each without its examples: neither its JSON nor a copy of its
	// comparisons is held whole.
	head, err := json.Marshal(driftBodyHead{Encoding: driftBodyEncoding, Version: 1, Examples: examples.keys, ExampleOf: of})
	if err != nil {
		return nil, err
	}
	head = append(head[:len(head)-1], `,"report":`...) // an object: it ends with }
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(head); err != nil {
		return nil, err
	}
	noExamples := func(c *promptcanary.Comparison) { c.BaselineExample, c.CurrentExample = "", "" }
	err = encodeDrift(d, noExamples, func(rep []byte) error {
		_, err := zw.Write(rep)
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write([]byte("}")); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unmarshalDriftBody decodes the stored form of MarshalDriftBody, once
// decompressed.
func unmarshalDriftBody(data []byte) (*promptcanary.DriftReport, error) {
	var w driftBodyJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	if w.Encoding != driftBodyEncoding || w.Version != 1 {
		return nil, fmt.Errorf("stored drift report of encoding %q version %d: upgrade promptcanary", w.Encoding, w.Version)
	}
	d, err := UnmarshalDrift(w.Report)
	if err != nil {
		return nil, err
	}
	if len(w.ExampleOf) != len(d.Comparisons) {
		return nil, fmt.Errorf("stored drift report: %d example pairs for %d comparisons", len(w.ExampleOf), len(d.Comparisons))
	}
	for i, of := range w.ExampleOf {
		if of[0] < 0 || of[0] >= len(w.Examples) || of[1] < 0 || of[1] >= len(w.Examples) {
			return nil, fmt.Errorf("stored drift report: comparison %d: example out of range", i)
		}
		c := &d.Comparisons[i]
		c.BaselineExample, c.CurrentExample = w.Examples[of[0]], w.Examples[of[1]]
	}
	return d, nil
}

// isDriftBody reports whether data is the stored form of MarshalDriftBody,
// compressed; JSON never starts with gzip's bytes.
func isDriftBody(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
}

// gunzip decompresses a body MarshalDriftBody wrote.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	// The trailer holds the size modulo 2^32: a hint, bounded by the
	// ratios gzip can reach.
	hint := int64(binary.LittleEndian.Uint32(data[len(data)-4:]))
	out := bytes.NewBuffer(make([]byte, 0, min(hint, int64(len(data))*64)+bytes.MinRead))
	if _, err := io.Copy(out, zr); err != nil {
		return nil, err
	}
	if err := zr.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

// streamChunk is how much JSON encodeDrift holds before it hands it on.
const streamChunk = 64 << 10

// encodeStream hands write the compact JSON of v, the bytes of
// Marshal(v), a piece at a time: a drift report a few comparisons at a
// time (encodeDrift), any other value whole (encodeOnce).
func encodeStream(v any, write func([]byte) error) error {
	switch d := v.(type) {
	case *promptcanary.DriftReport:
		return encodeDrift(d, nil, write)
	case promptcanary.DriftReport:
		return encodeDrift(&d, nil, write)
	}
	return encodeOnce(v, write)
}

// encodeDrift hands write the compact JSON of d, the bytes of Marshal(d),
// a piece at a time, each under about streamChunk bytes: the report's
// JSON (32 MB for a compare of 2,000 prompts × 10 probes, most of it the
// comparisons and the statistics' units and signals) is never held
// whole. The report is encoded first with one placeholder element in
// each long list, and each list's elements are encoded one by one in its
// place. edit, when set, changes a copy of each comparison before it is
// encoded. When an element cannot be encoded (Marshal fails on it, which
// a finite report never does), the pieces before it have been written.
func encodeDrift(d *promptcanary.DriftReport, edit func(*promptcanary.Comparison), write func([]byte) error) error {
	head := *d
	var lists []list
	if n := len(d.Comparisons); n > 0 {
		head.Comparisons = make([]promptcanary.Comparison, 1)
		c := new(promptcanary.Comparison) // one copy for all: a copy each would allocate as much as the JSON
		lists = append(lists, list{path: []string{"comparisons"}, n: n, elem: func(i int) any {
			*c = d.Comparisons[i]
			if edit != nil {
				edit(c)
			}
			return c
		}})
	}
	if st := d.Statistics; st != nil {
		hs := *st
		head.Statistics = &hs
		lists = withList(lists, &hs.Units, st.Units, "statistics", "units")
		lists = withList(lists, &hs.Nondeterminism, st.Nondeterminism, "statistics", "nondeterminism")
		lists = withList(lists, &hs.Signals, st.Signals, "statistics", "signals")
		lists = withList(lists, &hs.Warnings, st.Warnings, "statistics", "warnings")
	}
	if len(lists) == 0 {
		return encodeOnce(d, write)
	}
	var hb bytes.Buffer
	if err := encodePart(&hb, json.NewEncoder(&hb), head.JSONValue(), &head); err != nil {
		return err
	}
	hj := hb.Bytes()
	for i := range lists {
		if !lists[i].locate(hj) {
			return fmt.Errorf("encode drift report: no %s in its JSON", strings.Join(lists[i].path, "."))
		}
	}
	slices.SortFunc(lists, func(a, b list) int { return a.start - b.start })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	at := 0
	for _, l := range lists {
		buf.Write(hj[at:l.start])
		if err := l.encode(&buf, enc, write); err != nil {
			return err
		}
		at = l.end
	}
	buf.Write(hj[at:])
	return write(buf.Bytes())
}

// list is a long list in a drift report's JSON, encoded an element at a
// time: the path of member names to it, its length and its elements.
// start and end are where its placeholder is in the report's JSON.
type list struct {
	path       []string
	n          int
	elem       func(i int) any
	start, end int
}

// withList appends the list full at path to lists, and puts one
// placeholder element in head, its copy in the report that is encoded
// first (so the member is there even when empty lists are left out);
// an empty list is encoded with the report.
func withList[T any](lists []list, head *[]T, full []T, path ...string) []list {
	if len(full) == 0 {
		return lists
	}
	*head = make([]T, 1)
	v := new(T)
	return append(lists, list{path: path, n: len(full), elem: func(i int) any {
		*v = full[i]
		return v
	}})
}

// locate finds l's placeholder in hj, the report's JSON.
func (l *list) locate(hj []byte) bool {
	at := 0
	for _, name := range l.path {
		i := memberValue(hj[at:], name)
		if i < 0 {
			return false
		}
		at += i
	}
	if at >= len(hj) || hj[at] != '[' {
		return false
	}
	l.start, l.end = at, jsonscan.ValueEnd(hj, at)
	return true
}

// encode appends the JSON of l's elements, as an array, to buf with enc
// (an Encoder writing to buf), handing buf to write whenever it holds
// streamChunk bytes.
func (l *list) encode(buf *bytes.Buffer, enc *json.Encoder, write func([]byte) error) error {
	buf.WriteByte('[')
	for i := range l.n {
		if i > 0 {
			buf.WriteByte(',')
		}
		v := l.elem(i)
		if err := encodePart(buf, enc, v, v); err != nil {
			return fmt.Errorf("%s %d: %w", strings.Join(l.path, "."), i, err)
		}
		if buf.Len() >= streamChunk {
			if err := write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	buf.WriteByte(']')
	return nil
}

// encodePart appends the compact JSON of v to buf with enc, an Encoder
// writing to buf: the bytes of Marshal(orig), where v is the value
// orig's MarshalJSON encodes (or orig itself). A NaN or infinite float
// takes Marshal's slower way.
func encodePart(buf *bytes.Buffer, enc *json.Encoder, v, orig any) error {
	n := buf.Len()
	err := enc.Encode(v)
	if err == nil {
		buf.Truncate(buf.Len() - 1) // the Encoder's newline
		return nil
	}
	if _, ok := errors.AsType[*json.UnsupportedValueError](err); !ok {
		return err
	}
	buf.Truncate(n) // an Encoder writes nothing of a value it failed on
	data, err := Marshal(orig)
	if err != nil {
		return err
	}
	buf.Write(data)
	return nil
}

// memberValue returns where the value of the member name starts in obj,
// a compact JSON object as encoding/json writes it; -1 when obj has no
// such member.
func memberValue(obj []byte, name string) int {
	key := `"` + name + `"`
	for i := 1; i < len(obj) && obj[i] != '}'; {
		if obj[i] == ',' {
			i++
		}
		end := jsonscan.ValueEnd(obj, i)
		if end >= len(obj) || obj[end] != ':' {
			return -1
		}
		if string(obj[i:end]) == key {
			return end + 1
		}
		i = jsonscan.ValueEnd(obj, end+1)
	}
	return -1
}

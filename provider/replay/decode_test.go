package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastLines are lines that fastLine must decode itself, as slowLine does.
var fastLines = []struct {
	name, line string
}{
	{"minimal", `{"prompt_id": "p1", "content": "Paris"}`},
	{"every flat field", `{"prompt_id":"p1","content":"x","sample":3,"finish_reason":"length","prompt_tokens":12,"completion_tokens":1,"total_tokens":20,"latency_ms":230.5,"model":"gpt-4o","system_fingerprint":"fp_abc","response_id":"r1"}`},
	{"nulls", `{"prompt_id":"p1","content":"x","sample":null,"finish_reason":null,"tool_calls":null,"latency_ms":null,"model":null}`},
	{"escapes", `{"prompt_id":"p1","content":"a\"b\\c\/d\b\f\n\r\t\u003cx\u003e \u0026 \u00e9 \u2028"}`},
	{"surrogate pair", `{"prompt_id":"p1","content":"smile \ud83d\ude00 \uD83D\uDE00"}`},
	{"utf-8", `{"prompt_id":"p1","content":"héllo — 東京 😀"}`},
	{"numbers", `{"prompt_id":"p1","content":"","prompt_tokens":1e2,"completion_tokens":0,"latency_ms":0.25E+1,"sample":-0}`},
	{"spaces", "{ \"prompt_id\" :\t\"p1\" ,\r\n \"content\" : \"x\" }"},
}

// slowLines are lines that fastLine leaves to slowLine.
var slowLines = []struct {
	name, line string
}{
	{"tool calls", `{"prompt_id":"p1","content":null,"tool_calls":[{"name":"f","arguments":{"a":1}}]}`},
	{"unknown field", `{"prompt_id":"p1","content":"x","contnet":"y"}`},
	{"escaped key", `{"prompt\u005fid":"p1","content":"x"}`},
	{"duplicate key", `{"prompt_id":"p1","content":"x","content":"y"}`},
	{"lone surrogate", `{"prompt_id":"p1","content":"\ud83d x"}`},
	{"invalid utf-8", "{\"prompt_id\":\"p1\",\"content\":\"\xff\"}"},
	{"null content", `{"prompt_id":"p1","content":null}`},
	{"empty prompt id", `{"prompt_id":"","content":"x"}`},
	{"fractional tokens", `{"prompt_id":"p1","content":"x","prompt_tokens":1.5}`},
	{"huge number", `{"prompt_id":"p1","content":"x","latency_ms":1e400}`},
	{"leading zero", `{"prompt_id":"p1","content":"x","sample":01}`},
	{"trailing garbage", `{"prompt_id":"p1","content":"x"} x`},
	{"trailing comma", `{"prompt_id":"p1","content":"x",}`},
	{"string number", `{"prompt_id":"p1","content":"x","sample":"1"}`},
	{"not an object", `["p1"]`},
	{"missing content", `{"prompt_id":"p1"}`},
}

func TestFastLine(t *testing.T) {
	for _, tc := range fastLines {
		t.Run(tc.name, func(t *testing.T) {
			fast, ok := fastLine([]byte(tc.line))
			if !ok {
				t.Fatalf("fastLine gave up on %s", tc.line)
			}
			slow, err := slowLine([]byte(tc.line))
			if err != nil {
				t.Fatalf("slowLine: %v", err)
			}
			if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(record{})); diff != "" {
				t.Errorf("(-slowLine +fastLine):\n%s", diff)
			}
		})
	}
	for _, tc := range slowLines {
		t.Run(tc.name, func(t *testing.T) {
			if rec, ok := fastLine([]byte(tc.line)); ok {
				t.Errorf("fastLine decoded %s as %+v, want it left to slowLine", tc.line, rec.resp)
			}
		})
	}
}

// FuzzFastLine holds fastLine to slowLine: whatever line fastLine decodes,
// slowLine decodes too, to the same record.
func FuzzFastLine(f *testing.F) {
	for _, tc := range fastLines {
		f.Add([]byte(tc.line))
	}
	for _, tc := range slowLines {
		f.Add([]byte(tc.line))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return
		}
		fast, ok := fastLine(b)
		if !ok {
			return
		}
		slow, err := slowLine(b)
		if err != nil {
			t.Fatalf("fastLine decoded %q, slowLine: %v", b, err)
		}
		if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(record{})); diff != "" {
			t.Fatalf("%q (-slowLine +fastLine):\n%s", b, diff)
		}
	})
}

// benchLines is a replay file's lines as json.Encoder writes them, with
// realistic answers (escapes, HTML-escaped JSON, non-ASCII).
func benchLines(tb testing.TB) [][]byte {
	tb.Helper()
	contents := []string{
		"The capital of France is Paris.",
		"{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"<math>\", \"engines & logic\"]}",
		"Sure! Here are the steps:\n1. Preheat the oven to 180°C.\n2. Mix the flour and sugar.\n3. Bake for 25 minutes.\n\nEnjoy — and \"bon appétit\"!",
		"I'm sorry, but I can't help with that request.",
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range 64 {
		c := contents[i%len(contents)]
		for range i % 5 {
			c += " " + c
		}
		if err := enc.Encode(map[string]any{"prompt_id": "p" + string(rune('a'+i%26)), "content": c, "finish_reason": "stop",
			"prompt_tokens": 40 + i, "completion_tokens": 100 + i, "latency_ms": 231.5, "model": "gpt-4o-mini"}); err != nil {
			tb.Fatal(err)
		}
	}
	var lines [][]byte
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	return lines
}

func BenchmarkDecodeLine(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	for _, bc := range []struct {
		name   string
		decode func([]byte) (record, error)
	}{
		{"fast", parseLine},
		{"encoding_json", slowLine},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size / len(lines)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := bc.decode(lines[i%len(lines)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

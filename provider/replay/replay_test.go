package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

func generate(t *testing.T, p provider.Provider, promptID string, sample int) (*promptcanary.Response, error) {
	t.Helper()
	return p.Generate(context.Background(), &provider.Request{
		Prompt: &promptcanary.Prompt{ID: promptID, Text: "ignored"},
		Sample: sample,
	})
}

func TestOpenInvalid(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"invalid-json.jsonl", `replay "invalid-json.jsonl": line 3: invalid JSON: unexpected end of JSON input`},
		{"missing-prompt-id.jsonl", `replay "missing-prompt-id.jsonl": line 3: missing prompt_id`},
		{"content-not-string.jsonl", `replay "content-not-string.jsonl": line 4: content must be a string`},
		{"missing-content.jsonl", `replay "missing-content.jsonl": line 1: missing content`},
		{"unknown-field.jsonl", `replay "unknown-field.jsonl": line 1: unknown field "contnet" (did you mean content?)`},
		{"duplicate-sample.jsonl", `replay "duplicate-sample.jsonl": line 3: duplicate response for prompt "a" sample 1 (first recorded on line 1)`},
		{"negative-sample.jsonl", `replay "negative-sample.jsonl": line 1: sample must be a non-negative integer`},
		{"fractional-sample.jsonl", `replay "fractional-sample.jsonl": line 1: sample must be a non-negative integer`},
		{"not-object.jsonl", `replay "not-object.jsonl": line 1: want a JSON object, got array`},
		{"prompt-id-not-string.jsonl", `replay "prompt-id-not-string.jsonl": line 1: prompt_id must be a string`},
		{"prompt-id-empty.jsonl", `replay "prompt-id-empty.jsonl": line 1: prompt_id must not be empty`},
		{"tool-calls-not-array.jsonl", `replay "tool-calls-not-array.jsonl": line 1: tool_calls must be an array of objects`},
		{"tool-call-missing-name.jsonl", `replay "tool-call-missing-name.jsonl": line 1: tool_calls[0]: missing name`},
		{"tool-call-unknown-field.jsonl", `replay "tool-call-unknown-field.jsonl": line 1: tool_calls[0]: unknown field "args"`},
		{"latency-not-number.jsonl", `replay "latency-not-number.jsonl": line 1: latency_ms must be a non-negative number`},
		{"negative-tokens.jsonl", `replay "negative-tokens.jsonl": line 1: prompt_tokens must be a non-negative integer`},
		{"empty.jsonl", `replay "empty.jsonl": no recorded responses`},
		{"several-errors.jsonl", `replay "several-errors.jsonl": line 1: prompt_id must be a string` + "\n" +
			`replay "several-errors.jsonl": line 3: invalid JSON: invalid character 'o' in literal null (expecting 'u')`},
		{"does-not-exist.jsonl", `replay "does-not-exist.jsonl": open testdata/does-not-exist.jsonl: no such file or directory`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p, err := Open(tc.file, provider.Options{BaseDir: "testdata"})
			if err == nil {
				t.Fatalf("got provider with %d responses, want error %q", p.(*Replay).Len(), tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got error\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestOpenMissingFileIsNotExist(t *testing.T) {
	_, err := Open("nope.jsonl", provider.Options{BaseDir: t.TempDir()})
	if got := errors.Is(err, os.ErrNotExist); !got {
		t.Errorf("errors.Is(err, os.ErrNotExist) = %v, want true (err: %v)", got, err)
	}
}

func TestOpenEmptyPath(t *testing.T) {
	_, err := Open(" ", provider.Options{})
	want := "replay: missing file path: want replay/PATH, for example replay/logs.jsonl"
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}

func TestRegistered(t *testing.T) {
	abs, err := filepath.Abs("testdata/valid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.Open("replay/"+abs, provider.Options{})
	if err != nil {
		t.Fatalf("provider.Open: %v", err)
	}
	if got, want := p.(*Replay).Len(), 7; got != want {
		t.Errorf("got %d responses, want %d", got, want)
	}
}

// openValid opens testdata/valid.jsonl.
func openValid(t *testing.T) provider.Provider {
	t.Helper()
	p, err := Open("valid.jsonl", provider.Options{BaseDir: "testdata"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGenerate asks for recorded samples, and for ones never recorded:
// those are final errors naming the prompt, sample and file.
func TestGenerate(t *testing.T) {
	p := openValid(t)
	tests := []struct {
		name     string
		promptID string
		sample   int
		want     promptcanary.Response
		wantErr  string
	}{
		{name: "first line with metadata", promptID: "capital", want: promptcanary.Response{
			PromptID: "capital", Sample: 0, Content: "Paris", FinishReason: "stop",
			PromptTokens: 9, CompletionTokens: 1, TotalTokens: 10, LatencyMS: 231.5,
			ServedModel: "gpt-4o-2024-08-06", SystemFingerprint: "fp_abc",
		}},
		{name: "second line is sample 1", promptID: "capital", sample: 1, want: promptcanary.Response{
			PromptID: "capital", Sample: 1, Content: "Paris.", FinishReason: "stop",
		}},
		{name: "order kept across other prompts", promptID: "capital", sample: 2, want: promptcanary.Response{
			PromptID: "capital", Sample: 2, Content: "The capital of France is Paris.", FinishReason: "length",
		}},
		{name: "explicit sample 2", promptID: "json", sample: 2, want: promptcanary.Response{
			PromptID: "json", Sample: 2, Content: `{"a": 1}`, FinishReason: "stop",
		}},
		{name: "explicit sample 0", promptID: "json", want: promptcanary.Response{
			PromptID: "json", Sample: 0, Content: `{"a": 2}`, FinishReason: "stop",
		}},
		{name: "implicit after explicit 0 is 1", promptID: "json", sample: 1, want: promptcanary.Response{
			PromptID: "json", Sample: 1, Content: `{"a": 3}`, FinishReason: "stop",
		}},
		{name: "tool call", promptID: "weather", want: promptcanary.Response{
			PromptID: "weather", Sample: 0, Content: "", FinishReason: "tool_calls",
			ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 3}`)}},
		}},
		{name: "unknown prompt", promptID: "x", wantErr: `no recorded response for prompt "x" sample 0 in "valid.jsonl"`},
		{name: "sample past the end", promptID: "capital", sample: 3, wantErr: `no recorded response for prompt "capital" sample 3 in "valid.jsonl"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := generate(t, p, tc.promptID, tc.sample)
			if tc.wantErr != "" {
				checkMissing(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// checkMissing checks that err is the final error msg.
func checkMissing(t *testing.T, err error, msg string) {
	t.Helper()
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got error %v (%T), want *provider.Error", err, err)
	}
	if pe.Retryable {
		t.Errorf("got Retryable %v, want false", pe.Retryable)
	}
	if pe.Message != msg {
		t.Errorf("got message %q, want %q", pe.Message, msg)
	}
}

func TestGenerateReturnsCopies(t *testing.T) {
	p := openValid(t)
	first, err := generate(t, p, "weather", 0)
	if err != nil {
		t.Fatal(err)
	}
	first.Content = "changed"
	first.ToolCalls[0].Name = "changed"
	first.ToolCalls[0].Arguments[0] = '['
	second, err := generate(t, p, "weather", 0)
	if err != nil {
		t.Fatal(err)
	}
	if second.Content != "" || second.ToolCalls[0].Name != "get_weather" || second.ToolCalls[0].Arguments[0] != '{' {
		t.Errorf("got %+v after mutating an earlier response, want the recorded one", second)
	}
}

func TestGenerateCancelled(t *testing.T) {
	p := openValid(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Generate(ctx, &provider.Request{Prompt: &promptcanary.Prompt{ID: "capital"}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
}

func TestParseBOMAndCRLF(t *testing.T) {
	p, err := Open("bom-crlf.jsonl", provider.Options{BaseDir: "testdata"})
	if err != nil {
		t.Fatal(err)
	}
	got0, err := generate(t, p, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got0.Content != "x" {
		t.Errorf("got content %q, want %q", got0.Content, "x")
	}
	got1, err := generate(t, p, "a", 1)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []promptcanary.ToolCall{{Name: "f", Arguments: json.RawMessage(`"{\"q\": 1}"`)}}
	if diff := cmp.Diff(wantCalls, got1.ToolCalls); diff != "" {
		t.Errorf("tool calls mismatch (-want +got):\n%s", diff)
	}
	if got1.Content != "" || got1.FinishReason != "tool_calls" {
		t.Errorf("got content %q finish %q, want %q and %q", got1.Content, got1.FinishReason, "", "tool_calls")
	}
}

func TestParseLongLines(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	ok := `{"prompt_id": "a", "content": "` + long + `"}` + "\n"
	p, err := Parse(strings.NewReader(ok), "big.jsonl")
	if err != nil {
		t.Fatalf("1 MiB line: %v", err)
	}
	got, err := generate(t, p, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != len(long) {
		t.Errorf("got content of %d bytes, want %d", len(got.Content), len(long))
	}

	tooLong := `{"prompt_id": "a", "content": "x"}` + "\n" + strings.Repeat("b", MaxLineBytes+1) + "\n"
	_, err = Parse(strings.NewReader(tooLong), "huge.jsonl")
	want := `replay "huge.jsonl": line 2: line longer than 16 MiB`
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}

func TestParseStopsAfterManyErrors(t *testing.T) {
	in := strings.Repeat("nope\n", 100)
	_, err := Parse(strings.NewReader(in), "bad.jsonl")
	if err == nil {
		t.Fatal("got nil error, want one")
	}
	lines := strings.Split(err.Error(), "\n")
	if got, want := len(lines), maxErrors+1; got != want {
		t.Errorf("got %d error lines, want %d", got, want)
	}
	if got, want := lines[len(lines)-1], `replay "bad.jsonl": too many errors, stopped at line 20`; got != want {
		t.Errorf("got last line %q, want %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"valid.jsonl", "bom-crlf.jsonl", "several-errors.jsonl", "duplicate-sample.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"prompt_id":"a","content":"b","sample":1e300}`))
	f.Add([]byte(`{"prompt_id":"a","content":null,"tool_calls":[{"name":"x","arguments":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			if p != nil {
				t.Fatalf("got provider and error %v, want only the error", err)
			}
			if !strings.HasPrefix(err.Error(), `replay "fuzz.jsonl"`) {
				t.Fatalf("got error %q, want it to name the file", err)
			}
			return
		}
		if p.Len() == 0 {
			t.Fatal("got a provider with no responses, want an error")
		}
		for k, rec := range p.responses {
			got, err := generate(t, p, k.promptID, k.sample)
			if err != nil {
				t.Fatalf("recorded %v: %v", k, err)
			}
			if got.Content != rec.Content || got.PromptID != k.promptID || got.Sample != k.sample {
				t.Fatalf("got %q/%d %q, want %q/%d %q", got.PromptID, got.Sample, got.Content, k.promptID, k.sample, rec.Content)
			}
		}
	})
}

// TestOpenCutsAnswersToTheBound: a replay file's answers are cut to the
// run's bound as the file is read, and marked with their size.
func TestOpenCutsAnswersToTheBound(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", 3000)
	data := `{"prompt_id":"p","content":"` + long + `"}` + "\n" + `{"prompt_id":"q","content":"short"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := provider.Open("replay/r.jsonl", provider.Options{BaseDir: dir, MaxAnswerBytes: 1025})
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(t, p, "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != strings.Repeat("é", 512) || !got.Truncated || got.OriginalBytes != int64(len(long)) {
		t.Errorf("got %d bytes kept, truncated %v, original %d; want 1024, true, %d", len(got.Content), got.Truncated, got.OriginalBytes, len(long))
	}
	if short, _ := generate(t, p, "q", 0); short.Content != "short" || short.Truncated {
		t.Errorf("got %+v, want the short answer whole", short)
	}
}

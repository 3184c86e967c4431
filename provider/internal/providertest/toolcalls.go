package providertest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// ManyCalls is the number of tool calls of the answer that
// CheckToolCallsBounded expects: far more than any client keeps.
const ManyCalls = 20000

// ManyToolCalls returns an answer body holding ManyCalls tool calls:
// prefix, then call(i) for each i joined with commas, then suffix.
func ManyToolCalls(prefix, suffix string, call func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteString(prefix)
	for i := range ManyCalls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(call(i))
	}
	b.WriteString(suffix)
	return b.Bytes()
}

// CheckToolCallsBounded checks the response to a ManyToolCalls answer:
// the first toolcall.Max calls kept, in order (the i-th named by
// name(i)), and the cut recorded (Truncated, OriginalToolCalls, a note).
func CheckToolCallsBounded(t testing.TB, resp *promptcanary.Response, err error, name func(i int) string) {
	t.Helper()
	if err != nil {
		t.Fatalf("got error %v, want a response", err)
	}
	if len(resp.ToolCalls) != toolcall.Max {
		t.Fatalf("got %d tool calls, want the first %d of %d", len(resp.ToolCalls), toolcall.Max, ManyCalls)
	}
	for _, i := range []int{0, toolcall.Max - 1} {
		if got := resp.ToolCalls[i].Name; got != name(i) {
			t.Errorf("call %d: got %q, want %q", i, got, name(i))
		}
	}
	if !resp.Truncated || resp.OriginalToolCalls != ManyCalls {
		t.Errorf("got truncated %v, original tool calls %d; want true, %d", resp.Truncated, resp.OriginalToolCalls, ManyCalls)
	}
	want := fmt.Sprintf("tool calls cut to the first %d of %d", toolcall.Max, ManyCalls)
	if note := resp.CutNote(); !strings.Contains(note, want) {
		t.Errorf("got cut note %q, want it to say %q", note, want)
	}
}

// ToolName is the name of the i-th tool call of a ManyToolCalls answer
// built with Calls: "tool_" and i.
func ToolName(i int) string { return "tool_" + strconv.Itoa(i) }

// Calls returns the call func of ManyToolCalls for a wire format: format
// is one tool call with %[1]d where i goes, its name written "tool_%[1]d"
// so that ToolName names it.
func Calls(format string) func(i int) string {
	return func(i int) string { return fmt.Sprintf(format, i) }
}

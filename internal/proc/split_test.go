package proc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: `agent`, want: []string{"agent"}},
		{in: `  python3   agent.py	--mode  fast `, want: []string{"python3", "agent.py", "--mode", "fast"}},
		{in: `"my agent" --flag 'a b'`, want: []string{"my agent", "--flag", "a b"}},
		{in: `./run.sh 'single "double" \n $HOME'`, want: []string{"./run.sh", `single "double" \n $HOME`}},
		{in: `echo "a \"quoted\" \\ back\slash \$HOME \` + "`" + `x"`, want: []string{"echo", "a \"quoted\" \\ back\\slash $HOME `x"}},
		{in: `my\ agent a\'b c\\d`, want: []string{"my agent", "a'b", `c\d`}},
		{in: `a"b c"'d e'f`, want: []string{"ab cd ef"}},
		{in: `cmd '' ""`, want: []string{"cmd", "", ""}},
		{in: "cmd first\\\nsecond", want: []string{"cmd", "firstsecond"}},
		{in: "cmd \"multi\\\nline\"", want: []string{"cmd", "multiline"}},
		{in: `cmd $HOME ~ *.txt`, want: []string{"cmd", "$HOME", "~", "*.txt"}},
		{in: `cmd 'a|b' "c;d" e\&f`, want: []string{"cmd", "a|b", "c;d", "e&f"}},
		{in: `cmd --json='{"a": 1}'`, want: []string{"cmd", `--json={"a": 1}`}},
		{in: "", wantErr: "empty command"},
		{in: "   ", wantErr: "empty command"},
		{in: `cmd 'open`, wantErr: "unterminated single quote at byte 4"},
		{in: `cmd "open`, wantErr: "unterminated double quote at byte 4"},
		{in: `cmd "esc\"`, wantErr: "unterminated double quote at byte 4"},
		{in: `cmd trailing\`, wantErr: "trailing backslash"},
		{in: `cmd > out.txt`, wantErr: `unquoted '>' at byte 4: the command is not run through a shell, so quote it or put the pipeline in a script`},
		{in: `a && b`, wantErr: `unquoted '&' at byte 2: the command is not run through a shell, so quote it or put the pipeline in a script`},
		{in: `a;b`, wantErr: `unquoted ';' at byte 1: the command is not run through a shell, so quote it or put the pipeline in a script`},
		{in: "echo `id`", wantErr: "unquoted '`' at byte 5: the command is not run through a shell, so quote it or put the pipeline in a script"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := SplitCommand(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got %q, %v, want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzSplitCommand checks that quoting any argument list and splitting it
// again gives the list back, and that no input panics.
func FuzzSplitCommand(f *testing.F) {
	f.Add("my agent", "a b", `it's "x"`)
	f.Add("", "\\", "\n")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		SplitCommand(a + " " + b + c)
		want := []string{a, b, c}
		got, err := SplitCommand(quote(a) + " " + quote(b) + "\t" + quote(c))
		if err != nil {
			t.Fatalf("split quoted %q: %v", want, err)
		}
		if !cmp.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

// quote quotes s for SplitCommand (and a POSIX shell) as one argument.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

package proc

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into its arguments with the quoting
// rules of a POSIX shell, without ever running one: whitespace separates
// arguments; '…' keeps everything literally; "…" keeps everything but \",
// \\, \$, \` and \newline, which lose their backslash; outside quotes a
// backslash keeps the next character (and \newline is removed). There is
// no variable expansion, globbing or ~. The shell operators | & ; < > and `
// are errors unless quoted, since no shell would interpret them. On
// Windows, write paths with forward slashes or inside single quotes.
func SplitCommand(s string) ([]string, error) {
	var (
		args   []string
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if i+1 == len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated single quote at byte %d", i)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			start := i
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated double quote at byte %d", start)
				}
				c := s[i]
				if c == '"' {
					break
				}
				if c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(c)
			}
		case '|', '&', ';', '<', '>', '`':
			return nil, fmt.Errorf("unquoted %q at byte %d: the command is not run through a shell, so quote it or put the pipeline in a script", c, i)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}

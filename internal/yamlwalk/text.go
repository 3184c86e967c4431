package yamlwalk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The hints of a file that is not UTF-8 text.
const (
	nulHint     = "is it a binary file, or text saved in another encoding? save it as UTF-8 text"
	utf16Hint   = "the file looks like UTF-16 without a byte order mark: save it as UTF-8 text"
	utf8Hint    = "save the file as UTF-8 (it may have been saved as Latin-1 or Windows-1252)"
	utf16Bad    = "save the file as UTF-8 text"
	controlHint = `remove it, or write it as an escape inside double quotes, for example "\e" or "\x01"`
)

// The byte order marks a file may start with.
var (
	bomUTF8    = []byte{0xef, 0xbb, 0xbf}
	bomUTF16LE = []byte{0xff, 0xfe}
	bomUTF16BE = []byte{0xfe, 0xff}
)

// text returns data as UTF-8 without a byte order mark, decoding UTF-16
// that starts with its mark, so that lines and columns count characters
// of the text (lines broken where go.yaml.in/yaml breaks them). A NUL byte, invalid UTF-8 or a control character YAML does
// not allow is reported at its line and column, with what to do; ok is
// then false. go.yaml.in/yaml reports them without a position.
func (w *Walker) text(data []byte) (_ []byte, ok bool) {
	bad := -1 // the offset of the first character UTF-16 could not decode
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data = data[len(bomUTF8):]
	case bytes.HasPrefix(data, bomUTF16LE):
		data, bad = fromUTF16(data[2:], binary.LittleEndian)
	case bytes.HasPrefix(data, bomUTF16BE):
		data, bad = fromUTF16(data[2:], binary.BigEndian)
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		msg, hint := "", ""
		switch {
		case i == bad:
			msg, hint = "invalid UTF-16: a lone surrogate or a cut last character", utf16Bad
		case r == 0:
			msg, hint = "NUL byte: the file is not UTF-8 text", nulHint
			if looksUTF16(data) {
				hint = utf16Hint
			}
		case r == utf8.RuneError && size <= 1:
			msg, hint = fmt.Sprintf("invalid UTF-8: byte 0x%02x", data[i]), utf8Hint
		case !printable(r):
			msg, hint = fmt.Sprintf("control character %U is not allowed", r), controlHint
		}
		if msg != "" {
			w.add(&yaml.Node{Line: line, Column: col}, "", msg, hint)
			return nil, false
		}
		if n := breakLen(data, i); n > 0 {
			line, col = line+1, 1
			i += n
			continue
		}
		i += size
		col++
	}
	return data, true
}

// printable reports whether YAML allows r in a document (YAML 1.1 c-printable,
// as go.yaml.in/yaml's reader checks it).
func printable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd:
		return true
	}
	return r >= 0x10000 && r <= utf8.MaxRune
}

// looksUTF16 reports whether data's first bytes alternate NULs with ASCII,
// as English text in UTF-16 does.
func looksUTF16(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	n := min(len(data), 64) &^ 1
	var even, odd int
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			even++
		}
		if data[i+1] == 0 {
			odd++
		}
	}
	half := n / 2
	return even == half && odd == 0 || odd == half && even == 0
}

// fromUTF16 decodes UTF-16 text in the given byte order to UTF-8. A lone
// surrogate or an odd last byte becomes U+FFFD, and bad is the offset of
// the first one in text (-1 when there is none).
func fromUTF16(data []byte, order binary.ByteOrder) (text []byte, bad int) {
	bad = -1
	text = make([]byte, 0, len(data))
	for i := 0; i+1 < len(data); i += 2 {
		r := rune(order.Uint16(data[i:]))
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if i+3 < len(data) {
				r2 = utf16.DecodeRune(r, rune(order.Uint16(data[i+2:])))
			}
			if r2 != utf8.RuneError {
				i += 2
			} else if bad < 0 {
				bad = len(text)
			}
			r = r2
		}
		text = utf8.AppendRune(text, r)
	}
	if len(data)%2 == 1 {
		if bad < 0 {
			bad = len(text)
		}
		text = utf8.AppendRune(text, utf8.RuneError)
	}
	return text, bad
}

package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/promptcanary/promptcanary"
)

const (
	slugWords = 5
	slugMax   = 40
)

// deriveID returns the stable id of a prompt without an explicit id: a slug
// of the first words of the text and the first 8 hex digits of
// sha256(system + "\x00" + text), so the same prompt always gets the same id
// and a change of text or system prompt gives a new one.
func deriveID(text, system string) string {
	h := sha256.New()
	h.Write([]byte(system))
	h.Write([]byte{0})
	h.Write([]byte(text))
	sum := h.Sum(nil)
	return slug(text) + "-" + hex.EncodeToString(sum[:4])
}

// derivePromptID returns the id of a prompt without an explicit id. A
// prompt of text alone gets deriveID(text, system); a conversation gets a
// slug of its first user turn and a hash that covers every turn, so that
// changing any turn gives a new id, as changing the text does.
func derivePromptID(p *promptcanary.Prompt) string {
	if len(p.Messages) == 0 {
		return deriveID(p.Text, p.SystemPrompt)
	}
	turns, _ := json.Marshal(p.Messages) // strings and raw JSON always encode
	first := p.Text
	for _, m := range p.Conversation() {
		if m.Role == promptcanary.RoleUser {
			first = m.Content
			break
		}
	}
	id := deriveID(p.Text+"\x00"+string(turns), p.SystemPrompt)
	return slug(first) + id[strings.LastIndexByte(id, '-'):]
}

// slug joins the first few words of text, lowercased and reduced to ASCII
// letters and digits, with '-'; at most slugMax bytes, "prompt" when nothing
// is left.
func slug(text string) string {
	var b strings.Builder
	words, inWord := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			inWord = false
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		default:
			continue
		}
		if !inWord {
			if words == slugWords {
				break
			}
			if b.Len() > 0 {
				b.WriteByte('-')
			}
			words++
			inWord = true
		}
		b.WriteByte(c)
		if b.Len() >= slugMax {
			break
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > slugMax {
		s = strings.TrimRight(s[:slugMax], "-")
	}
	if s == "" {
		return "prompt"
	}
	return s
}

package promptcanary_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// TestDefaultMaxAnswerBytes: issue 19 asks for 1 MiB of every answer kept
// by default.
func TestDefaultMaxAnswerBytes(t *testing.T) {
	if promptcanary.DefaultMaxAnswerBytes != 1<<20 {
		t.Errorf("got DefaultMaxAnswerBytes %d, want %d", promptcanary.DefaultMaxAnswerBytes, 1<<20)
	}
}

// TestSpillContent: an answer past the head moves to a spill file whole,
// its characters counted across the pieces it is written in and its head
// cut on a character boundary; a shorter one stays as it is.
func TestSpillContent(t *testing.T) {
	long := strings.Repeat("aé日🦜", 40_000) + "\xff" // 400,001 bytes, an invalid byte last
	tests := []struct {
		name    string
		content string
		spilled bool
	}{
		{"short", "hello", false},
		{"at the head", strings.Repeat("x", promptcanary.AnswerHeadBytes), false},
		{"long", long, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := promptcanary.Response{Content: tc.content}
			if err := r.SpillContent(); err != nil {
				t.Fatal(err)
			}
			if (r.Spill != nil) != tc.spilled {
				t.Fatalf("got spilled %v, want %v", r.Spill != nil, tc.spilled)
			}
			whole, err := r.FullContent()
			if err != nil || whole != tc.content {
				t.Fatalf("got %d bytes back (%v), want %d", len(whole), err, len(tc.content))
			}
			if r.ContentLen() != int64(len(tc.content)) || r.ContentRunes() != utf8.RuneCountInString(tc.content) {
				t.Errorf("got %d bytes, %d characters; want %d, %d", r.ContentLen(), r.ContentRunes(), len(tc.content), utf8.RuneCountInString(tc.content))
			}
			if len(r.Content) > promptcanary.AnswerHeadBytes || !utf8.ValidString(r.Content) && tc.spilled || !strings.HasPrefix(tc.content, r.Content) {
				t.Errorf("got a head of %d bytes, want a prefix of at most %d on a character boundary", len(r.Content), promptcanary.AnswerHeadBytes)
			}
			other := promptcanary.Response{Content: tc.content + "!"}
			if err := other.SpillContent(); err != nil {
				t.Fatal(err)
			}
			same := promptcanary.Response{Content: tc.content}
			if err := same.SpillContent(); err != nil {
				t.Fatal(err)
			}
			if r.ContentKey() == other.ContentKey() || r.ContentKey() != same.ContentKey() {
				t.Errorf("content keys do not tell answers apart")
			}
		})
	}
}

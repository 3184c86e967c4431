package standinlog

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWrap reports the path, the status, the request body and an error
// answer once the handler is done, and nothing without a Func.
func TestWrap(t *testing.T) {
	var got []string
	f := func(path string, status int, body, answer []byte) {
		got = append(got, path, http.StatusText(status), string(body), string(answer))
	}
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	w, done := Wrap(httptest.NewRecorder(), r, []byte(`{"a":1}`), f)
	w.WriteHeader(http.StatusBadRequest)
	w.Write([]byte(`{"error":"no"}`))
	if len(got) != 0 {
		t.Fatal("reported before done")
	}
	done()
	want := []string{"/v1/messages", "Bad Request", `{"a":1}`, `{"error":"no"}`}
	if len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("got %q, want %q", got, want)
	}

	got = nil
	w, done = Wrap(httptest.NewRecorder(), r, nil, f)
	w.Write([]byte("ok"))
	done()
	if got[1] != "OK" || got[3] != "" {
		t.Errorf("a 200's answer is not kept: got %q", got)
	}

	rec := httptest.NewRecorder()
	if w, done := Wrap(rec, r, nil, nil); w != http.ResponseWriter(rec) {
		t.Error("without a Func, Wrap must return the writer itself")
	} else {
		done()
	}
}

// A Recorder keeps every body it reads, in order, cut at MaxBody, and
// hands out copies of its list.
func TestRecorder(t *testing.T) {
	var r Recorder
	for _, body := range []string{`{"a":1}`, "", strings.Repeat("x", MaxBody+10)} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		if got := r.Read(req); len(got) != min(len(body), MaxBody) {
			t.Errorf("Read returned %d bytes of %d", len(got), len(body))
		}
	}
	got := r.Bodies()
	if len(got) != 3 || string(got[0]) != `{"a":1}` || len(got[1]) != 0 || len(got[2]) != MaxBody {
		t.Errorf("Bodies: %d bodies", len(got))
	}
	got[0] = nil
	if r.Bodies()[0] == nil {
		t.Error("Bodies handed out its own list")
	}
}

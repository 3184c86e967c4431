package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// standinLogger opens standin-NAME.log and standin-NAME.jsonl in the
// script's current directory, for appending, and returns the func a
// stand-in calls with each request it answered. The .log gets one line
// per request, "STATUS PATH", plus " rejected: ANSWER" when the stand-in
// refused it (a status of 400 or more other than 429), so a script can
// check that nothing was rejected; the .jsonl gets the request body on
// one line, so a script can grep what the client sent.
func standinLogger(ts *testscript.TestScript, name string) func(path string, status int, body, answer []byte) {
	logf, bodies := appendFile(ts, "standin-"+name+".log"), appendFile(ts, "standin-"+name+".jsonl")
	var mu sync.Mutex
	return func(path string, status int, body, answer []byte) {
		line := fmt.Sprintf("%d %s", status, path)
		if status >= 400 && status != 429 {
			line += " rejected: " + oneLine(answer)
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(logf, line)
		fmt.Fprintln(bodies, oneLine(body))
	}
}

// appendFile opens the file name in the script's current directory for
// appending; it is closed when the script ends.
func appendFile(ts *testscript.TestScript, name string) *os.File {
	f, err := os.OpenFile(ts.MkAbs(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	ts.Defer(func() { _ = f.Close() })
	return f
}

// oneLine is b on one line: compacted when it is JSON, else with its
// line breaks escaped.
func oneLine(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) == nil {
		return buf.String()
	}
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(string(b))
}

package benchmark_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current probes")

// goldenFile holds, for each judged text, one hash per golden config of the
// probe's whole result. It was written by the probes as they were before
// they were optimised; a change of any verdict, score, details or metadata
// changes a hash.
var goldenFile = filepath.Join("testdata", "golden.txt")

// canonical serialises a result exactly: the score's bits, the details and
// the metadata as JSON (map keys sorted) with each value's Go type, since a
// metadata value that changes from int to float64 is a change.
func canonical(res probe.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %016x %q\n", res.Passed, math.Float64bits(res.Score), res.Details)
	meta, err := json.Marshal(res.Metadata)
	if err != nil {
		meta = []byte(err.Error())
	}
	b.Write(meta)
	types := make(map[string]string, len(res.Metadata))
	for k, v := range res.Metadata {
		types[k] = fmt.Sprintf("%T", v)
	}
	tb, _ := json.Marshal(types)
	b.WriteByte('\n')
	b.Write(tb)
	return b.String()
}

// hash is a short hash of s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}

// TestVerdictsUnchanged judges the corpus, its mutations, the probe
// families' fixtures and fuzz seeds, and generated texts with every golden
// config, and compares each result with the one the original probes gave.
func TestVerdictsUnchanged(t *testing.T) {
	checkGolden(t, goldenFile, goldenConfigs, func(_ int, content string) *promptcanary.Response {
		return &promptcanary.Response{PromptID: prompt.ID, Content: content}
	}, "the original probes")
}

// checkGolden judges the texts, text i as the response resp(i, text), with
// configs, and compares each result with the golden file, one line a
// text: the hash of its content, then one result hash per config. With
// -update it writes the file instead; by tells how it must be written.
func checkGolden(t *testing.T, file string, configs []config, resp func(i int, content string) *promptcanary.Response, by string) {
	t.Helper()
	probes := build(t, configs)
	all := texts(t)
	line := func(i int, content string) (string, []string) {
		r := resp(i, content)
		parts := []string{hash(content)}
		var results []string
		for _, p := range probes {
			c := canonical(probetest.Eval(p, prompt, r))
			results = append(results, c)
			parts = append(parts, hash(c))
		}
		return strings.Join(parts, " "), results
	}
	if *update {
		var b strings.Builder
		b.WriteString("# config order: ")
		for _, c := range configs {
			b.WriteString(c.name + " ")
		}
		b.WriteString("\n")
		for i, s := range all {
			l, _ := line(i, s.content)
			b.WriteString(l + "\n")
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var want []string
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			want = append(want, sc.Text())
		}
	}
	if len(want) != len(all) {
		t.Fatalf("golden file has %d texts, want %d (run with -update on %s)", len(want), len(all), by)
	}
	failures := 0
	for i, s := range all {
		got, results := line(i, s.content)
		if got == want[i] {
			continue
		}
		g, w := strings.Fields(got), strings.Fields(want[i])
		if g[0] != w[0] {
			t.Fatalf("text %d (%s): content hash %s, golden %s: the texts changed", i, s.name, g[0], w[0])
		}
		for j := 1; j < len(g); j++ {
			if g[j] != w[j] && failures < 20 {
				failures++
				t.Errorf("%s on text %d (%s, %.60q): result changed, now:\n%s", configs[j-1].name, i, s.name, s.content, results[j-1])
			}
		}
	}
}

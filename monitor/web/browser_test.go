package web

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The dashboard in a real browser: headless Chromium driven by chromedp.
// Without Chromium these tests skip; scripts/test-deps.sh installs it.

var screenshotDir = flag.String("screenshots", "", "write full-page screenshots of every dashboard page into `DIR` (go test ./monitor/web/ -run TestScreenshots -screenshots DIR)")

// chromium returns the browser to run, "" when none is installed.
func chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium for the test, with a viewport of
// width × 900 pixels; it skips the test without one.
func newBrowser(t *testing.T, width int64) context.Context {
	t.Helper()
	path := chromium()
	if path == "" {
		t.Skip("chromium not found: run scripts/test-deps.sh (apt-get install chromium) to run the dashboard browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(int(width), 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	// A dialog would be a script injected through the data: fail on any.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			if !strings.HasPrefix(ev.Message, "Make ") { // the confirm of a promotion
				t.Errorf("a page opened a %s dialog: %q", ev.Type, ev.Message)
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return ctx
}

// browse loads url and waits for the page's main element.
func browse(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("load %s: status %d", url, resp.Status)
	}
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("main.page"))); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
}

func count(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+jsString(css)+`).length`))
	if err != nil {
		t.Fatalf("count %s: %v", css, err)
	}
	return n
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(`+jsString(css)+`)).map(e => e.innerText).join("\n")`))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// noInjection checks that the hostile answers and names stayed text: no
// element of theirs exists, and the page runs our script only.
func noInjection(t *testing.T, ctx context.Context) {
	t.Helper()
	if n := count(t, ctx, `img`); n != 0 {
		t.Errorf("the page has %d img elements: markup of the data was injected", n)
	}
	if n := count(t, ctx, `script:not([src^="/static/dashboard.js"])`); n != 0 {
		t.Errorf("the page has %d scripts besides the dashboard's", n)
	}
}

func TestBrowserPages(t *testing.T) {
	ctx := newBrowser(t, 1440)
	srv, _, _, f := newTestServer(t, fixtureOptions{hostile: true})

	t.Run("overview", func(t *testing.T) {
		browse(t, ctx, srv.URL+"/")
		row := text(t, ctx, "#checks tr.row-drift")
		for _, want := range []string{"checkout-prod", "openai/gpt-4o-mini", "DRIFT", "HIGH", "pass rate fell from 95.5% to 72.8%"} {
			if !strings.Contains(row, want) {
				t.Errorf("the drifting check's row %q lacks %q", row, want)
			}
		}
		if n := count(t, ctx, `#checks a[href="`+IncidentPath(f.driftIncident)+`"]`); n != 1 {
			t.Errorf("%d links to the open incident, want 1", n)
		}
		if n := count(t, ctx, "#checks svg.sparkline polyline.line"); n < 4 {
			t.Errorf("%d sparklines drawn, want at least 4", n)
		}
		// The legend's keys look like the marks they explain.
		keys, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["drift", "unmeasured"].flatMap(c => [
			getComputedStyle(document.querySelector("p.legend .key-dot." + c)).backgroundColor,
			getComputedStyle(document.querySelector("svg.sparkline circle." + c)).fill])`))
		if err != nil || len(keys) != 4 || keys[0] != keys[1] || keys[2] != keys[3] {
			t.Errorf("legend keys and sparkline marks (drift key, drift mark, unmeasured key, unmeasured mark): %q (%v), want each key filled as its mark", keys, err)
		}
		if got := text(t, ctx, "#checks td.name"); !strings.Contains(got, hostileCheck) {
			t.Errorf("the hostile check name is not shown as text: %q", got)
		}
		noInjection(t, ctx)
	})

	t.Run("check", func(t *testing.T) {
		browse(t, ctx, srv.URL+CheckPath(f.check, f.provider))
		rows, cols := count(t, ctx, "table.heatmap tbody tr"), count(t, ctx, "table.heatmap thead th.run")
		cells := count(t, ctx, "table.heatmap td.hm")
		if rows != len(fixtureProbes) || cols != heatRuns || cells != rows*cols {
			t.Errorf("heatmap of %d probes × %d runs with %d cells, want %d × %d", rows, cols, cells, len(fixtureProbes), heatRuns)
		}
		if n := count(t, ctx, "table.heatmap td.hm.h4, table.heatmap td.hm.h5, table.heatmap td.hm.h6"); n == 0 {
			t.Error("no heatmap cell shows the drifted probe's low pass rate")
		}
		// Each probe's label sits on its row: the middle of its text is
		// the middle of the row's cells.
		offsets, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll("table.heatmap tbody tr")).map(tr => {
			const r = document.createRange();
			r.selectNodeContents(tr.querySelector("th.probe"));
			const label = r.getBoundingClientRect(), cell = tr.querySelector("td.hm a").getBoundingClientRect();
			return (label.top + label.bottom) / 2 - (cell.top + cell.bottom) / 2;
		})`))
		if err != nil || len(offsets) != len(fixtureProbes) {
			t.Fatalf("label offsets %v (%v), want one per probe", offsets, err)
		}
		for i, off := range offsets {
			if off < -1.5 || off > 1.5 {
				t.Errorf("the label of heatmap row %d sits %.1fpx off the middle of its cells, want at most 1.5", i, off)
			}
		}
		for _, css := range []string{"svg.history polygon.band", "svg.history polyline.rate", "svg.history polyline.baseline", "svg.history circle.pt.drift", "svg.history rect.span.incident"} {
			if count(t, ctx, css) == 0 {
				t.Errorf("the history chart has no %s", css)
			}
		}
		if got := text(t, ctx, "#incidents"); !strings.Contains(got, "drift confirmed by a second run") || !strings.Contains(got, hostileScript) {
			t.Errorf("the incident timeline %q lacks the events", got)
		}
		noInjection(t, ctx)
	})

	t.Run("run", func(t *testing.T) {
		browse(t, ctx, srv.URL+RunPath(f.driftRun))
		if n := count(t, ctx, ".report-body article.regression .sides pre.answer"); n < 2 {
			t.Fatalf("%d answers side by side, want a baseline and a current answer at least", n)
		}
		// The two answers of a regression sit next to each other.
		same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
			const a = document.querySelectorAll(".report-body article.regression .sides")[0].children;
			const l = a[0].getBoundingClientRect(), r = a[1].getBoundingClientRect();
			return Math.abs(l.top - r.top) < 2 && r.left > l.right;
		})()`))
		if err != nil || !same {
			t.Errorf("the baseline's and the current answer are not side by side (%v)", err)
		}
		answers := text(t, ctx, ".report-body pre.answer")
		if !strings.Contains(answers, hostileScript) || !strings.Contains(answers, "Your order #1042 has shipped") {
			t.Errorf("the answers do not show the baseline's text and the hostile answer as text: %q", answers)
		}
		if n := count(t, ctx, `.crumbs a[href="`+CheckPath(f.check, f.provider)+`"]`); n != 1 {
			t.Error("the run page does not link back to its check")
		}
		noInjection(t, ctx)
	})

	// A run whose every call failed: unmeasured everywhere, never "no
	// drift", never a pass rate, never a point of the pass-rate line.
	t.Run("unmeasured run", func(t *testing.T) {
		browse(t, ctx, srv.URL+RunPath(f.downRun))
		head := text(t, ctx, ".pagehead h1")
		if !strings.Contains(head, "UNMEASURED") || strings.Contains(head, "NO DRIFT") {
			t.Errorf("the heading of a run whose every call failed is %q, want UNMEASURED and not NO DRIFT", head)
		}
		if got := text(t, ctx, ".facts div:nth-child(4) dd"); got != "—" {
			t.Errorf("its pass rate reads %q, want —", got)
		}
		browse(t, ctx, srv.URL+CheckPath("support-bot", "sim/flaky"))
		if n := count(t, ctx, "svg.history path.unmeasured"); n != 3 {
			t.Errorf("%d unmeasured markers on the history chart, want 3", n)
		}
		rows := strings.Split(text(t, ctx, "#runs tbody tr:nth-child(-n+3)"), "\n")
		for _, row := range rows {
			if !strings.Contains(row, "UNMEASURED") || strings.Contains(row, "%") {
				t.Errorf("an unmeasured run's row reads %q: want the outcome and no rate", row)
			}
		}
		if n := count(t, ctx, `#runs a[href^="`+RunPath(f.downRun)+`"]`); n != 1 {
			t.Errorf("%d links to the unmeasured run, want 1", n)
		}
		// The heatmap has a column for each, not measured, not a gap.
		cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("table.heatmap tbody tr:first-child td.hm")).slice(-4).map(td => td.className + " " + td.querySelector("a").title)`))
		if err != nil || len(cells) != 4 || !strings.Contains(cells[0], " h") || strings.Contains(cells[0], "h-na") {
			t.Fatalf("the last heatmap cells %q (%v), want a measured one before the unmeasured ones", cells, err)
		}
		for _, c := range cells[1:] {
			if !strings.Contains(c, "h-na") || !strings.Contains(c, "unmeasured: provider sim/flaky: 503") {
				t.Errorf("heatmap cell %q of an unmeasured run: want not measured, saying why", c)
			}
		}
	})

	t.Run("incidents", func(t *testing.T) {
		browse(t, ctx, srv.URL+"/incidents")
		first := text(t, ctx, "#incident-list tbody tr:first-child")
		if !strings.Contains(first, "OPEN") {
			t.Errorf("the first incident listed is %q, want an open one", first)
		}
		noInjection(t, ctx)
	})

	t.Run("incident", func(t *testing.T) {
		browse(t, ctx, srv.URL+IncidentPath(f.driftIncident))
		got := text(t, ctx, "#notifications")
		for _, want := range []string{"500 Internal Server Error", "DELIVERED", "FAILED", "tracker"} {
			if !strings.Contains(got, want) {
				t.Errorf("the notifications %q lack %q", got, want)
			}
		}
		// The pairs that broke first, the largest drop first, whatever
		// order the incident stored them in.
		rows := strings.Split(text(t, ctx, "#units tbody tr"), "\n")
		if len(rows) != 4 || !strings.HasPrefix(rows[0], "pair\tmentions_total/order-status") || !strings.HasPrefix(rows[1], "pair\tjson_valid/refund-policy") ||
			!strings.HasPrefix(rows[3], "suite") {
			t.Errorf("the flagged units read %q, want the two pairs first and the suite last", rows)
		}
		noInjection(t, ctx)
	})
}

func TestBrowserWithoutJavaScript(t *testing.T) {
	ctx := newBrowser(t, 1280)
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, css, want string }{
		{"/", "#checks", "pass rate fell from 95.5%"},
		{CheckPath(f.check, f.provider), "table.heatmap", "mentions_total"},
		{RunPath(f.driftRun), ".report-body", "Current answer"},
		{"/incidents", "#incident-list", "json_valid regressed on gift-card"},
		{IncidentPath(f.driftIncident), "#events", "drift confirmed by a second run"},
	} {
		browse(t, ctx, srv.URL+tc.path)
		on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.confirm === "function" && document.body.dataset.jsRan === "1"`))
		if err == nil && on {
			t.Fatal("scripts ran although they are disabled")
		}
		if got := text(t, ctx, tc.css); !strings.Contains(strings.ToLower(got), strings.ToLower(tc.want)) {
			t.Errorf("%s without JavaScript: %s shows %.200q, want %q", tc.path, tc.css, got, tc.want)
		}
		// The stylesheet applies (it is a file, so the CSP lets it in).
		bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".topbar")).backgroundColor`))
		if err != nil || bg != "rgb(27, 35, 45)" {
			t.Errorf("%s: the top bar's background is %q (%v): the stylesheet did not apply", tc.path, bg, err)
		}
	}
}

func TestBrowserActions(t *testing.T) {
	ctx := newBrowser(t, 1280)
	srv, src, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})

	// Signed out: no action form.
	browse(t, ctx, srv.URL+IncidentPath(f.driftIncident))
	if n := count(t, ctx, `form[action$="/ack"]`); n != 0 {
		t.Fatal("an acknowledge form is shown before signing in")
	}
	// Sign in with the token, come back to the incident, acknowledge it.
	browse(t, ctx, srv.URL+"/login?next="+IncidentPath(f.driftIncident))
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), testToken),
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "ada"),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`form.stack button[type="submit"]`)))); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".session"); !strings.Contains(got, "Signed in as ada") {
		t.Fatalf("after signing in the header shows %q", got)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`form[action$="/ack"] button`)))); err != nil {
		t.Fatal(err)
	}
	if len(src.acks) != 1 || src.acks[0] != f.driftIncident+" ada" {
		t.Fatalf("acknowledgements %q, want the incident acknowledged by ada", src.acks)
	}
	if got := text(t, ctx, ".pagehead"); !strings.Contains(got, "ACKNOWLEDGED") || !strings.Contains(got, "by ada") {
		t.Errorf("after acknowledging the page shows %q", got)
	}
	// Promote a run from the check page (the script asks first; the test
	// accepts).
	browse(t, ctx, srv.URL+CheckPath(f.check, f.provider))
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`#runs form[action$="/promote"] button`)))); err != nil {
		t.Fatal(err)
	}
	if len(src.promotes) != 1 || !strings.HasPrefix(src.promotes[0], f.check+" "+f.provider+" ") {
		t.Fatalf("promotions %q, want one of the check", src.promotes)
	}
}

// TestScreenshots writes a full-page screenshot of every page, signed out
// and signed in, for a person to look at: go test ./monitor/web/ -run
// TestScreenshots -screenshots /tmp/shots
func TestScreenshots(t *testing.T) {
	if *screenshotDir == "" {
		t.Skip("no -screenshots DIR")
	}
	if err := os.MkdirAll(*screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t, 1440)
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 168, reports: 7})
	shots := []struct{ name, path string }{
		{"overview", "/"},
		{"check", CheckPath(f.check, f.provider)},
		{"check-clean", CheckPath(f.check, f.otherProvider)},
		{"check-unmeasured", CheckPath("support-bot", "sim/flaky")},
		{"run-drift", RunPath(f.driftRun)},
		{"run-results", RunPath(f.cleanRun)},
		{"run-unmeasured", RunPath(f.downRun)},
		{"incidents", "/incidents"},
		{"incident", IncidentPath(f.driftIncident)},
		{"login", "/login"},
		{"error-404", "/runs/nope"},
	}
	var once sync.Once
	for _, s := range shots {
		if s.name == "error-404" {
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+s.path)); err != nil {
				t.Fatal(err)
			}
		} else {
			browse(t, ctx, srv.URL+s.path)
		}
		shoot(t, ctx, s.name)
		once.Do(func() {})
	}
	// Signed in: the action forms.
	browse(t, ctx, srv.URL+"/login")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), testToken), chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "ada")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`form.stack button`)))); err != nil {
		t.Fatal(err)
	}
	browse(t, ctx, srv.URL+IncidentPath(f.driftIncident))
	shoot(t, ctx, "incident-signed-in")
	browse(t, ctx, srv.URL+CheckPath(f.check, f.provider))
	shoot(t, ctx, "check-signed-in")
	// Details at full size.
	for _, el := range []struct{ name, css string }{{"detail-chart", "#history"}, {"detail-heatmap", "#heatmap"}, {"detail-runs", "#runs"}} {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(el.css)))
		if err != nil {
			t.Fatalf("screenshot %s: %v", el.css, err)
		}
		if err := os.WriteFile(filepath.Join(*screenshotDir, el.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	browse(t, ctx, srv.URL+"/")
	if png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#checks"))); err == nil {
		os.WriteFile(filepath.Join(*screenshotDir, "detail-overview.png"), png, 0o644)
	}
	// A narrow window.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(420, 900)); err != nil {
		t.Fatal(err)
	}
	browse(t, ctx, srv.URL+"/")
	shoot(t, ctx, "overview-narrow")
}

func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(*screenshotDir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", p)
}

var _ = httptest.NewServer

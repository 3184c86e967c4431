package web

import (
	"regexp"
	"strings"
	"testing"
)

// TestEscaping renders every page of a fixture whose answers, check name,
// provider, schedule, reasons and incident summaries are markup: none of it
// may reach a page as markup.
func TestEscaping(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hostile: true, hourly: 12, reports: 2})
	_, c := login(t, srv, testToken)
	paths := mapValues(pagePaths(f))
	paths = append(paths, CheckPath(f.hostileCheck, f.hostileProvider), IncidentPath("e1e2e3e4e5e6e7e8"),
		"/incidents?check="+strings.ReplaceAll(hostileCheck, " ", "+"), "/runs/"+strings.ReplaceAll(hostileImg, " ", "%20"))
	for _, p := range paths {
		resp, body := get(t, srv, p, "Cookie", c.Name+"="+c.Value)
		if resp.StatusCode != 200 && resp.StatusCode != 404 {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
		}
		for _, bad := range []string{hostileScript, "<img", `"><img`, "\u202e"} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s: the page holds %q", p, bad)
			}
		}
		if n := strings.Count(body, "<script"); n != 1 {
			t.Errorf("GET %s: %d script elements, want the dashboard's only", p, n)
		}
	}
	// The hostile strings are shown, as text.
	_, overview := get(t, srv, "/")
	if !strings.Contains(overview, "evil&#34;&gt;&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile check name is not shown escaped on the overview")
	}
	_, run := get(t, srv, RunPath(f.driftRun))
	if !strings.Contains(run, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile answer is not shown escaped on the run page")
	}
	// Its page's URL escapes the name and the provider.
	if !strings.Contains(overview, `href="/checks/evil%22%3E%3Cimg%20src=x%20onerror=alert%281%29%3E/exec%2F%3Cscript%3Ealert%281%29%3C%2Fscript%3E"`) {
		t.Error("the hostile check's link is not escaped as one path segment each")
	}
}

// inlineStyle finds what a Content-Security-Policy without 'unsafe-inline'
// blocks: style attributes, style elements and inline scripts.
var inlineStyle = regexp.MustCompile(`(?i)<[^<>]*\sstyle=|<style|<script(?:\s[^>]*)?>[^<]|<[^<>]*\son[a-z]+=`)

func TestNothingInline(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	_, c := login(t, srv, testToken)
	for _, p := range append(mapValues(pagePaths(f)), "/nope") {
		_, body := get(t, srv, p, "Cookie", c.Name+"="+c.Value)
		if m := inlineStyle.FindString(body); m != "" {
			t.Errorf("GET %s: %q would be blocked by the Content-Security-Policy", p, m)
		}
	}
}

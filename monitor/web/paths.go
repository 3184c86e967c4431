package web

import (
	"net/url"
	"strings"
)

// The dashboard's URLs. A provider id holds a '/' ("openai/gpt-4o-mini",
// "exec/./model.sh"), so it is escaped as one path segment: its slashes
// become %2F. The router matches escaped paths, so such a segment is never
// split or cleaned ("." and ".." inside it stay as they are). The check page
// also accepts the provider's slashes unescaped, for URLs typed by hand.

// CheckPath returns the path of the page of check on provider:
// /checks/{check}/{provider}, each escaped as one segment.
func CheckPath(check, provider string) string {
	return "/checks/" + url.PathEscape(check) + "/" + url.PathEscape(provider)
}

// RunPath returns the path of the page of the stored run id.
func RunPath(id string) string {
	return "/runs/" + url.PathEscape(id)
}

// IncidentPath returns the path of the page of incident id.
func IncidentPath(id string) string {
	return "/incidents/" + url.PathEscape(id)
}

// runReportPath returns the path of run id's page showing drift report
// report ("" lets the page look the report up).
func runReportPath(id, report string) string {
	p := RunPath(id)
	if report != "" {
		p += "?report=" + url.QueryEscape(report)
	}
	return p
}

// localPath reports whether p is a path on this server, safe to redirect
// to after a login: it starts with one slash and holds no backslash or
// control character (browsers read "/\evil.example" as another host).
func localPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	for _, c := range p {
		if c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

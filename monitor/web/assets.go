package web

import (
	"embed"
	"net/http"

	"github.com/promptcanary/promptcanary/report"
)

//go:embed static/dashboard.css static/dashboard.js
var staticFS embed.FS

// assets are the files under /static/: one stylesheet (the HTML reports'
// rules, then the dashboard's) and one script that only enhances pages
// already readable without it.
type assets struct {
	css, js         []byte
	cssPath, jsPath string // with a digest, so they can be cached for long
}

func loadAssets() *assets {
	own, err := staticFS.ReadFile("static/dashboard.css")
	if err != nil {
		panic("web: " + err.Error())
	}
	js, err := staticFS.ReadFile("static/dashboard.js")
	if err != nil {
		panic("web: " + err.Error())
	}
	css := append(report.Stylesheet(), own...)
	return &assets{
		css: css, js: js,
		cssPath: "/static/dashboard.css?v=" + digest(css),
		jsPath:  "/static/dashboard.js?v=" + digest(js),
	}
}

func (s *server) static(w http.ResponseWriter, r *http.Request) {
	var body []byte
	var versioned string
	switch r.PathValue("file") {
	case "dashboard.css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		body, versioned = s.assets.css, s.assets.cssPath
	case "dashboard.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		body, versioned = s.assets.js, s.assets.jsPath
	default:
		s.notFoundPage(w, r)
		return
	}
	// Only the URL of this very version may be cached for good.
	if r.URL.RequestURI() == versioned {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(body)
}

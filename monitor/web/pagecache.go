package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// The bounds of the page cache: how long a rendered page is served again
// (its relative times and the running marks may be that old), how many
// pages it holds and the largest page it keeps.
const (
	pageTTL   = time.Second
	pageCount = 32
	pageBytes = 512 << 10
)

// pageCache keeps the rendered overview and check pages of visitors who
// are not signed in (their pages hold no session, form or CSRF token),
// for one version of the Source and at most pageTTL. Of concurrent
// requests for a page not kept, one renders it and the others get its
// answer.
type pageCache struct {
	src     Versioned
	mu      sync.Mutex
	version uint64
	at      time.Time
	pages   map[string]*capture
	group   singleflight.Group
}

// cacheablePage reports whether r asks for a page the cache keeps: the
// overview or a check's page, without a query.
func cacheablePage(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.RawQuery == "" &&
		(r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/checks/"))
}

// serve answers r from the cache, rendering it with h on a miss.
func (c *pageCache) serve(w http.ResponseWriter, r *http.Request, h http.Handler) {
	key := r.URL.Path
	v, now := c.src.Version(), time.Now()
	c.mu.Lock()
	if v != c.version || now.Sub(c.at) >= pageTTL || now.Before(c.at) {
		c.version, c.at, c.pages = v, now, map[string]*capture{}
	}
	p := c.pages[key]
	c.mu.Unlock()
	if p == nil {
		got, _, _ := c.group.Do(strconv.FormatUint(v, 10)+"\x00"+key, func() (any, error) {
			rec := &capture{header: http.Header{}, status: http.StatusOK}
			h.ServeHTTP(rec, r)
			return rec, nil
		})
		p = got.(*capture)
		c.mu.Lock()
		if c.version == v && p.status == http.StatusOK && p.body.Len() <= pageBytes && len(c.pages) < pageCount {
			c.pages[key] = p
		}
		c.mu.Unlock()
	}
	p.replay(w, acceptsGzip(r))
}

// acceptsGzip reports whether r's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// capture is a rendered answer, replayed to every request it serves; a
// page of a few hundred kilobytes of SVG and table shrinks about tenfold
// with gzip, compressed once for every request that takes it.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
	gzOnce sync.Once
	gz     []byte // nil when compression failed
}

func (c *capture) Header() http.Header         { return c.header }
func (c *capture) WriteHeader(status int)      { c.status = status }
func (c *capture) Write(b []byte) (int, error) { return c.body.Write(b) }

// replay writes the captured answer to w, compressed when gz is set.
func (c *capture) replay(w http.ResponseWriter, gz bool) {
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	h.Add("Vary", "Accept-Encoding")
	body := c.body.Bytes()
	if gz {
		if z := c.gzipped(); z != nil {
			h.Set("Content-Encoding", "gzip")
			body = z
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(c.status)
	w.Write(body)
}

// gzipped returns the body compressed, nil when that failed.
func (c *capture) gzipped() []byte {
	c.gzOnce.Do(func() {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		if err != nil {
			return
		}
		if _, err := zw.Write(c.body.Bytes()); err != nil || zw.Close() != nil {
			return
		}
		c.gz = b.Bytes()
	})
	return c.gz
}

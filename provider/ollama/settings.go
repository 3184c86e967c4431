package ollama

import (
	"net"
	"net/url"
	"strings"

	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// readSettings validates m and reports every problem at once.
func readSettings(m map[string]any) (setting.Common, error) {
	return setting.ReadCommon(m, func(raw string) (*url.URL, error) { return HostURL("setting base_url", raw) }, nil)
}

// HostURL parses an Ollama server address the way Ollama reads
// OLLAMA_HOST: without a scheme it is http, and without a port it is 11434
// ("0.0.0.0:11434" → http://0.0.0.0:11434, "example.com" →
// http://example.com:11434); with a scheme the scheme's default port
// applies. Empty means DefaultHost. A trailing slash or "/api" is dropped,
// and a port outside 1-65535 is rejected. source names the setting or
// variable in errors.
func HostURL(source, raw string) (*url.URL, error) {
	raw = strings.Trim(strings.TrimSpace(raw), `"'`)
	if raw == "" {
		raw = DefaultHost
	}
	if !strings.Contains(raw, "://") {
		hostport, path, _ := strings.Cut(raw, "/")
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			host, port = strings.Trim(hostport, "[]"), defaultPort
		}
		if host == "" {
			host = "127.0.0.1"
		}
		raw = "http://" + net.JoinHostPort(host, port)
		if path != "" {
			raw += "/" + path
		}
	}
	r := setting.Root{
		Source:    source,
		Want:      "a server address such as http://localhost:11434 or 0.0.0.0:11434",
		Suffix:    "/api",
		CheckPort: true,
	}
	return r.Parse(raw)
}

// checkModel rejects an empty model name or one with whitespace.
func checkModel(model string) error {
	return setting.Model(model, "ollama/MODEL, for example ollama/llama3.2")
}

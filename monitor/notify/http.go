package notify

import (
	"net/http"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
)

// MaxSnippet bounds, in bytes, the piece of a response body an error
// quotes.
const MaxSnippet = httpc.MaxSnippet

// userAgent identifies the monitor's requests (GitHub requires one).
const userAgent = "promptcanary-monitor"

// Error is a failed delivery attempt: Op is what was being done (such as
// "post slack message"), Code the HTTP status of the answer (0 when none
// came back), Message what went wrong, Retryable set when another attempt
// may succeed (no answer, a timeout, 408, 429 and 5xx, and GitHub's rate
// limits on 403), RetryAfter the delay the server asked for (Retry-After,
// or GitHub's x-ratelimit-reset; 0 when it did not say), and Err the
// transport error, if any. Its text never holds a secret: no request URL,
// header or key goes into it, and a quoted response body is scrubbed of
// the notifier's secrets, cut to MaxSnippet bytes and put on one line.
// It is the one outbound HTTP stack's error (internal/httpc).
type Error = httpc.Error

// newClient returns the HTTP client of one notifier, over client (nil
// means a client of its own): it never follows a redirect (a POST turned
// into a GET, or a token sent to another host, helps no one), and
// scrubs secrets from what servers send back.
func newClient(client *http.Client, secrets ...string) *httpc.Client {
	return &httpc.Client{
		HTTP:      client,
		Header:    http.Header{"User-Agent": {userAgent}},
		Secrets:   redact.New(secrets...),
		Redirects: httpc.NoRedirects,
	}
}

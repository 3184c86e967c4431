package notify_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/monitor/notify"
)

// A receiver of the webhook checks the signature of the exact body it
// read, and its time, before trusting it: a request replayed more than
// five minutes later is refused.
func ExampleVerifyWebhook() {
	const secret = "whsec-4f1d9a7c2b8e6d30" // the notifier's secret
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, readErr := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if readErr != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		err := notify.VerifyWebhook(body, secret, r.Header.Get(notify.WebhookSignatureHeader), time.Now()) // github.com/promptcanary/promptcanary/monitor/notify
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})

	body := []byte(`{"version":"1","status":"firing"}`)
	for _, sig := range []string{
		notify.SignWebhook(body, secret, time.Now()),                     // fresh
		notify.SignWebhook(body, "guess", time.Now()),                    // not the secret
		notify.SignWebhook(body, secret, time.Now().Add(-6*time.Minute)), // replayed
	} {
		req := httptest.NewRequest(http.MethodPost, "/canary", strings.NewReader(string(body)))
		req.Header.Set(notify.WebhookSignatureHeader, sig)
		rec := httptest.NewRecorder()
		receiver.ServeHTTP(rec, req)
		why, _, _ := strings.Cut(rec.Body.String(), ":") // the error, less its details
		fmt.Println(strings.TrimSpace(fmt.Sprint(rec.Code, " ", why)))
	}
	// Output:
	// 204
	// 401 webhook signature does not verify
	// 401 webhook signature timestamp outside the tolerance
}

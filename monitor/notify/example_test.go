package notify_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/promptcanary/promptcanary/monitor/notify"
)

// A receiver of the webhook checks the signature of the exact body it
// read before trusting it.
func ExampleVerify() {
	const secret = "whsec-4f1d9a7c2b8e6d30" // the notifier's secret
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !notify.Verify(body, secret, r.Header.Get(notify.SignatureHeader)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})

	body := `{"version":"1","status":"firing"}`
	for _, sig := range []string{notify.Sign([]byte(body), secret), notify.Sign([]byte(body), "guess")} {
		req := httptest.NewRequest(http.MethodPost, "/canary", strings.NewReader(body))
		req.Header.Set(notify.SignatureHeader, sig)
		rec := httptest.NewRecorder()
		receiver.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 204
	// 401
}

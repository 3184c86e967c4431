package action

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFakeGitHubIsStrict checks the stand-in refuses what GitHub refuses,
// so the action's test cannot pass against a fake that accepts anything.
func TestFakeGitHubIsStrict(t *testing.T) {
	gh := newFakeGitHub(t, testRepo, testToken, testPR)
	for i := 0; i < 5; i++ {
		gh.add(testPR, "octocat", "hello")
	}
	comments := gh.srv.URL + "/repos/" + testRepo + "/issues/42/comments"
	long := `{"body":"` + strings.Repeat("é", maxCommentChars+1) + `"}`
	for _, tc := range []struct {
		name, method, url, auth, ua, version, body string
		code                                       int
		want                                       string
	}{
		{"ok", "GET", comments + "?per_page=2&page=2", "Bearer " + testToken, "t", "", "", 200, `rel="next"`},
		{"token scheme", "GET", comments, "token " + testToken, "t", apiVersion, "", 200, `"body":"hello"`},
		{"no auth", "GET", comments, "", "t", "", "", 401, "Bad credentials"},
		{"wrong token", "GET", comments, "Bearer nope", "t", "", "", 401, "Bad credentials"},
		{"no user agent", "GET", comments, "Bearer " + testToken, "", "", "", 403, "User-Agent"},
		{"bad version", "GET", comments, "Bearer " + testToken, "t", "2020-01-01", "", 400, "not supported"},
		{"wrong repo", "GET", gh.srv.URL + "/repos/acme/other/issues/42/comments", "Bearer " + testToken, "t", "", "", 404, "Not Found"},
		{"wrong issue", "GET", gh.srv.URL + "/repos/" + testRepo + "/issues/7/comments", "Bearer " + testToken, "t", "", "", 404, "Not Found"},
		{"bad json", "POST", comments, "Bearer " + testToken, "t", "", `{"body":`, 400, "Problems parsing JSON"},
		{"no body", "POST", comments, "Bearer " + testToken, "t", "", `{"text":"x"}`, 422, "wasn't supplied"},
		{"body not a string", "POST", comments, "Bearer " + testToken, "t", "", `{"body":3}`, 422, "wasn't supplied"},
		{"too long", "POST", comments, "Bearer " + testToken, "t", "", long, 422, "maximum is 65536 characters"},
		{"unknown comment", "PATCH", gh.srv.URL + "/repos/" + testRepo + "/issues/comments/1", "Bearer " + testToken, "t", "", `{"body":"x"}`, 404, "Not Found"},
		{"patch on the list", "PATCH", comments, "Bearer " + testToken, "t", "", `{"body":"x"}`, 404, "Not Found"},
		{"created", "POST", comments, "Bearer " + testToken, "t", "", `{"body":"new"}`, 201, `"body":"new"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("User-Agent", tc.ua)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.version != "" {
				req.Header.Set("X-GitHub-Api-Version", tc.version)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got := string(b) + " " + resp.Header.Get("Link")
			if resp.StatusCode != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("got %d %s, want %d with %q", resp.StatusCode, got, tc.code, tc.want)
			}
		})
	}
	if n := len(gh.comments(testPR, "")); n != 6 {
		t.Errorf("%d comments, want 6 (five and the one created)", n)
	}
}

package vertextest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// jwt signs claims with key as a service account's assertion.
func jwt(t *testing.T, key *rsa.PrivateKey, alg string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": alg, "typ": "JWT", "kid": "standin-key-1"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestTokenEndpointVerifiesTheJWT(t *testing.T) {
	s, err := NewServer("p-1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	now := time.Now().Unix()
	good := func() map[string]any {
		return map[string]any{"iss": s.Email, "aud": s.TokenURI(), "scope": "https://www.googleapis.com/auth/cloud-platform", "iat": now, "exp": now + 3600}
	}
	with := func(k string, v any) map[string]any {
		c := good()
		c[k] = v
		return c
	}
	tests := []struct {
		name      string
		assertion string
		want      string
	}{
		{"valid", jwt(t, s.key, "RS256", good()), ""},
		{"another key", jwt(t, other, "RS256", good()), "Invalid JWT Signature."},
		{"alg none", strings.Join(strings.Split(jwt(t, s.key, "none", good()), ".")[:2], ".") + ".", "Invalid JWT Signature."},
		{"another issuer", jwt(t, s.key, "RS256", with("iss", "evil@x.iam.gserviceaccount.com")), "Invalid issuer"},
		{"another audience", jwt(t, s.key, "RS256", with("aud", "https://oauth2.googleapis.com/token")), "Invalid JWT audience"},
		{"no cloud-platform scope", jwt(t, s.key, "RS256", with("scope", "https://www.googleapis.com/auth/userinfo.email")), "Invalid OAuth scope"},
		{"expired", jwt(t, s.key, "RS256", with("exp", now-10)), "short-lived token"},
		{"lives over an hour", jwt(t, s.key, "RS256", with("exp", now+7200)), "short-lived token"},
		{"not a JWT", "abc", "Invalid JWT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.PostForm(s.TokenURI(), url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {tc.assertion}})
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			json.NewDecoder(resp.Body).Decode(&body)
			if tc.want == "" {
				if resp.StatusCode != 200 || !strings.HasPrefix(body["access_token"].(string), "ya29.") {
					t.Errorf("got %d %v, want a token", resp.StatusCode, body)
				}
				return
			}
			desc, _ := body["error_description"].(string)
			if resp.StatusCode != 400 || body["error"] != "invalid_grant" || !strings.Contains(desc, tc.want) {
				t.Errorf("got %d %v, want invalid_grant with %q", resp.StatusCode, body, tc.want)
			}
		})
	}
}

func TestAPIRequiresAMintedToken(t *testing.T) {
	s, err := NewServer("p-1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tok := s.mint()
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	gemini := "/v1/projects/p-1/locations/global/publishers/google/models/gemini-2.5-flash:generateContent"
	claude := "/v1/projects/p-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
	tests := []struct {
		name, path, auth, body string
		status                 int
	}{
		{"minted token", gemini, "Bearer " + tok, body, 200},
		{"no token", gemini, "", body, 401},
		{"unknown token", gemini, "Bearer ya29.other", body, 401},
		{"another project", strings.Replace(gemini, "p-1", "p-2", 1), "Bearer " + tok, body, 403},
		{"Gemini rules apply", gemini, "Bearer " + tok, `{"contents":[{"parts":[{"text":"hi"}]}]}`, 400},
		{"Claude in Vertex form", claude, "Bearer " + tok, `{"anthropic_version":"vertex-2023-10-16","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, 200},
		{"Claude with a model in the body", claude, "Bearer " + tok, `{"anthropic_version":"vertex-2023-10-16","model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, 400},
		{"Claude without anthropic_version", claude, "Bearer " + tok, `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, 400},
		{"Claude by generateContent", strings.Replace(claude, "rawPredict", "generateContent", 1), "Bearer " + tok, body, 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := providertest.Post(t, s.URL+tc.path, tc.body, map[string]string{"Content-Type": "application/json", "Authorization": tc.auth})
			if resp.StatusCode != tc.status {
				t.Errorf("got %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

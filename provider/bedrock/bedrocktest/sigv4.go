package bedrocktest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Key is a set of AWS credentials the stand-in knows.
type Key struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// The test credentials: AWS's documented example key, and a temporary
// key whose session token must come with every request signed with it.
var (
	Static  = Key{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	Session = Key{
		AccessKeyID:     "ASIAQEXAMPLESESSION7",
		SecretAccessKey: "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
		SessionToken:    "IQoJb3JpZ2luX2VjEXAMPLEtokenForTestsOnly/QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
	}
)

// MaxSkew is how far a request's X-Amz-Date may be from the server's
// clock: "Signature expired … (… - 5 min.)".
// https://docs.aws.amazon.com/IAM/latest/UserGuide/signature-v4-troubleshooting.html
const MaxSkew = 5 * time.Minute

// authError is a refused signature: its status, x-amzn-ErrorType and
// message, as AWS words them.
type authError struct {
	status      int
	typ, reason string
}

// The messages of AWS's signature errors.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/signature-v4-troubleshooting.html
const (
	msgMismatch     = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	msgInvalidToken = "The security token included in the request is invalid."
)

// verify checks r's SigV4 signature, recomputing it with the SDK's own
// signer from the secret key of the access key id it names; nil means
// the signature is good.
func (s *Server) verify(r *http.Request, body []byte) *authError {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return &authError{http.StatusForbidden, "MissingAuthenticationTokenException", "Missing Authentication Token"}
	}
	fields, ok := parseAuth(auth)
	if !ok {
		return &authError{http.StatusBadRequest, "IncompleteSignatureException", "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters with the algorithm AWS4-HMAC-SHA256."}
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 {
		return &authError{http.StatusBadRequest, "IncompleteSignatureException", "Authorization header's Credential is malformed."}
	}
	key, known := s.key(scope[0])
	if !known {
		return &authError{http.StatusForbidden, "UnrecognizedClientException", msgInvalidToken}
	}
	if scope[2] != s.Region {
		return &authError{http.StatusForbidden, "InvalidSignatureException", "Credential should be scoped to a valid region."}
	}
	if scope[3] != "bedrock" || scope[4] != "aws4_request" {
		return &authError{http.StatusForbidden, "InvalidSignatureException", "Credential should be scoped to correct service: 'bedrock'."}
	}
	if e := s.checkDate(r, scope[1]); e != nil {
		return e
	}
	if r.Header.Get("X-Amz-Security-Token") != key.SessionToken {
		return &authError{http.StatusForbidden, "UnrecognizedClientException", msgInvalidToken}
	}
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payload {
		return &authError{http.StatusBadRequest, "InvalidSignatureException", "The provided 'x-amz-content-sha256' header does not match what was computed."}
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	for _, must := range []string{"host", "x-amz-date"} {
		if !contains(signed, must) {
			return &authError{http.StatusForbidden, "InvalidSignatureException", "'" + must + "' must be a signed header."}
		}
	}
	if key.SessionToken != "" && !contains(signed, "x-amz-security-token") {
		return &authError{http.StatusForbidden, "InvalidSignatureException", "'x-amz-security-token' must be a signed header."}
	}
	want, err := resign(r, signed, key, payload, s.Region)
	if err != nil || want["Signature"] != fields["Signature"] || want["SignedHeaders"] != fields["SignedHeaders"] {
		return &authError{http.StatusForbidden, "InvalidSignatureException", msgMismatch}
	}
	return nil
}

// checkDate checks X-Amz-Date against the credential scope's date and
// the server's clock.
func (s *Server) checkDate(r *http.Request, scopeDate string) *authError {
	raw := r.Header.Get("X-Amz-Date")
	t, err := time.Parse("20060102T150405Z", raw)
	if err != nil {
		return &authError{http.StatusBadRequest, "IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."}
	}
	if scopeDate != t.Format("20060102") {
		return &authError{http.StatusForbidden, "InvalidSignatureException", "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP."}
	}
	now := s.now().UTC()
	switch {
	case t.Before(now.Add(-MaxSkew)):
		return &authError{http.StatusForbidden, "InvalidSignatureException",
			"Signature expired: " + raw + " is now earlier than " + now.Add(-MaxSkew).Format("20060102T150405Z") + " (" + now.Format("20060102T150405Z") + " - 5 min.)"}
	case t.After(now.Add(MaxSkew)):
		return &authError{http.StatusForbidden, "InvalidSignatureException",
			"Signature not yet current: " + raw + " is still later than " + now.Add(MaxSkew).Format("20060102T150405Z") + " (" + now.Format("20060102T150405Z") + " + 5 min.)"}
	}
	return nil
}

// resign signs a copy of r holding only the headers r says it signed,
// at r's X-Amz-Date, and returns the parts of the Authorization header
// the SDK's signer computed.
func resign(r *http.Request, signed []string, key Key, payload, region string) (map[string]string, error) {
	u := &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath}
	cp, err := http.NewRequestWithContext(context.Background(), r.Method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	cp.URL.RawPath = r.URL.RawPath
	cp.Host = r.Host
	for _, name := range signed {
		switch name {
		case "host":
		case "content-length":
			cp.ContentLength = r.ContentLength
		default:
			cp.Header[textproto.CanonicalMIMEHeaderKey(name)] = r.Header.Values(name)
		}
	}
	t, _ := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, SessionToken: key.SessionToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, cp, payload, "bedrock", region, t); err != nil {
		return nil, err
	}
	out, _ := parseAuth(cp.Header.Get("Authorization"))
	return out, nil
}

// parseAuth splits "AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…,
// Signature=…" into its parameters.
func parseAuth(h string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(h, "AWS4-HMAC-SHA256 ")
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, false
		}
		out[k] = v
	}
	return out, out["Credential"] != "" && out["SignedHeaders"] != "" && out["Signature"] != ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

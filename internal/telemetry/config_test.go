package telemetry

import (
	"reflect"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "nothing set", env: nil, want: Config{Protocol: ProtocolHTTP}},
		{name: "base endpoint, http: /v1/traces appended",
			env:  map[string]string{EnvEndpoint: "http://collector:4318/"},
			want: Config{Endpoint: "http://collector:4318/v1/traces", Protocol: ProtocolHTTP}},
		{name: "base endpoint, grpc: as it is",
			env:  map[string]string{EnvEndpoint: "https://collector:4317", EnvProtocol: "grpc"},
			want: Config{Endpoint: "https://collector:4317", Protocol: ProtocolGRPC}},
		{name: "traces endpoint wins and is taken as it is",
			env:  map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "http://b:4318/custom"},
			want: Config{Endpoint: "http://b:4318/custom", Protocol: ProtocolHTTP}},
		{name: "traces protocol wins",
			env:  map[string]string{EnvEndpoint: "http://a:4317", EnvProtocol: "http/protobuf", EnvTracesProtocol: "grpc"},
			want: Config{Endpoint: "http://a:4317", Protocol: ProtocolGRPC}},
		{name: "headers percent-decoded, content on",
			env: map[string]string{EnvEndpoint: "http://a:4318", EnvHeaders: "authorization=Bearer%20tok-123456789, x-tenant = t1", EnvContent: "true"},
			want: Config{Endpoint: "http://a:4318/v1/traces", Protocol: ProtocolHTTP, Content: true,
				Headers: map[string]string{"authorization": "Bearer tok-123456789", "x-tenant": "t1"}}},
		{name: "SDK disabled", env: map[string]string{EnvEndpoint: "http://a:4318", EnvSDKDisabled: "true"}, want: Config{}},
		{name: "traces exporter none", env: map[string]string{EnvEndpoint: "http://a:4318", EnvTracesExporter: "none"}, want: Config{}},
		{name: "http/json refused", env: map[string]string{EnvEndpoint: "http://a:4318", EnvProtocol: "http/json"},
			wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL: http/json is not supported: use http/protobuf or grpc"},
		{name: "endpoint without scheme, never quoted", env: map[string]string{EnvEndpoint: "collector:4318"},
			wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT: not an http:// or https:// URL with a host"},
		{name: "header without =, its value never quoted", env: map[string]string{EnvEndpoint: "http://a:4318", EnvHeaders: "secret-token-value"},
			wantErr: "OTEL_EXPORTER_OTLP_HEADERS: header 1 is not key=value"},
		{name: "content not a boolean", env: map[string]string{EnvEndpoint: "http://a:4318", EnvContent: "yes please"},
			wantErr: "PROMPTCANARY_OTEL_CONTENT: want true or false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if got.Enabled() != (tc.want.Endpoint != "") {
				t.Errorf("Enabled() = %v", got.Enabled())
			}
		})
	}
}

func TestConfigSecrets(t *testing.T) {
	c := Config{Endpoint: "https://user:endpoint-password@collector:4318/v1/traces",
		Headers: map[string]string{"authorization": "Bearer header-token-123"}}
	got := strings.Join(c.Secrets(), " ")
	for _, want := range []string{"Bearer header-token-123", "header-token-123", "endpoint-password"} {
		if !strings.Contains(got, want) {
			t.Errorf("Secrets() = %q, want %q in it", got, want)
		}
	}
}

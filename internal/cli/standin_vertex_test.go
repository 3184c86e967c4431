package cli

import (
	"net"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/vertex/vertextest"
)

// "standin vertex" starts the Vertex AI stand-in (vertextest) for the
// project canary-project, writes its service account's key file to
// $WORK/service-account.json and exports GOOGLE_APPLICATION_CREDENTIALS
// (its token_uri is the stand-in's token endpoint, which verifies the
// signed JWT) and STANDIN_VERTEX_URL, for --base-url. The metadata
// server is pointed at a closed port, so nothing leaves the machine. API
// requests are logged to standin-vertex.log and their bodies to
// standin-vertex.jsonl (see standinLogger).
func init() {
	standins["vertex"] = func(ts *testscript.TestScript, args []string) {
		srv, err := vertextest.NewServer("canary-project")
		ts.Check(err)
		ts.Defer(srv.Close)
		srv.OnRequest = standinLogger(ts, "vertex")
		path, err := srv.WriteCredentials(ts.Getenv("WORK"))
		ts.Check(err)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		closed := l.Addr().String()
		l.Close()
		ts.Setenv("GCE_METADATA_HOST", closed)
		ts.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
		ts.Setenv("GOOGLE_CLOUD_PROJECT", "")
		ts.Setenv("GOOGLE_CLOUD_LOCATION", "")
		ts.Setenv("STANDIN_VERTEX_URL", srv.URL)
	}
}

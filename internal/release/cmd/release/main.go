// Command release builds PromptCanary's release artifacts into a
// directory; scripts/release.sh runs it. See docs/releases.md.
//
//	go run ./internal/release/cmd/release -version 1.2.3 -commit HASH -date UNIX [-out dist]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/internal/release"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "release: error:", err)
		os.Exit(1)
	}
}

func run() error {
	version := flag.String("version", "", "the release's version without a leading v, e.g. 1.2.3")
	commit := flag.String("commit", "", "the git commit hash it is built from")
	date := flag.String("date", os.Getenv("SOURCE_DATE_EPOCH"), "the commit's time in Unix seconds (default $SOURCE_DATE_EPOCH)")
	out := flag.String("out", "dist", "the directory the artifacts go to")
	targets := flag.String("targets", "", "comma-separated GOOS/GOARCH list (default: all six release targets)")
	image := flag.Bool("image", true, "also build the OCI image from the linux targets")
	certs := flag.String("ca-certs", release.CACertsPath, "the CA bundle the image carries")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; hint: -version 1.2.3", flag.Arg(0))
	}
	secs, err := strconv.ParseInt(*date, 10, 64)
	if err != nil {
		return fmt.Errorf("-date %q: want Unix seconds (git log -1 --format=%%ct)", *date)
	}
	o := release.Options{
		ModuleDir: ".", OutDir: *out, Image: *image, Log: os.Stderr,
		Meta: release.Meta{Version: strings.TrimPrefix(*version, "v"), Commit: *commit, Time: time.Unix(secs, 0).UTC()},
	}
	if *targets != "" {
		for _, s := range strings.Split(*targets, ",") {
			t, err := release.ParseTarget(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("-targets: %w", err)
			}
			o.Targets = append(o.Targets, t)
		}
	}
	if *image {
		o.CACerts, err = os.ReadFile(*certs)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "release: warning: no CA bundle at %s: the image cannot verify TLS servers; hint: apt-get install ca-certificates, or pass -ca-certs\n", *certs)
		} else if err != nil {
			return fmt.Errorf("-ca-certs: %w", err)
		}
	}
	for _, name := range []string{"README.md", "CHANGELOG.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("%s: %w; hint: run from the repository's root", name, err)
		}
		o.Docs = append(o.Docs, release.File{Name: name, Mode: 0o644, Data: data})
	}
	_, err = release.Run(context.Background(), o)
	return err
}

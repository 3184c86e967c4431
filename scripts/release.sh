#!/usr/bin/env bash
# Builds a release into dist/: an archive per platform (linux, darwin,
# windows × amd64, arm64), a CycloneDX SBOM, a multi-platform OCI image
# tarball and SHA256SUMS. Reproducible: every timestamp is the commit's
# (or SOURCE_DATE_EPOCH's), so the same commit and Go toolchain give the
# same bytes. See docs/releases.md.
#
#   bash scripts/release.sh 1.2.3
#   TARGETS=linux/amd64 bash scripts/release.sh 0.0.0-test   # one platform
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bash scripts/release.sh VERSION   (e.g. 1.2.3 or 0.0.0-test)" >&2
	exit 2
fi
version=${1#v}
cd "$(dirname "$0")/.."

commit=$(git rev-parse HEAD)
date=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "release: warning: uncommitted changes: the binaries are not what commit $commit builds" >&2
fi
out=${DIST:-dist}
case $out in
"" | / | . | .. | "$HOME")
	echo "release: DIST=$out would remove more than the release; pick a directory of its own" >&2
	exit 2
	;;
esac
rm -rf "$out"
start=$(date +%s)
go run ./internal/release/cmd/release -version "$version" -commit "$commit" -date "$date" \
	-out "$out" ${TARGETS:+-targets "$TARGETS"}
echo "release: $version ($commit) in $out/ after $(($(date +%s) - start))s:" >&2
(cd "$out" && ls -l && sha256sum -c --quiet SHA256SUMS)

#!/usr/bin/env bash
# Installs promptcanary for the action (step "Install promptcanary" of
# action.yml) and sets the step output path to the binary.
#
# A release tag (vX.Y.Z) downloads promptcanary_X.Y.Z_OS_ARCH.tar.gz (.zip
# on Windows) and SHA256SUMS from the action repository's release and
# installs the binary only when its checksum matches. A ref without a
# release (a branch, a commit, a tag never released) builds the action's
# own source with Go. A checksum that does not match never falls back.
#
# Environment: PC_VERSION (input version), PC_ACTION_REF,
# PC_ACTION_REPOSITORY, PC_ACTION_PATH, and the runner's RUNNER_OS,
# RUNNER_ARCH, RUNNER_TEMP, GITHUB_SERVER_URL, GITHUB_OUTPUT, GITHUB_PATH.
set -euo pipefail

fail() {
	echo "::error title=promptcanary install::$1" >&2
	exit 1
}

# ref is the version to install: the input, else the ref the action runs
# at. Where the runner leaves github.action_ref empty, the ref is the last
# element of the action's path (…/_actions/OWNER/NAME/REF).
ref=${PC_VERSION:-${PC_ACTION_REF:-}}
repo=${PC_ACTION_REPOSITORY:-}
case "$PC_ACTION_PATH" in
*/_actions/*/*/*)
	[ -n "$ref" ] || ref=$(basename "$PC_ACTION_PATH")
	[ -n "$repo" ] || repo=$(basename "$(dirname "$(dirname "$PC_ACTION_PATH")")")/$(basename "$(dirname "$PC_ACTION_PATH")")
	;;
esac
repo=${repo:-promptcanary/promptcanary}

case "${RUNNER_OS:-}" in
Linux) os=linux ext=tar.gz exe=promptcanary ;;
macOS) os=darwin ext=tar.gz exe=promptcanary ;;
Windows) os=windows ext=zip exe=promptcanary.exe ;;
*) fail "unsupported RUNNER_OS '${RUNNER_OS:-}': releases exist for Linux, macOS and Windows" ;;
esac
case "${RUNNER_ARCH:-}" in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) fail "unsupported RUNNER_ARCH '${RUNNER_ARCH:-}': releases exist for X64 and ARM64" ;;
esac

dest="${RUNNER_TEMP:?RUNNER_TEMP is not set}/promptcanary-bin"
rm -rf "$dest"
mkdir -p "$dest"

sha256() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# download URL FILE: 0 on success, 4 when the server has no such file
# (404), 1 on any other failure.
download() {
	local code
	local proto='=https'
	# Plain http only where the server itself is (a test's local server).
	case "$1" in http://*) proto='=http,https' ;; esac
	code=$(curl -sSL --retry 3 --proto "$proto" --proto-redir "$proto" -o "$2" -w '%{http_code}' "$1") || return 1
	case "$code" in
	200) return 0 ;;
	404) return 4 ;;
	*)
		echo "promptcanary install: $1: HTTP $code" >&2
		return 1
		;;
	esac
}

# from_release installs the release's binary; 4 when the release or its
# archive does not exist.
from_release() {
	local version=${ref#v} base archive tmp want got rc=0
	archive="promptcanary_${version}_${os}_${arch}.${ext}"
	base="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$ref"
	tmp=$(mktemp -d "$RUNNER_TEMP/promptcanary-dl.XXXXXX")
	download "$base/SHA256SUMS" "$tmp/SHA256SUMS" || rc=$?
	[ "$rc" -eq 0 ] && { download "$base/$archive" "$tmp/$archive" || rc=$?; }
	if [ "$rc" -ne 0 ]; then
		rm -rf "$tmp"
		[ "$rc" -eq 4 ] && return 4
		fail "could not download $archive of release $ref from $repo"
	fi
	want=$(awk -v f="$archive" '($2 == f || $2 == "*" f) { print $1 }' "$tmp/SHA256SUMS")
	[ -n "$want" ] || fail "SHA256SUMS of release $ref lists no $archive: not installed"
	got=$(sha256 "$tmp/$archive")
	[ "$got" = "$want" ] || fail "checksum mismatch for $archive of release $ref: SHA256SUMS says $want, the download is $got; not installed"
	mkdir "$tmp/x" || fail "cannot create $tmp/x"
	if [ "$ext" = zip ] && command -v unzip >/dev/null; then
		unzip -q "$tmp/$archive" -d "$tmp/x" || fail "cannot unpack $archive"
	elif [ "$ext" = zip ]; then
		powershell -NoProfile -Command "Expand-Archive -LiteralPath '$(cygpath -w "$tmp/$archive")' -DestinationPath '$(cygpath -w "$tmp/x")'" ||
			fail "cannot unpack $archive"
	else
		tar -xzf "$tmp/$archive" -C "$tmp/x" || fail "cannot unpack $archive"
	fi
	local bin
	bin=$(find "$tmp/x" -type f -name "$exe" | head -n 1)
	[ -n "$bin" ] || fail "$archive of release $ref holds no $exe"
	mv "$bin" "$dest/$exe" || fail "cannot install $exe into $dest"
	chmod +x "$dest/$exe" || fail "cannot make $dest/$exe executable"
	rm -rf "$tmp"
	echo "promptcanary install: release $ref ($archive, sha256 $got)"
}

# from_source builds the action's own source (the ref it runs at); when
# the action directory is not the module, go install fetches REF.
from_source() {
	command -v go >/dev/null || fail "ref '$ref' has no release to download and Go is not installed: add actions/setup-go before this action, or use the action at a release tag"
	if grep -qs '^module github.com/promptcanary/promptcanary$' "$PC_ACTION_PATH/go.mod"; then
		echo "promptcanary install: building the action's source (${ref:-a local action}) with $(go version)"
		(cd "$PC_ACTION_PATH" && GOBIN="$dest" go install ./cmd/promptcanary)
	else
		[ -n "$ref" ] || fail "no ref to install: set the input version"
		echo "promptcanary install: go install github.com/promptcanary/promptcanary/cmd/promptcanary@$ref"
		GOBIN="$dest" go install "github.com/promptcanary/promptcanary/cmd/promptcanary@$ref"
	fi
}

if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	rc=0
	from_release || rc=$?
	if [ "$rc" -eq 4 ]; then
		echo "::notice title=promptcanary install::$ref has no release archive for $os/$arch in $repo; building from source"
		from_source
	elif [ "$rc" -ne 0 ]; then
		exit "$rc"
	fi
else
	from_source
fi

"$dest/$exe" version
echo "$dest" >>"$GITHUB_PATH"
echo "path=$dest/$exe" >>"$GITHUB_OUTPUT"

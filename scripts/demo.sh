#!/usr/bin/env bash
# The main job, offline on the built-in simulated model: scaffold a suite,
# run it on sim/stable and save a baseline, then run sim/drifted (a model
# that changed behind the same name) and compare it against that baseline.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${PROMPTCANARY_DEMO_DIR:-$(mktemp -d)}
mkdir -p "$work"
go build -o "$work/promptcanary" "$root/cmd/promptcanary"

step() {
	printf '\n\033[1m$ promptcanary %s\033[0m\n' "$*"
	"$work/promptcanary" "$@"
}

cd "$work"
step init demo --force
cd demo
step run --provider sim/stable --save-baseline --no-progress
step compare --provider sim/drifted --baseline-provider sim/stable --no-progress \
	--output-md drift.md --output-html drift.html
printf '\nReports: %s/demo/drift.md and drift.html\n' "$work"

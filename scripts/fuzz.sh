#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time each, so the
# parsers of untrusted input (canary.yaml, runs and baselines, provider
# responses, model output in probes) meet fresh inputs on every CI run.
# FUZZTIME sets the time per target (default 3s). Targets are found with
# 'go test -list', so a new Fuzz function is fuzzed without being listed here.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-3s}
count=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
		count=$((count + 1))
	done
done
echo "fuzzed $count targets for $fuzztime each"

#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time each, so the
# parsers of untrusted input (canary.yaml, runs and baselines, provider
# responses, model output in probes) meet fresh inputs on every CI run.
# FUZZTIME sets the time per target (default 3s). Targets are found with
# 'go test -list', so a new Fuzz function is fuzzed without being listed here.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when -fuzztime ends while a worker is mid-call on a loaded
# machine (golang/go#75804, fixed in Go 1.27). That failure writes no
# failing input: such a target is run once more, and fails the job only if
# it fails again. A real finding ("Failing input written to …", a panic)
# fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-3s}
count=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

fuzz() {
	go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" >"$log" 2>&1
}

for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== fuzz $pkg $target ($fuzztime)"
		if ! fuzz "$pkg" "$target"; then
			cat "$log"
			if grep -q 'context deadline exceeded' "$log" && ! grep -q -e 'Failing input written' -e 'panic:' "$log"; then
				echo "== $target: the Go fuzz deadline race (golang/go#75804), no failing input: once more"
				fuzz "$pkg" "$target" || { cat "$log"; exit 1; }
			else
				exit 1
			fi
		fi
		tail -1 "$log"
		count=$((count + 1))
	done
done
echo "fuzzed $count targets for $fuzztime each"

#!/usr/bin/env bash
# Runs promptcanary compare for the action (step "Compare against the
# baseline" of action.yml). It never fails on the verdict: the exit code
# goes to the output exit-code and the step "Gate on the verdict" fails
# the job after the report was uploaded and commented. promptcanary
# appends the Markdown report to GITHUB_STEP_SUMMARY itself.
#
# Outputs: exit-code, severity (the highest of the reports; empty without
# one), report-path (the Markdown report), report-dir (every report file)
# and artifact-name.
#
# Environment: PC_BIN, PC_CONFIG, PC_PROVIDER, PC_FAIL_ON_DRIFT,
# PC_SAMPLES, PC_ARGS, PC_COMMENT_KEY, PC_ARTIFACT_NAME, PC_INSTALL_ONLY, RUNNER_TEMP,
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
set -euo pipefail

# no_report tells the job's summary page that compare wrote no report.
no_report() {
	# shellcheck disable=SC2016 # the backquotes are Markdown
	[ -z "${GITHUB_STEP_SUMMARY:-}" ] ||
		printf '### PromptCanary\n\nNo drift report: `promptcanary compare` exited %s; %s.\n' "$1" "$2" >>"$GITHUB_STEP_SUMMARY"
}

# usage fails on an input before compare runs, as compare's own usage
# errors do: exit code 2, for the gate step.
usage() {
	echo "::error title=promptcanary::$1" >&2
	no_report 2 "$1"
	echo "exit-code=2" >>"$GITHUB_OUTPUT"
	exit 0
}

case "${PC_INSTALL_ONLY:-false}" in
true)
	echo "promptcanary: install-only: nothing compared"
	exit 0
	;;
false) ;;
*) usage "input install-only is '$PC_INSTALL_ONLY'; use true or false" ;;
esac

bin=${PC_BIN:-promptcanary}
dir=$(mktemp -d "${RUNNER_TEMP:?RUNNER_TEMP is not set}/promptcanary-report.XXXXXX")
args=(compare --no-progress --output-md "$dir/drift.md" --output-html "$dir/drift.html" --output-json "$dir/drift.json")
[ -z "${PC_CONFIG:-}" ] || args+=(--config "$PC_CONFIG")
[ -z "${PC_PROVIDER:-}" ] || args+=(--provider "$PC_PROVIDER")
case "${PC_FAIL_ON_DRIFT:-any}" in
false | "") ;;
any | true) args+=(--fail-on-drift) ;;
low | medium | high | critical) args+=("--fail-on-drift=$PC_FAIL_ON_DRIFT") ;;
*) usage "input fail-on-drift is '$PC_FAIL_ON_DRIFT'; use any, low, medium, high, critical or false" ;;
esac
if [ -n "${PC_SAMPLES:-}" ]; then
	[[ "$PC_SAMPLES" =~ ^[1-9][0-9]*$ ]] || usage "input samples is '$PC_SAMPLES'; use a whole number of 1 or more"
	args+=(--samples "$PC_SAMPLES")
fi
# Split on whitespace only: no quotes, no globs, nothing evaluated.
read -r -a extra <<<"${PC_ARGS:-}"
[ ${#extra[@]} -eq 0 ] || args+=("${extra[@]}")

echo "promptcanary ${args[*]}"
code=0
"$bin" "${args[@]}" || code=$?

# With several providers compare writes drift.PROVIDER.md and so on;
# report-path then joins their Markdown reports.
shopt -s nullglob
mds=("$dir"/drift.*.md)
if [ ! -f "$dir/drift.md" ] && [ ${#mds[@]} -gt 0 ]; then
	for md in "${mds[@]}"; do
		cat "$md"
		echo
	done >"$dir/drift.md"
fi

# The top-level "severity" of each JSON report (Go's two-space indent:
# a string value cannot hold a newline, so the line is the key's own).
rank() {
	case "$1" in none) echo 0 ;; low) echo 1 ;; medium) echo 2 ;; high) echo 3 ;; critical) echo 4 ;; *) echo -1 ;; esac
}
severity=""
for js in "$dir"/drift.json "$dir"/drift.*.json; do
	[ -f "$js" ] || continue
	s=$(sed -n 's/^  "severity": "\([a-z]*\)",\{0,1\}$/\1/p' "$js" | head -n 1)
	if [ -n "$s" ] && { [ -z "$severity" ] || [ "$(rank "$s")" -gt "$(rank "$severity")" ]; }; then
		severity=$s
	fi
done

name=${PC_ARTIFACT_NAME:-promptcanary-report${PC_COMMENT_KEY:+-$PC_COMMENT_KEY}}
name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '-')

[ -f "$dir/drift.md" ] || no_report "$code" "the job log says why"
{
	echo "exit-code=$code"
	echo "severity=$severity"
	echo "report-dir=$dir"
	echo "artifact-name=$name"
	if [ -f "$dir/drift.md" ]; then echo "report-path=$dir/drift.md"; else echo "report-path="; fi
} >>"$GITHUB_OUTPUT"
echo "promptcanary compare exited $code${severity:+, severity $severity}"

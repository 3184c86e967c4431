#!/usr/bin/env bash
# Creates or updates the action's one pull-request comment (step "Comment
# on the pull request" of action.yml). The comment starts with a hidden
# marker, <!-- promptcanary-report --> (with key=KEY for a comment-key),
# by which the next run finds it again among the pull request's comments
# (every page) and updates it instead of posting another.
#
# GitHub REST API (https://docs.github.com/en/rest/issues/comments):
#   GET   /repos/{owner}/{repo}/issues/{number}/comments?per_page=100  Link rel="next"
#   POST  /repos/{owner}/{repo}/issues/{number}/comments   {"body": …}  201
#   PATCH /repos/{owner}/{repo}/issues/comments/{id}       {"body": …}  200
#
# Needs curl and jq (both on GitHub-hosted runners). The token goes to
# curl on standard input, never on a command line, and is never printed.
#
# Environment: GITHUB_TOKEN, PC_COMMENT, PC_COMMENT_KEY, PC_REPORT,
# PC_EXIT_CODE, PC_SEVERITY, PC_INSTALL_ONLY and the runner's GITHUB_EVENT_NAME,
# GITHUB_EVENT_PATH, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_SERVER_URL,
# GITHUB_RUN_ID, RUNNER_TEMP.
set -euo pipefail

# GitHub refuses a comment body over 65536 characters.
max_body=65536
max_pages=50

fail() {
	echo "::error title=promptcanary comment::$1" >&2
	exit 1
}

[ "${PC_INSTALL_ONLY:-false}" != true ] || exit 0
case "${GITHUB_EVENT_NAME:-}" in
pull_request | pull_request_target) ;;
*)
	echo "promptcanary comment: event ${GITHUB_EVENT_NAME:-unknown} is not a pull request: no comment"
	exit 0
	;;
esac
case "${PC_COMMENT:-true}" in
true) ;;
false)
	echo "promptcanary comment: input comment is false: no comment"
	exit 0
	;;
*) fail "input comment is '${PC_COMMENT}'; use true or false" ;;
esac
command -v jq >/dev/null || fail "jq is not installed: GitHub-hosted runners have it; on this runner install jq, or set comment: false"
[ -n "${GITHUB_TOKEN:-}" ] || fail "no token: set the input github-token (default: the job's GITHUB_TOKEN)"
# The token goes into a curl config line: refuse what would break it.
[[ "$GITHUB_TOKEN" =~ ^[A-Za-z0-9_.:-]+$ ]] || fail "the github-token holds characters a GitHub token does not have"
[[ "${GITHUB_REPOSITORY:-}" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || fail "GITHUB_REPOSITORY '${GITHUB_REPOSITORY:-}' is not OWNER/NAME"

event=${GITHUB_EVENT_PATH:?GITHUB_EVENT_PATH is not set}
number=$(jq -r '.pull_request.number // empty' "$event")
[[ "$number" =~ ^[0-9]+$ ]] || fail "the event in $event has no pull_request.number"
head_sha=$(jq -r '.pull_request.head.sha // empty' "$event")
fork=$(jq -r 'if (.pull_request.head.repo.full_name // "") != (.pull_request.base.repo.full_name // "") then "true" else "false" end' "$event")

api=${GITHUB_API_URL:-https://api.github.com}
api=${api%/}
key=$(printf '%s' "${PC_COMMENT_KEY:-}" | tr -c 'A-Za-z0-9._:=+-' '_' | sed 's/--*/-/g')
marker="<!-- promptcanary-report${key:+ key=$key} -->"
tmp=$(mktemp -d "${RUNNER_TEMP:?RUNNER_TEMP is not set}/promptcanary-comment.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The comment: the marker, the report (or why there is none) and a line
# naming the commit, the exit code and the workflow run.
if [ -n "${PC_REPORT:-}" ] && [ -f "$PC_REPORT" ]; then
	cp "$PC_REPORT" "$tmp/report.md"
else
	# shellcheck disable=SC2016 # the backquotes are Markdown
	printf '## PromptCanary\n\nNo drift report: `promptcanary compare` exited %s; the job log says why.\n' "${PC_EXIT_CODE:-?}" >"$tmp/report.md"
fi
footer="<sub>promptcanary compare exited ${PC_EXIT_CODE:-?}${PC_SEVERITY:+ (severity $PC_SEVERITY)}${head_sha:+ at ${head_sha:0:7}}"
if [ -n "${GITHUB_RUN_ID:-}" ]; then
	footer+=" · [workflow run](${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID)"
fi
footer+="</sub>"
jq -n --rawfile report "$tmp/report.md" --arg head "$marker"$'\n' --arg foot $'\n\n'"$footer" --argjson max "$max_body" '
	($max - ($head | length) - ($foot | length)) as $room
	| (if ($report | length) > $room
	   then $report[0:($room - 120)] + "\n\n… cut to fit GitHub'"'"'s comment limit; the whole report is in the artifact."
	   else $report end) as $r
	| {body: ($head + $r + $foot)}' >"$tmp/body.json"

# api METHOD URL [BODY]: makes one request, sets status, leaves the answer
# in $tmp/resp and its headers in $tmp/headers.
api() {
	local args=(-sS -X "$1" -o "$tmp/resp" -D "$tmp/headers" -w '%{http_code}'
		-H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28"
		-H "User-Agent: promptcanary-action")
	# A POST is not repeated: a lost answer must not post twice.
	[ "$1" = POST ] || args+=(--retry 3)
	[ -z "${3:-}" ] || args+=(-H "Content-Type: application/json" --data-binary "@$3")
	status=$(printf 'header = "Authorization: Bearer %s"\n' "$GITHUB_TOKEN" | curl -K - "${args[@]}" "$2") ||
		fail "$1 $2: no answer from the GitHub API"
}

# refused OP: explains an answer other than the one wanted, and lets a
# pull request from a fork (whose token is read-only) pass with a warning.
refused() {
	local msg hint=""
	msg=$(jq -r '.message // empty' "$tmp/resp" 2>/dev/null | head -c 300 || true)
	case "$status" in
	401) hint="check the github-token input" ;;
	403) hint="the token needs pull-requests: write; set it under permissions: in the workflow" ;;
	404) hint="repository $GITHUB_REPOSITORY or pull request #$number not found, or the token cannot see it" ;;
	422) hint="GitHub rejected the comment" ;;
	esac
	if [ "$status" = 403 ] && [ "$fork" = true ]; then
		echo "::warning title=promptcanary comment::$1: HTTP 403 on a pull request from a fork, whose token is read-only; the report is on the job's summary page"
		exit 0
	fi
	fail "$1: HTTP $status${msg:+: $msg}${hint:+ ($hint)}"
}

# Find the comment with the marker, following Link rel="next".
id=""
url="$api/repos/$GITHUB_REPOSITORY/issues/$number/comments?per_page=100"
for ((page = 1; page <= max_pages; page++)); do
	api GET "$url"
	[ "$status" = 200 ] || refused "list the comments of pull request #$number"
	id=$(jq -r --arg m "$marker" '[.[] | select((.body // "") | startswith($m))][0].id // empty' "$tmp/resp") ||
		fail "list the comments of pull request #$number: the answer is not a JSON array"
	[ -z "$id" ] || break
	# No Link header (a single page) is no next page.
	url=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^[Ll][Ii][Nn][Kk]: *//p' | tr ',' '\n' |
		sed -n 's/^ *<\([^>]*\)>.*rel="\{0,1\}next"\{0,1\}.*$/\1/p' | head -n 1)
	[ -n "$url" ] || break
	# The token goes only to the API.
	case "$url" in "$api"/*) ;; *) fail "the next page of comments is on another host; not followed" ;; esac
done

if [ -n "$id" ]; then
	api PATCH "$api/repos/$GITHUB_REPOSITORY/issues/comments/$id" "$tmp/body.json"
	[ "$status" = 200 ] || refused "update comment $id"
	echo "promptcanary comment: updated $(jq -r '.html_url // .id' "$tmp/resp")"
else
	api POST "$api/repos/$GITHUB_REPOSITORY/issues/$number/comments" "$tmp/body.json"
	[ "$status" = 201 ] || refused "comment on pull request #$number"
	echo "promptcanary comment: created $(jq -r '.html_url // .id' "$tmp/resp")"
fi

#!/usr/bin/env bash
# Installs what some tests need beyond Go, from Debian's packages:
# xmllint (libxml2-utils) validates the JUnit reports against the JUnit XSD;
# chromium renders the monitor's dashboard in the chromedp tests;
# curl and jq run the GitHub Action's scripts (action/*.sh) in its tests.
# Tests that need a missing tool skip with a message naming this script.
# Run as root (CI is); elsewhere it says what to install.
set -euo pipefail
missing=()
command -v xmllint >/dev/null || missing+=(libxml2-utils)
command -v chromium >/dev/null || missing+=(chromium)
command -v curl >/dev/null || missing+=(curl)
command -v jq >/dev/null || missing+=(jq)
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "test-deps: run as root, or install: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "== installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null

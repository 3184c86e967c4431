#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of the PostgreSQL store
# (store/postgres), in a temporary directory, on a free loopback port, with
# trust authentication on loopback only, run by an unprivileged user.
#
#   eval "$(scripts/postgres.sh start)"  # start one (or reuse the running one) and
#                                        # export PROMPTCANARY_TEST_POSTGRES, its DSN
#   go test ./store/postgres/...
#   scripts/postgres.sh stop             # stop it and remove its directory
#   scripts/postgres.sh status           # say whether one runs, and its DSN
#
# start prints only the export lines on stdout; messages go to stderr. As
# root (CI), start installs the Debian postgresql package when no initdb
# is found, and runs the server as the user postgres (created by that
# package), or as a system user pgtest it creates; as anyone else, it runs
# the server as that user and needs PostgreSQL installed. The cluster
# trades durability for speed (fsync off): it is for tests only.
#
# Environment: PROMPTCANARY_POSTGRES_PORT picks the port (default: a free
# one); PROMPTCANARY_POSTGRES_DIR names the cluster's directory for stop
# and status (start exports it).
set -euo pipefail

database=promptcanary
superuser=postgres
# state records the running cluster (its export lines), for start to
# reuse it and for stop and status to find it.
state=${TMPDIR:-/tmp}/promptcanary-postgres.$(id -u).env

say() { echo "postgres.sh: $*" >&2; }
die() {
	say "error: $*"
	exit 1
}

# bindir prints the directory of the newest PostgreSQL's programs.
bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
	elif command -v initdb >/dev/null; then
		dirname "$(command -v initdb)"
	fi
}

# install installs the Debian postgresql package when no PostgreSQL is
# found.
install() {
	if [ -n "$(bindir)" ]; then
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		die "PostgreSQL is not installed: run this script as root to install it, or install it yourself (apt-get install postgresql)"
	fi
	say "installing the Debian postgresql package"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq postgresql >/dev/null
	[ -n "$(bindir)" ] || die "the postgresql package installed no initdb under /usr/lib/postgresql"
}

# server_user prints the user the server runs as: the caller, unless the
# caller is root (PostgreSQL refuses to run as root).
server_user() {
	if [ "$(id -u)" -ne 0 ]; then
		id -un
	elif id postgres >/dev/null 2>&1; then
		echo postgres
	else
		if ! id pgtest >/dev/null 2>&1; then
			say "creating the system user pgtest to run the server"
			useradd --system --no-create-home --shell /usr/sbin/nologin pgtest
		fi
		echo pgtest
	fi
}

# as USER CMD... runs CMD as USER, from the cluster's directory (the
# server user may not be able to read the caller's).
as() {
	local user=$1
	shift
	if [ "$user" = "$(id -un)" ]; then
		(cd "$dir" && "$@")
	else
		(cd "$dir" && runuser -u "$user" -- "$@")
	fi
}

# free_port prints a loopback port nothing listens on.
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "found no free port on 127.0.0.1"
}

# running reports whether the cluster recorded in $state runs; it sets dir
# and dsn from it.
running() {
	dir= dsn=
	[ -f "$state" ] || return 1
	dir=$(sed -n "s/^export PROMPTCANARY_POSTGRES_DIR='\(.*\)'$/\1/p" "$state")
	dsn=$(sed -n "s/^export PROMPTCANARY_TEST_POSTGRES='\(.*\)'$/\1/p" "$state")
	[ -n "$dir" ] && [ -f "$dir/data/PG_VERSION" ] || return 1
	local owner bin
	owner=$(stat -c %U "$dir/data")
	bin=$(bindir)
	[ -n "$bin" ] && as "$owner" "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

start() {
	if running; then
		say "reusing the cluster in $dir ($dsn)"
		cat "$state"
		return
	fi
	if [ -n "$dir" ]; then
		say "removing the stopped cluster left in $dir"
		cleanup
	fi
	install
	local bin user port
	bin=$(bindir)
	user=$(server_user)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/promptcanary-postgres.XXXXXX")
	# Until the cluster is up, leaving (an error, a signal) removes it.
	trap 'cleanup' EXIT
	chown "$user" "$dir"
	chmod 700 "$dir"
	say "creating a cluster in $dir with $("$bin/postgres" --version), run by $user"
	if ! as "$user" "$bin/initdb" -D "$dir/data" -U "$superuser" -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		die "initdb failed"
	fi
	local tries=0
	while :; do
		port=${PROMPTCANARY_POSTGRES_PORT:-$(free_port)}
		# Loopback TCP only, the socket in the cluster's directory; no
		# durability (a test cluster); room for parallel test pools.
		if as "$user" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -s \
			-o "-c listen_addresses=127.0.0.1 -p $port -k '$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
			start >&2; then
			break
		fi
		tries=$((tries + 1))
		if [ -n "${PROMPTCANARY_POSTGRES_PORT:-}" ] || [ $tries -ge 5 ] || ! grep -q "could not bind" "$dir/server.log"; then
			cat "$dir/server.log" >&2
			die "the server did not start"
		fi
		say "port $port was taken meanwhile; trying another"
	done
	"$bin/createdb" -h 127.0.0.1 -p "$port" -U "$superuser" -E UTF8 -T template0 "$database"
	dsn="postgres://$superuser@127.0.0.1:$port/$database?sslmode=disable"
	local tmp
	tmp=$(mktemp "$state.XXXXXX")
	printf "export PROMPTCANARY_TEST_POSTGRES='%s'\nexport PROMPTCANARY_POSTGRES_DIR='%s'\n" "$dsn" "$dir" >"$tmp"
	mv -f "$tmp" "$state" # a rename: never writes through a planted symlink
	trap - EXIT
	say "PostgreSQL is up: $dsn (stop it with scripts/postgres.sh stop)"
	cat "$state"
}

# cleanup stops the server of $dir, if any, and removes $dir and $state.
cleanup() {
	if [ -f "$dir/data/postmaster.pid" ]; then
		local bin
		bin=$(bindir)
		as "$(stat -c %U "$dir/data")" "$bin/pg_ctl" -D "$dir/data" -m fast -w -s stop >&2 || true
	fi
	case $dir in
	"${TMPDIR:-/tmp}"/promptcanary-postgres.*) rm -rf "$dir" ;;
	*) say "not removing $dir: not a directory this script made" ;;
	esac
	rm -f "$state"
}

stop() {
	running || true
	dir=${dir:-${PROMPTCANARY_POSTGRES_DIR:-}}
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		say "no cluster to stop"
		rm -f "$state"
		return
	fi
	cleanup
	say "stopped and removed the cluster in $dir"
}

status() {
	if running; then
		say "running in $dir: $dsn"
		cat "$state"
	else
		say "no cluster runs"
		return 1
	fi
}

case ${1:-} in
start | stop | status) "$1" ;;
*)
	echo "usage: eval \"\$(scripts/postgres.sh start)\" | scripts/postgres.sh stop | scripts/postgres.sh status" >&2
	exit 2
	;;
esac

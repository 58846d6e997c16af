# Sourced by test.sh and bench.sh: starts a private PostgreSQL server (initdb into its own folder,
# trust authentication on loopback only, a free port, its socket in that folder) and exports where
# it is. The caller stops it with stop_private_postgres (by the pid in postmaster.pid). As root,
# the server runs as the `postgres` user (it refuses root), which Debian's package creates.
# PRIVATE_PG_FSYNC=off makes it faster for tests; the benchmark keeps fsync on.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
    echo "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin; scripts/install-deps.sh installs the postgresql package" >&2
    exit 1
fi
pg_dir=$(mktemp -d /tmp/herald-postgres.XXXXXX)
chmod 0755 "$pg_dir"
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$pg_dir"
pg_port_in_use() {
    hex=$(printf '%04X' "$1")
    grep -Eq "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pg_port=$((30000 + $$ % 20000))
while pg_port_in_use "$pg_port"; do pg_port=$((pg_port + 1)); done
stop_private_postgres() {
    if [ -f "$pg_dir/data/postmaster.pid" ]; then
        pid=$(head -n 1 "$pg_dir/data/postmaster.pid")
        # SIGINT: PostgreSQL's fast shutdown (ends the sessions, then exits).
        kill -INT "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$pg_dir" 2>/dev/null || echo "note: could not remove $pg_dir" >&2
}
if ! as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -U herald --auth=trust -E UTF8 --no-instructions >"$pg_dir/initdb.log" 2>&1; then
    echo "initdb failed:" >&2; cat "$pg_dir/initdb.log" >&2; exit 1
fi
pg_options="-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=${PRIVATE_PG_FSYNC:-on} -c max_connections=200"
if ! as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/postgres.log" -w -t 30 -o "$pg_options" start >/dev/null; then
    echo "PostgreSQL did not start:" >&2; cat "$pg_dir/postgres.log" >&2; exit 1
fi
export HERALD_TEST_PG_PORT=$pg_port
export HERALD_TEST_PG_BIN=$pg_bin
export HERALD_TEST_PG_DATA="$pg_dir/data"
# For a test that stops the server and starts it again (pg_ctl start does not reuse them).
export HERALD_TEST_PG_OPTIONS="$pg_options"

# Sourced by test.sh: starts a private Radicale (the CalDAV server of Debian's `radicale`) on a
# free loopback port, with its own folder, config and one user (herald, password in
# HERALD_TEST_RADICALE_PASSWORD), and exports its URL. The caller stops it with stop_private_radicale.
radicale_dir=$(mktemp -d /tmp/herald-radicale.XXXXXX)
radicale_port=$((21000 + $$ % 20000))
while port_in_use "$radicale_port"; do radicale_port=$((radicale_port + 1)); done
radicale_password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'herald:%s\n' "$radicale_password" > "$radicale_dir/users"
cat > "$radicale_dir/config" <<CONF
[server]
hosts = 127.0.0.1:$radicale_port
[auth]
type = htpasswd
htpasswd_filename = $radicale_dir/users
htpasswd_encryption = plain
[rights]
type = owner_only
[storage]
filesystem_folder = $radicale_dir/collections
[logging]
level = warning
CONF
radicale --config "$radicale_dir/config" > "$radicale_dir/radicale.log" 2>&1 &
radicale_pid=$!
stop_private_radicale() {
    kill "$radicale_pid" 2>/dev/null || true
    wait "$radicale_pid" 2>/dev/null || true
    rm -rf "$radicale_dir"
}
i=0
until port_in_use "$radicale_port"; do
    i=$((i + 1))
    if [ "$i" -gt 100 ] || ! kill -0 "$radicale_pid" 2>/dev/null; then
        echo "radicale did not start; see $radicale_dir/radicale.log" >&2; cat "$radicale_dir/radicale.log" >&2; exit 1
    fi
    sleep 0.1
done
export HERALD_TEST_RADICALE_URL="http://127.0.0.1:$radicale_port"
export HERALD_TEST_RADICALE_USER=herald
export HERALD_TEST_RADICALE_PASSWORD=$radicale_password

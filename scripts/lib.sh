# Shared by the scripts: the Swift toolchain on PATH and the Debian packages EmojiArt builds
# against, installed only when missing (so every script stays idempotent).

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# C libraries the build links: SQLite (GRDB), the image decoders that check every pixel of a
# background image (libpng, libjpeg-turbo, libwebp, giflib), pango + cairo for PNG pictures of
# documents, the colour emoji font those pictures are drawn in, and libcrypto (OpenSSL) for the
# server's SHA-256 and SHA-1 (EmojiArtDigest).
BUILD_PACKAGES=(libssl-dev libsqlite3-dev libpng-dev libjpeg-dev libwebp-dev libgif-dev libpango1.0-dev libcairo2-dev fonts-noto-color-emoji)

step() { printf '\n==> %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_debian_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        step "Installing Debian packages: ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

# Debian packages whose installation would start a system service (nginx): installed with
# services held back, so nothing is left listening on the machine's ports.
ensure_debian_packages_without_services() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return
    local guard=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        guard=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | as_root tee "$guard" >/dev/null
        as_root chmod +x "$guard"
    fi
    ensure_debian_packages "${missing[@]}"
    if [ -n "$guard" ]; then as_root rm -f "$guard"; fi
}

# A throwaway PostgreSQL cluster on loopback for the tests: Debian's postgresql package if
# missing, then initdb + pg_ctl with its own port and socket folder under /tmp. Exports
# EMOJIART_TEST_POSTGRES (a postgres:// URL); stop_test_postgres removes it all again.
start_test_postgres() {
    ensure_debian_packages postgresql
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    TEST_POSTGRES_DIR=$(mktemp -d /tmp/emojiart-postgres.XXXXXX)
    chmod 755 "$TEST_POSTGRES_DIR"
    TEST_POSTGRES_AS=()
    # initdb refuses to run as root: the cluster then belongs to Debian's postgres user.
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$TEST_POSTGRES_DIR"
        TEST_POSTGRES_AS=(runuser -u postgres --)
    fi
    TEST_POSTGRES_CTL="$bin/pg_ctl"
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${TEST_POSTGRES_AS[@]}" "$bin/initdb" -D "$TEST_POSTGRES_DIR/data" -U emojiart -A trust -E UTF8 --no-sync \
        >"$TEST_POSTGRES_DIR/initdb.log"
    # fsync off: a test cluster trades crash safety for speed (the data is thrown away).
    "${TEST_POSTGRES_AS[@]}" "$TEST_POSTGRES_CTL" -D "$TEST_POSTGRES_DIR/data" -l "$TEST_POSTGRES_DIR/server.log" -w \
        -o "-p $port -k $TEST_POSTGRES_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
        start >/dev/null
    "${TEST_POSTGRES_AS[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U emojiart emojiart
    export EMOJIART_TEST_POSTGRES="postgres://emojiart@127.0.0.1:$port/emojiart?sslmode=disable"
    # Its data folder: `emojiart-bench fleet` stops and starts this cluster under load.
    export EMOJIART_TEST_POSTGRES_DATA="$TEST_POSTGRES_DIR/data"
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') for the tests at $EMOJIART_TEST_POSTGRES"
}

stop_test_postgres() {
    if [ -n "${TEST_POSTGRES_DIR:-}" ] && [ -d "$TEST_POSTGRES_DIR" ]; then
        "${TEST_POSTGRES_AS[@]}" "$TEST_POSTGRES_CTL" -D "$TEST_POSTGRES_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$TEST_POSTGRES_DIR"
    fi
}

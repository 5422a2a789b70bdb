# Shared by the scripts: the Swift toolchain on PATH and the Debian packages EmojiArt builds
# against, installed only when missing (so every script stays idempotent).

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# C libraries the build links: SQLite (GRDB), the image decoders that check every pixel of a
# background image (libpng, libjpeg-turbo, libwebp, giflib), pango + cairo for PNG pictures of
# documents, and the colour emoji font those pictures are drawn in.
BUILD_PACKAGES=(libsqlite3-dev libpng-dev libjpeg-dev libwebp-dev libgif-dev libpango1.0-dev libcairo2-dev fonts-noto-color-emoji)

step() { printf '\n==> %s\n' "$*"; }

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

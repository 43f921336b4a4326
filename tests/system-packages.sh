#!/bin/sh
# Installs the system packages the test suite needs, when any is missing:
#   postgresql        the PostgreSQL store tests run a private cluster (tests/pg.py)
#   chromium          headless browser tests
#   fonts-liberation  fonts for the browser's screenshots
# Idempotent: does nothing when all are present. Debian, as root (or with sudo).
set -eu

PACKAGES="postgresql chromium fonts-liberation"

missing=""
for package in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    run() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
    run() { sudo "$@"; }
else
    echo "system-packages.sh: missing:$missing; run this script as root to install them" >&2
    exit 1
fi

echo "system-packages.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
run apt-get update -q
# shellcheck disable=SC2086  # one word per package
run apt-get install -y -q --no-install-recommends $missing

#!/usr/bin/env bash
# Install the Debian packages gnnref needs to build, test and benchmark.
# Called by `make` when a required header is missing; safe to run by hand.
# Uses apt-get as root, sudo otherwise, and says clearly when neither works.
set -eu

PKGS="build-essential pkg-config check libsubunit-dev libopenblas-dev libmetis-dev \
zlib1g-dev libjson-c-dev libbenchmark-dev lcov openmpi-bin libopenmpi-dev python3"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi

echo "install-deps: installing:$missing"
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install-deps: error: need root or password-less sudo to install:$missing" >&2
    echo "install-deps: install them by hand: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
echo "install-deps: done"

#!/usr/bin/env bash
# Installs what Canopy needs on a Debian machine that has only the Swift toolchain:
# the C libraries it links (SQLite, libwebsockets with OpenSSL), pkg-config, the openssl
# command (the wss tests make a self-signed certificate with it), and Python's venv (the
# interop tests install the official Python Admin SDK into a virtualenv).
set -euo pipefail

export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH (expected /opt/swift/usr/bin)" >&2; exit 1; }

packages=(pkg-config libsqlite3-dev libwebsockets-dev libssl-dev openssl python3-venv)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

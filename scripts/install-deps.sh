#!/bin/sh
# Install the Debian 12 packages tlreplay needs to build, test and replay.
# Usage: scripts/install-deps.sh [--no-update]   (run as root, or through sudo)
set -eu

PKGS="build-essential pkg-config clang clang-format llvm libclang-rt-dev
      libcjson-dev zlib1g-dev libdeflate-dev libelf-dev libdw-dev libnuma-dev libpfm4-dev
      libprotobuf-c-dev protobuf-c-compiler libxlsxwriter-dev
      libpython3-dev python3 python3-torch python3-numpy python3-openpyxl
      gdb linux-perf valgrind strace man-db groff-base perl zip unzip bash-completion
      librsvg2-bin chromium"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

if [ "${1:-}" != "--no-update" ]; then
	$SUDO apt-get update -q
fi
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $PKGS

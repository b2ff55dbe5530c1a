#!/usr/bin/env bash
# Installs what the build and the tests need and a fresh machine may lack.
# Safe to run again: it installs only what is missing. Needs root (or sudo) for apt-get.
set -euo pipefail

log() { printf '[install-deps] %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    log "apt-get update"
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

java_major() {
  "$1" -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

# A JDK 17 or newer, with javac.
if ! command -v javac >/dev/null 2>&1 || [ "$(java_major java)" -lt 17 ]; then
  apt_install openjdk-17-jdk-headless
fi

# Maven 3.8.7 or newer (Debian's package is 3.8.7).
if ! command -v mvn >/dev/null 2>&1; then
  apt_install maven
fi

log "java: $(java -version 2>&1 | head -n 1)"
log "maven: $(mvn -v 2>/dev/null | head -n 1)"

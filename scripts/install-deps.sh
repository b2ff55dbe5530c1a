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

# Node.js and npm: the MCP adapter's tests run the reference MCP server
# (@modelcontextprotocol/server-everything) with npx.
if ! command -v npx >/dev/null 2>&1; then
  apt_install nodejs npm
fi

# nats-server: the NATS transport's tests start their own servers (Debian's package; they do
# not use a system service).
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  apt_install nats-server
fi

# redis-server: the Redis transport's tests start their own servers (the binary from Debian's
# package; they do not use the system service, which the package may start: it is left alone).
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  apt_install redis-server
fi

# Chromium and playwright-core: the HTTP gateway's console is tested in a real browser
# (operations-http ConsoleBrowserTest). playwright-core goes into a cache directory, not the repo;
# the test installs it there too when it is missing.
if ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium
fi
if [ ! -f "$HOME/.cache/ops-browser/node_modules/playwright-core/package.json" ]; then
  log "npm install playwright-core into ~/.cache/ops-browser"
  npm install --no-audit --no-fund --prefix "$HOME/.cache/ops-browser" playwright-core@1.65.1 >/dev/null \
    || log "could not install playwright-core; the console's browser test will skip"
fi

# Warm the npm cache with the pinned reference MCP server, so the tests do not download it
# under their own timeouts. A failure here is not fatal: those tests then say why they skip.
if [ -f scripts/install-mcp-reference.sh ]; then
  bash scripts/install-mcp-reference.sh || log "could not fetch the reference MCP server; its tests will skip"
fi

# The Node.js spoke (clients/node) and its one dependency, the `ws` package: its interop tests
# run it against a Java hub. A failure here is not fatal: those tests then install it themselves.
if [ -f clients/node/package.json ] && [ ! -d clients/node/node_modules/ws ]; then
  (cd clients/node && npm install --no-audit --no-fund) || log "could not install clients/node's ws package"
fi

# The OpenAPI documents the typed-client generator is tested against (50 from APIs.guru, Stripe,
# GitHub), into ~/.cache/ops-openapi. A failure here is not fatal: that test then says why it skips.
if [ -f scripts/fetch-openapi-corpus.sh ]; then
  if corpus=$(bash scripts/fetch-openapi-corpus.sh); then
    log "OpenAPI corpus: $corpus"
  else
    log "could not fetch the OpenAPI corpus; its test will skip"
  fi
fi

log "java: $(java -version 2>&1 | head -n 1)"
log "maven: $(mvn -v 2>/dev/null | head -n 1)"
log "nats-server: $( (command -v nats-server >/dev/null 2>&1 && nats-server --version) || (/usr/sbin/nats-server --version 2>/dev/null) || echo missing)"
log "redis-server: $( (command -v redis-server >/dev/null 2>&1 && redis-server --version) || echo missing)"
log "node: $(node --version 2>/dev/null || echo missing), npm: $(npm --version 2>/dev/null || echo missing)"

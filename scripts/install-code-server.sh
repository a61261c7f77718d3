#!/usr/bin/env bash
# Installs code-server (a real VS Code server build) into the user's cache (scripts/codeServerDir.cjs
# says where), for the extension's integration and end-to-end tests. Offline-safe on these
# machines: it seeds the ripgrep download cache with Debian's `rg`, since the install would
# otherwise fetch ripgrep from the internet. Idempotent: a second call is a no-op.
# Needs ripgrep and libkrb5-dev, which scripts/setup.ts (npm test's pretest) installs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(node -p "require('$ROOT/scripts/codeServerDir.cjs').version")"
DIR="$(node -p "require('$ROOT/scripts/codeServerDir.cjs').dir")"
BIN="$DIR/node_modules/code-server/out/node/entry.js"

if [[ -f "$BIN" ]] && [[ "$(node -p "require('$DIR/node_modules/code-server/package.json').version" 2>/dev/null)" == "$VERSION" ]] \
  && [[ -d "$DIR/node_modules/code-server/lib/vscode/node_modules" ]]; then
  echo "code-server $VERSION already installed in $DIR"
  exit 0
fi

command -v rg >/dev/null || { echo "ripgrep is missing: apt-get install -y ripgrep" >&2; exit 1; }

# @vscode/ripgrep looks for this tarball in its cache before it tries the network.
TMP="${TMPDIR:-/tmp}"
RG_CACHE="$TMP/vscode-ripgrep-cache-1.15.11"
RG_TAR="$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [[ ! -f "$RG_TAR" ]]; then
  mkdir -p "$RG_CACHE"
  STAGE="$(mktemp -d)"
  cp "$(command -v rg)" "$STAGE/rg"
  tar -czf "$RG_TAR" -C "$STAGE" rg
  rm -rf "$STAGE"
fi

# Installed beside its final place and moved there whole, so two checkouts installing at once, or an
# install cut short, never leave a half-installed code-server where the tests look for it.
STAGING="$DIR.installing-$$"
rm -rf "$STAGING"
mkdir -p "$STAGING"
echo '{ "name": "code-server-cache", "private": true }' > "$STAGING/package.json"

echo "installing code-server@$VERSION into $DIR (3 to 4 minutes from cold)"
start=$(date +%s)
# unsafe_perm: its install script refuses root otherwise; yes: its native build calls `npx node-gyp`.
# The cache folder is isolated and the version pinned, so its install scripts (and those of the
# nested VS Code dependencies it installs) are allowed here.
(cd "$STAGING" && npm_config_unsafe_perm=true npm_config_yes=true npm_config_dangerously_allow_all_scripts=true \
  npm install --no-audit --no-fund --no-save "code-server@$VERSION")
test -f "$STAGING/node_modules/code-server/out/node/entry.js"
if [[ -f "$BIN" ]]; then
  rm -rf "$STAGING"   # another checkout finished first
else
  rm -rf "$DIR"
  mv "$STAGING" "$DIR"
fi
echo "code-server installed in $(( $(date +%s) - start ))s"
test -f "$BIN"

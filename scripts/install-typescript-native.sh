#!/usr/bin/env bash
# Installs TypeScript 7 (the native compiler) into a cache folder beside code-server's, for the
# bench's type-check gate figure. Not a dependency of this repo: its `tsc` bin would shadow the
# workspace's TypeScript 5 in node_modules/.bin. Idempotent: a second call is a no-op.
set -euo pipefail

VERSION="${TYPESCRIPT_NATIVE_VERSION:-7.0.2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${TYPESCRIPT_NATIVE_DIR:-$ROOT/.vscode-test/typescript-native}"
PKG="$DIR/node_modules/typescript/package.json"

if [[ -f "$PKG" ]] && [[ "$(node -p "require('$PKG').version" 2>/dev/null)" == "$VERSION" ]]; then
  exit 0
fi
mkdir -p "$DIR"
[[ -f "$DIR/package.json" ]] || echo '{ "name": "typescript-native-cache", "private": true }' > "$DIR/package.json"
echo "installing typescript@$VERSION (native) into $DIR"
(cd "$DIR" && npm install --no-audit --no-fund --no-save "typescript@$VERSION")
node "$DIR/node_modules/typescript/bin/tsc" --version

#!/usr/bin/env bash
# Runs a workspace script (`./dev.sh test`, `./dev.sh demo`, `./dev.sh bench`, ...) on any machine
# with npm: when Node >= 22.12 or pnpm is missing, it brings both from the npm registry into a folder
# of its own (~/.cache/multidrm-tools) and installs the workspace's dependencies first.
set -euo pipefail
cd "$(dirname "$0")"

tools="${MULTIDRM_TOOLS_DIR:-$HOME/.cache/multidrm-tools}"
node_spec="node@24"
pnpm_spec="pnpm@12.21.0"

node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'
}

if ! node_ok || ! command -v pnpm >/dev/null 2>&1; then
  if [ ! -x "$tools/node_modules/.bin/node" ] || [ ! -x "$tools/node_modules/.bin/pnpm" ]; then
    echo "dev.sh: installing $node_spec and $pnpm_spec into $tools" >&2
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "$node_spec" "$pnpm_spec" >&2
  fi
  export PATH="$tools/node_modules/.bin:$PATH"
fi

if [ ! -d node_modules ] || [ pnpm-lock.yaml -nt node_modules/.pnpm/lock.yaml ]; then
  pnpm install --frozen-lockfile >&2
fi
exec pnpm "${@:-test}"

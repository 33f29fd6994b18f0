#!/usr/bin/env bash
# Runs a workspace script or any pnpm command on any machine with npm: `./dev.sh test`,
# `./dev.sh demo:web`, `./dev.sh exec multidrm --help`, `./dev.sh bench token`, ... (no argument:
# `test`). When Node (22.18 or newer in 22, 24, or 26 and newer) or pnpm is missing, it brings Node 24
# and pnpm from the npm registry into a folder of its own (~/.cache/multidrm-tools) and says how to put
# them on your PATH; it installs the workspace's dependencies first. The test commands check for
# Chromium, ffmpeg and redis-server before anything is downloaded, and name the command that
# installs them.
set -euo pipefail

tools="${MULTIDRM_TOOLS_DIR:-$HOME/.cache/multidrm-tools}"
node_spec="node@24"
pnpm_spec="pnpm@12.21.0"

# The floor: the sources run as .ts, and Node strips types by default from 22.18 on (22.12 to 22.17
# fail with ERR_UNKNOWN_FILE_EXTENSION). Odd majors are left out because vitest supports only 22, 24
# and 26+. $1 is what `node --version` prints, e.g. v22.18.0.
node_version_ok() {
  local version="${1#v}" major minor
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  ((major == 22 && minor >= 18)) || ((major == 24)) || ((major >= 26))
}

node_ok() {
  command -v node >/dev/null 2>&1 && node_version_ok "$(node --version 2>/dev/null || true)"
}

# The command that installs the given packages (chromium, ffmpeg, npm) on this machine.
install_command() {
  local sudo="" commands=() name
  [ "${EUID:-0}" = 0 ] || sudo="sudo "
  if command -v apt-get >/dev/null 2>&1; then
    echo "${sudo}apt-get update && ${sudo}apt-get install -y $*"
  elif command -v brew >/dev/null 2>&1; then
    for name in "$@"; do
      case "$name" in
      chromium) commands+=("brew install --cask chromium && export CHROME_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium") ;;
      npm) commands+=("brew install node") ;;
      redis-server) commands+=("brew install redis") ;;
      *) commands+=("brew install $name") ;;
      esac
    done
    echo "$(join ' && ' "${commands[@]}")"
  else
    echo "install $* with your system's package manager (for Chromium, then set CHROME_PATH)"
  fi
}

join() {
  local separator="$1" out="$2"
  shift 2
  for part in "$@"; do out+="$separator$part"; done
  echo "$out"
}

# The test commands need Chromium (the real-browser tests, found as test/e2e/support/chromium.ts finds
# it: CHROME_PATH, else /usr/bin/chromium), ffmpeg on PATH (the sample-content tests) and redis-server
# (site-kit's shared-store tests, found as packages/site-kit/test/support/redis-server.ts finds it:
# REDIS_SERVER, else /usr/bin/redis-server, else PATH). Checked here, in the first second, rather
# than minutes into the run; returns 1 after naming the command to run.
check_prerequisites() {
  local command="${1:-test}" need_chromium=false need_ffmpeg=false need_redis=false missing=() why=()
  local needs=() e2e chrome
  case "$command" in
  test | test:unit) need_chromium=true need_ffmpeg=true need_redis=true ;;
  test:e2e) need_chromium=true ;;
  *) return 0 ;;
  esac
  e2e="${MULTIDRM_E2E:-}"
  e2e="${e2e//[[:space:]]/}"
  # As e2eSkipped() reads it: "skip" in any case, spaces around it ignored.
  if (shopt -s nocasematch && [[ "$e2e" == skip ]]); then need_chromium=false; fi
  if $need_chromium; then
    chrome="${CHROME_PATH:-}"
    chrome="${chrome#"${chrome%%[![:space:]]*}"}"
    chrome="${chrome%"${chrome##*[![:space:]]}"}"
    if [ -n "$chrome" ] && [ ! -x "$chrome" ]; then
      missing+=(chromium) needs+=("Chromium (real-browser tests)")
      why+=("CHROME_PATH is \"$chrome\", which is not an executable file")
    elif [ -z "$chrome" ] && [ ! -x /usr/bin/chromium ]; then
      missing+=(chromium) needs+=("Chromium (real-browser tests)")
      why+=("no Chromium at /usr/bin/chromium and CHROME_PATH is not set")
    fi
  fi
  if $need_ffmpeg && ! command -v ffmpeg >/dev/null 2>&1; then
    missing+=(ffmpeg) needs+=("ffmpeg (sample-content tests)")
    why+=("no ffmpeg on PATH")
  fi
  if $need_redis; then
    if [ -n "${REDIS_SERVER:-}" ] && [ ! -x "$REDIS_SERVER" ]; then
      missing+=(redis-server) needs+=("redis-server (shared-store tests)")
      why+=("REDIS_SERVER is \"$REDIS_SERVER\", which is not an executable file")
    elif [ -z "${REDIS_SERVER:-}" ] && [ ! -x /usr/bin/redis-server ] &&
      ! command -v redis-server >/dev/null 2>&1; then
      missing+=(redis-server) needs+=("redis-server (shared-store tests)")
      why+=("no redis-server at /usr/bin/redis-server or on PATH")
    fi
  fi
  [ ${#missing[@]} -eq 0 ] && return 0

  {
    echo "dev.sh: \`pnpm $command\` needs $(join ' and ' "${needs[@]}"): $(join '; ' "${why[@]}")."
    echo "Fix this machine with:"
    echo "  $(install_command "${missing[@]}")"
    if [ "${missing[0]}" = chromium ]; then
      for name in chromium chromium-browser google-chrome google-chrome-stable; do
        if command -v "$name" >/dev/null 2>&1; then
          echo "or use the Chromium this machine has: export CHROME_PATH=$(command -v "$name")"
          break
        fi
      done
      echo "(MULTIDRM_E2E=skip leaves the real-browser tests out, and says so.)"
    fi
  } >&2
  return 1
}

# What to install before a command: "demo" (the demo and the packages it runs), "all" (the workspace)
# or "none". $1 the command, $2 what an earlier run installed ("demo", "all" or nothing), $3 whether
# the install is missing or older than the lockfile. The demo's commands need the demo's part only;
# once everything is there, everything is kept up to date.
install_plan() {
  local command="$1" have="$2" stale="$3" want=all
  case "$command" in demo | demo:web | demo:dist) want=demo ;; esac
  [ "$have" = all ] && want=all
  if [ "$stale" = true ] || { [ "$want" = all ] && [ "$have" != all ]; }; then
    echo "$want"
  else
    echo none
  fi
}

main() {
  cd "$(dirname "${BASH_SOURCE[0]}")"
  check_prerequisites "${1:-test}"

  if ! node_ok || ! command -v pnpm >/dev/null 2>&1; then
    if [ ! -x "$tools/node_modules/.bin/node" ] || [ ! -x "$tools/node_modules/.bin/pnpm" ]; then
      if ! command -v npm >/dev/null 2>&1; then
        echo "dev.sh: needs npm to fetch Node 24 and pnpm (or Node 22.18+ with pnpm on PATH)." >&2
        echo "Fix this machine with:" >&2
        echo "  $(install_command npm)" >&2
        exit 1
      fi
      echo "dev.sh: installing $node_spec and $pnpm_spec into $tools" >&2
      mkdir -p "$tools"
      npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "$node_spec" "$pnpm_spec" >&2
    fi
    export PATH="$tools/node_modules/.bin:$PATH"
    echo "dev.sh: using Node $(node --version) and pnpm from $tools. Run any pnpm command as" \
      "./dev.sh <command>, or put them on your PATH: export PATH=\"$tools/node_modules/.bin:\$PATH\"" >&2
  fi

  local marker=node_modules/.multidrm-installed have="" stale=false plan
  [ -f "$marker" ] && have=$(<"$marker")
  if [ ! -d node_modules ] || [ pnpm-lock.yaml -nt node_modules/.pnpm/lock.yaml ]; then stale=true; fi
  plan=$(install_plan "${1:-test}" "$have" "$stale")
  case "$plan" in
  demo)
    echo "dev.sh: installing what the demo needs (about 500 MB: the players, Electron's packaging tools," \
      "vite); the tests' runtimes (Bun, Deno, workerd), Playwright and the content packager come with" \
      "./dev.sh test (about 1.3 GB in all)" >&2
    pnpm install --frozen-lockfile --filter "@multidrm/demo-electron..." >&2
    ;;
  all) pnpm install --frozen-lockfile >&2 ;;
  esac
  [ "$plan" = none ] || echo "$plan" >"$marker"
  exec pnpm "${@:-test}"
}

# Sourced (the tests call node_version_ok), it only defines the functions: `return` works only then.
if ! (return 0 2>/dev/null); then
  main "$@"
fi

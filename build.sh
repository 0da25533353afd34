#!/usr/bin/env bash
# Builds Toolgate, installing what this machine lacks (idempotent: a second run
# installs nothing and takes seconds).
#
#   ./build.sh            build the extension (the repository root loads unpacked)
#   ./build.sh example    build, then run Toolgate on the bundled Notes example
#   ./build.sh test       build, then run every test (core and end-to-end), and the
#                         benchmarks once each in smoke mode (timing nothing)
#   ./build.sh bench      build, then run the benchmarks (add --json for machine-readable output)
set -euo pipefail
cd "$(dirname "$0")"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# apt-get needs root; CI and these machines run as root, elsewhere use sudo.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  log "installing Debian packages: $*"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q "$@" >/dev/null 2>&1 || {
    as_root apt-get update -q >/dev/null
    as_root apt-get install -y -q "$@" >/dev/null
  }
}

# The wasm-bindgen crate version, from Cargo.lock (resolving it first on a fresh clone).
wasm_bindgen_version() {
  [ -f Cargo.lock ] || cargo generate-lockfile -q
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

CARGO=cargo
CARGO_FLAGS=()
ensure_wasm_target() {
  if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then return; fi
  log "adding the wasm32-unknown-unknown target"
  if rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then return; fi
  # Fallback from TOOLCHAIN.md: Debian's Rust with the std source, built with build-std.
  log "rustup could not add the target; using Debian's rustc-web with -Zbuild-std"
  [ -x /usr/bin/cargo ] && [ -d /usr/lib/rustlib/src ] || apt_install rustc-web cargo-web rust-web-src lld-22
  CARGO=/usr/bin/cargo
  CARGO_FLAGS=(-Zbuild-std=std,panic_abort)
  export RUSTC_BOOTSTRAP=1
}

ensure_wasm_bindgen_cli() {
  local want have
  want=$(wasm_bindgen_version)
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}') || true
  if [ "$have" = "$want" ]; then return; fi
  log "installing wasm-bindgen-cli $want (about 3 minutes, once)"
  # --locked fails here: the CLI's lockfile wants a crate version the index does not serve.
  cargo install -q wasm-bindgen-cli --version "$want"
}

ensure_node() {
  if command -v node >/dev/null && command -v npm >/dev/null; then return; fi
  apt_install nodejs npm
}

ensure_npm_packages() {
  # Reinstall only when the lockfile changed since the last install.
  if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.toolgate-lock; then return; fi
  log "installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.toolgate-lock
}

ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  apt_install chromium chromium-driver
}

build() {
  ensure_wasm_target
  ensure_wasm_bindgen_cli
  ensure_node
  ensure_npm_packages
  log "building the core"
  "$CARGO" build -q --release --target wasm32-unknown-unknown "${CARGO_FLAGS[@]}"
  local wasm=target/wasm32-unknown-unknown/release/toolgate.wasm
  # Skip the slow steps when the core has not changed since the last build.
  if [ pkg/toolgate_bg.wasm -nt "$wasm" ] && [ pkg/toolgate.js -nt "$wasm" ]; then return; fi
  wasm-bindgen --target web --out-dir pkg --no-typescript "$wasm"
  # -Oz twice: the second pass finds more after the first (about 0.3 KB
  # gzipped); the producers and target-features sections are only notes.
  node_modules/.bin/wasm-opt -Oz -Oz --strip-producers --strip-target-features \
    --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-reference-types --enable-sign-ext --enable-mutable-globals \
    pkg/toolgate_bg.wasm -o pkg/toolgate_bg.wasm
  local raw gz
  raw=$(stat -c %s pkg/toolgate_bg.wasm)
  gz=$(gzip -9 -c pkg/toolgate_bg.wasm | wc -c)
  log "pkg/toolgate_bg.wasm: $raw bytes, $gz gzipped"
}

case "${1:-build}" in
  build)
    build
    ensure_chromium
    ;;
  example)
    build
    ensure_chromium
    node examples/run.mjs "${@:2}"
    ;;
  test)
    build
    ensure_chromium
    log "core tests"
    cargo test
    log "end-to-end tests in headless Chromium"
    node --test --test-concurrency=1 tests/e2e/
    if [ -f benches/browser.mjs ]; then
      log "benchmarks, smoke mode (each figure once; no timing is judged)"
      node benches/browser.mjs --smoke
    fi
    ;;
  bench)
    build
    ensure_chromium
    log "core microbenchmarks"
    # To stderr, so that stdout holds only the browser benchmark's table or JSON.
    cargo bench --bench core >&2
    log "browser benchmarks in headless Chromium"
    node benches/browser.mjs "${@:2}"
    ;;
  *)
    echo "usage: $0 [build|example|test|bench]" >&2
    exit 2
    ;;
esac

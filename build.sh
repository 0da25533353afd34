#!/usr/bin/env bash
# Builds Toolgate, installing what this machine lacks (idempotent: a second run
# installs nothing and takes seconds).
#
#   ./build.sh            build the extension (the repository root loads unpacked) and toolgate-mcp
#   ./build.sh example    build, then run Toolgate on the bundled Notes example
#   ./build.sh test       check formatting and clippy, build, then run every test
#                         (core, toolgate-mcp's for Windows under Wine, a short
#                         run of each fuzz target, end-to-end on
#                         Chromium 148 and 156 as tests/README.md's table says, the
#                         Playwright sample's suite on both), and the benchmarks
#                         once each in smoke mode (timing nothing); it ends with
#                         the time each stage took
#   ./build.sh bench      build, then run the benchmarks (add --json for machine-readable output)
#   ./build.sh dist       build, then write dist/toolgate-<version>.zip (the extension as
#                         the Chrome Web Store takes it, and as it loads unpacked once
#                         unzipped) and dist/toolgate-mcp-<version>-<system>-<arch> (a
#                         release build of the host for Linux, macOS and Windows,
#                         each with its .sha256; scripts/hosts.sh)
#   ./build.sh windows-test  toolgate-mcp's tests for Windows alone, under Wine
#   ./build.sh detector   train the learned detector from its pinned packages and write
#                         its weights (src/page/addressed/learned.bin) and
#                         detector/REPORT.md; `test` trains it again and checks the
#                         weights are those bytes and its held-out floors hold
set -euo pipefail
cd "$(dirname "$0")"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# apt-get needs root; CI and these machines run as root, elsewhere use sudo.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian's package lists are read again before a run's first install: from
# old lists apt installs old versions without a word (a machine's lists from
# before bookworm-security's Rust 1.96 install bookworm's 1.85, which
# toolgate-mcp cannot be built with), or ones the archive no longer serves.
APT_LISTS_READ=
apt_install() {
  log "installing Debian packages: $*"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$APT_LISTS_READ" ]; then
    as_root apt-get update -q >/dev/null
    APT_LISTS_READ=1
  fi
  as_root apt-get install -y -q "$@" >/dev/null
}

# toolgate-mcp cross-built for the other systems: the toolchains, the builds,
# the check of their files, and the hosts dist writes.
# shellcheck source=scripts/hosts.sh
. scripts/hosts.sh
# The two browsers the end-to-end tests run on: Debian 12's Chromium 148 and
# Debian 13's 156, in a root of its own.
# shellcheck source=scripts/browsers.sh
. scripts/browsers.sh

# The wasm-bindgen crate version, from Cargo.lock (resolving it first on a fresh clone).
wasm_bindgen_version() {
  [ -f Cargo.lock ] || cargo generate-lockfile -q
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

CARGO=cargo
CARGO_FLAGS=()
# The Public Suffix List every build of the core reads (build.rs).
ensure_public_suffix_list() {
  [ -n "${TOOLGATE_PUBLIC_SUFFIX_LIST:-}" ] || [ -f /usr/share/publicsuffix/public_suffix_list.dat ] || apt_install publicsuffix
}
# Every Rust build comes through here first.
ensure_wasm_target() {
  ensure_public_suffix_list
  if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then return; fi
  log "adding the wasm32-unknown-unknown target"
  if rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then return; fi
  # Fallback where rustup cannot add the target: Debian's Rust with the std source, built with build-std.
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

# The OTLP receiver the audit's sending is tested against
# (tests/support/otlp-receiver.py): OpenTelemetry's own protobuf definitions
# and semantic conventions from PyPI, in a venv of their own under target/.
# Installed again only when tests/support/otlp-requirements.txt changed.
OTLP_VENV=target/otlp-venv
ensure_otlp_receiver() {
  if cmp -s tests/support/otlp-requirements.txt "$OTLP_VENV/.toolgate-requirements" 2>/dev/null; then return; fi
  log "installing the OTLP receiver's Python packages (tests/support/otlp-requirements.txt)"
  command -v python3 >/dev/null || apt_install python3
  rm -rf "$OTLP_VENV"
  python3 -m venv "$OTLP_VENV" 2>/dev/null || { apt_install python3-venv && python3 -m venv "$OTLP_VENV"; }
  "$OTLP_VENV/bin/pip" install -q --disable-pip-version-check -r tests/support/otlp-requirements.txt
  cp tests/support/otlp-requirements.txt "$OTLP_VENV/.toolgate-requirements"
}

# The end-to-end suite in one configuration: 148 (Debian 12's
# /usr/bin/chromium) or 156 (the Debian 13 root's), each with Chromium's own
# WebMCP off or on wherever a test does not choose (TOOLGATE_NATIVE=1);
# tests/support/browser.mjs reads TOOLGATE_BROWSER. Each file runs only in the
# configurations tests/README.md's table gives it ("Where each file runs"),
# which this reads.
e2e_files() { # config: the files whose row marks that configuration's column
  node tests/support/configurations.mjs "$1"
}
e2e() { # config files...
  local config=$1 exe=/usr/bin/chromium native=0
  shift
  [ "${config%% *}" = 148 ] || exe=tests/support/chromium-156.sh
  [ "${config#* }" = native ] && native=1
  log "end-to-end tests in headless Chromium $config: $# files, $exe, $("$exe" --version 2>/dev/null)"
  mkdir -p target
  # The TAP to the log (and its file), and how long each file took beside it
  # (tests/support/file-times.mjs; tests/README.md's table of files).
  TOOLGATE_BROWSER=${config%% *} TOOLGATE_NATIVE=$native node --test --test-concurrency=1 \
    --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=./tests/support/file-times.mjs --test-reporter-destination="target/e2e-${config/ /-}-times.txt" \
    "$@" 2>&1 | tee "target/e2e-${config/ /-}.tap"
}

# A long run's end is what a CI page shows: say there which tests failed, each
# with its TAP block (its error and where it was thrown). Every `test` run
# removes the files of the run before, so each file read here is this run's.
failures() {
  local tap
  for tap in target/e2e-*.tap; do
    grep -q '^ *not ok ' "$tap" || continue
    log "failed in $tap:"
    awk '/^ *not ok /{p=1} p{print} p && /^ *\.\.\.$/{p=0}' "$tap" | head -n 240
  done
}

# The Playwright sample (examples/playwright/, docs/ci.md): a web developer's
# project that installs this package as npm packs it (its .npmrc sets
# install-links), so it is installed again after each build
# (tests/e2e/package.test.mjs runs the command from that copy). Then its
# Playwright Test suite runs on Chromium 148 or 156.
install_sample() {
  log "installing the Playwright sample's packages, this package among them"
  (cd examples/playwright && npm ci --no-audit --no-fund --loglevel=error)
  log "tsc: the sample's TypeScript test against the package's types (playwright/index.d.ts)"
  (cd examples/playwright && node_modules/.bin/tsc -p .)
}
playwright_sample() {
  local exe=/usr/bin/chromium
  [ "$1" = 148 ] || exe=$(pwd)/tests/support/chromium-156.sh
  log "the Playwright sample (examples/playwright) on Chromium $1"
  (cd examples/playwright && CHROMIUM=$exe node_modules/.bin/playwright test)
}

build() {
  ensure_wasm_target
  ensure_wasm_bindgen_cli
  ensure_node
  ensure_npm_packages
  build_core
  # The service worker ships as one file: its modules (extension/background/)
  # loaded one by one cost every cold start about 25 ms (benches/JOURNAL.md,
  # "Measurements behind the code"); bundled, nothing. And as a classic
  # script, not a module: Chromium starts a classic worker of this size some
  # 6 ms sooner (benches/JOURNAL.md, issue 39's fourth session). The "use
  # strict" keeps the modules' strict mode. The manifest loads pkg/worker.js,
  # which imports nothing; the Wasm glue's default path (import.meta.url) is
  # never used: start.js hands it the module it compiled.
  node_modules/.bin/esbuild extension/background/worker.js --bundle --format=iife \
    --banner:js='"use strict";' --log-override:empty-import-meta=silent \
    --sourcemap --log-level=warning --outfile=pkg/worker.js
  # The arguments' checker's worker (extension/checker/worker.js), one classic
  # script: the core's check and the validator, started by the checker's
  # offscreen document (ARCHITECTURE.md, "The arguments' checker").
  node_modules/.bin/esbuild extension/checker/worker.js --bundle --format=iife \
    --banner:js='"use strict";' --log-override:empty-import-meta=silent \
    --log-level=warning --outfile=pkg/checker-worker.js
  # The MAIN-world shim's modules (extension/content/main-world/; index.js says
  # the rules they keep) ship as one classic script, the first of every
  # document: an IIFE, so nothing of them is left on the page's `window`. The
  # manifest injects pkg/main-world.js. --target=chrome148 lowers no syntax, so
  # esbuild adds no helper that would run in the page (the output is the same
  # for chrome116, the manifest's minimum). Unminified and without a source
  # map, as the single file was; the bundle names each module where it starts.
  node_modules/.bin/esbuild extension/content/main-world/index.js --bundle --format=iife \
    --target=chrome148 --log-level=warning --outfile=pkg/main-world.js
  # The relay (extension/content/relay/), in the isolated world, likewise: it
  # imports the handshake's names, the deadline sweep and Chromium's error
  # texts from the modules the shim and the worker use.
  node_modules/.bin/esbuild extension/content/relay/index.js --bundle --format=iife \
    --target=chrome148 --log-level=warning --outfile=pkg/relay.js
  build_icons
}

# The icon (extension/icons/toolgate.svg) as the PNGs the manifest names,
# drawn by Chromium (scripts/icons.mjs); again only when the SVG or the
# script changed.
build_icons() {
  local png=pkg/icons/128.png
  if [ -f "$png" ] && [ "$png" -nt extension/icons/toolgate.svg ] && [ "$png" -nt scripts/icons.mjs ]; then return; fi
  ensure_chromium
  node scripts/icons.mjs
}

build_core() {
  log "building the core"
  "$CARGO" rustc -q --lib --crate-type cdylib --release --target wasm32-unknown-unknown "${CARGO_FLAGS[@]}"
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

# What a browser loads of the extension, and nothing else: the manifest, the
# built pkg/ (the core, the bundles, the icons), the pages of extension/ui/
# with the shared modules they import, and the managed-storage schema.
# Not the sources the bundles were made of, the tests or the docs. The version is the manifest's (which package.json and
# Cargo.toml's workspace version agree with: tests/e2e/package.test.mjs).
DIST_FILES=(manifest.json managed-schema.json pkg/toolgate.js pkg/toolgate_bg.wasm pkg/worker.js
  pkg/main-world.js pkg/relay.js pkg/checker-worker.js pkg/icons extension/ui extension/checker/checker.html
  extension/checker/checker.js extension/shared/chromium-errors.js extension/shared/audit-db.js
  extension/shared/audit-target.js)
dist_version() { node -p 'require("./manifest.json").version'; }
# The manifest goes without its "key" (the Chrome Web Store refuses one: the
# store gives the extension its own id); loaded unpacked, the folder gets an
# id of its path, which `toolgate-mcp install --extension-id` takes.
dist_extension() {
  command -v zip >/dev/null || apt_install zip
  local version zip stage
  version=$(dist_version)
  zip=$(pwd)/dist/toolgate-$version.zip
  stage=dist/toolgate-$version
  rm -rf "$stage" "$zip"
  mkdir -p "$stage"
  cp -r --parents "${DIST_FILES[@]}" "$stage"
  node -e 'const m = require("./manifest.json"); delete m.key; process.stdout.write(JSON.stringify(m, null, 2) + "\n")' > "$stage/manifest.json"
  (cd "$stage" && zip -q -r -X "$zip" .)
  rm -rf "$stage"
  log "dist/toolgate-$version.zip: $(stat -c %s "$zip") bytes"
  echo "$zip"
}
# toolgate-mcp, the desktop agents' binary (README, "Agents"). A debug build:
# it shares its dependencies with `cargo test`, where a release build
# (`cargo build --release -p toolgate-mcp`, smaller and faster) takes minutes more.
build_mcp() {
  log "building toolgate-mcp"
  cargo build -q -p toolgate-mcp
  log "toolgate-mcp: $(pwd)/target/debug/toolgate-mcp"
}

# Formatting and clippy (the crates deny `clippy::unwrap_used`, among others)
# over every target, before any test: a warning fails the run.
lint() {
  local c
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || { log "adding the $c component"; rustup component add "$c"; }
  done
  log "cargo fmt --check, cargo clippy -D warnings"
  cargo fmt --all --check
  cargo clippy -q --workspace --all-targets -- -D warnings
  # The binding (src/wasm.rs) compiles only for Wasm.
  ensure_wasm_target
  if [ "$CARGO" = cargo ]; then cargo clippy -q --lib --target wasm32-unknown-unknown -- -D warnings; fi
}

# A short bounded run of each cargo fuzz target (fuzz/, README.md "Fuzzing")
# on its committed corpus, after the core's tests: any crash fails the run.
# `--sanitizer none` builds on stable Rust (libFuzzer itself with the
# machine's C++ compiler); new inputs go to a scratch directory, so the
# committed corpus is only read.
fuzz_smoke() {
  command -v cargo-fuzz >/dev/null || { log "installing cargo-fuzz (once)"; cargo install -q --locked cargo-fuzz; }
  log "the decision target's own scripts (fuzz/tests/scripts.rs)"
  (cd fuzz && cargo test -q)
  log "building the fuzz targets"
  cargo fuzz build -s none
  local target scratch
  for target in declaration page_report decisions schema meter; do
    log "fuzzing $target for 20 s"
    scratch=$(mktemp -d)
    if ! cargo fuzz run -s none "$target" "$scratch" "fuzz/corpus/$target" -- \
      -max_total_time=20 -timeout=10 >"$scratch/log" 2>&1; then
      tail -n 60 "$scratch/log" >&2
      log "fuzz target $target failed; the input is in fuzz/artifacts/$target/"
      exit 1
    fi
    grep '^Done' "$scratch/log" >&2
    rm -rf "$scratch"
  done
}

# The learned detector's training (detector/run.sh; docs/detector.md): its
# packages fetched once into target/detector, its trainer built there.
detector_run() {
  DETECTOR_WORK=${DETECTOR_WORK:-$PWD/target/detector} \
    CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target} detector/run.sh "$@"
}

# The time each stage of `test` took, printed as a table when the run ends,
# however it ends (tests/README.md, "The time budget"): `stage NAME` closes
# the stage before it and opens NAME.
STAGE_NAMES=() STAGE_SECONDS=()
STAGE='' STAGE_START=0
stage() {
  if [ -n "$STAGE" ]; then STAGE_NAMES+=("$STAGE"); STAGE_SECONDS+=($((SECONDS - STAGE_START))); fi
  STAGE=${1:-} STAGE_START=$SECONDS
}
stage_table() {
  local status=$1 i
  [ -n "$STAGE" ] && [ "$status" -ne 0 ] && STAGE="$STAGE (stopped the run)"
  stage
  [ ${#STAGE_NAMES[@]} -gt 0 ] || return 0
  log "time per stage (the budget: 40 minutes in all; tests/README.md)"
  for i in "${!STAGE_NAMES[@]}"; do
    printf '  %-48s %6d s\n' "${STAGE_NAMES[i]}" "${STAGE_SECONDS[i]}" >&2
  done
  printf '  %-48s %6d s (%d min)\n' 'total' "$SECONDS" $((SECONDS / 60)) >&2
}

case "${1:-build}" in
  build)
    build
    build_mcp
    ensure_chromium
    ;;
  example)
    build
    ensure_chromium
    node examples/run.mjs "${@:2}"
    ;;
  test)
    # The 156 wrapper's bind mounts outlive its browsers: undo them however
    # the run ends; then say where the time went.
    trap 'status=$?; [ -x tests/support/chromium-156.sh ] && tests/support/chromium-156.sh --unmount; stage_table $status' EXIT
    stage "installs (what this machine lacks)"
    ensure_wasm_target
    ensure_wasm_bindgen_cli
    ensure_node
    ensure_npm_packages
    ensure_chromium_148
    ensure_chromium_156
    ensure_otlp_receiver
    ensure_cross_toolchain
    ensure_zig
    ensure_windows_toolchain
    ensure_wine
    # The table is whole; its configurations, in the order they run.
    mapfile -t e2e_configs < <(node tests/support/configurations.mjs --check)
    [ ${#e2e_configs[@]} -gt 0 ] || { echo "build.sh: tests/README.md's table of configurations could not be read" >&2; exit 1; }
    stage "fmt and clippy"
    lint
    stage "build: the core, the bundles, toolgate-mcp"
    build
    build_mcp
    stage "build: toolgate-mcp for macOS, its files checked"
    check_apple_hosts
    stage "the Playwright sample's install and tsc"
    install_sample
    stage "cargo tests: the core and toolgate-mcp"
    log "core and toolgate-mcp tests"
    cargo test --workspace
    stage "the detector: trained again, its weights and floors checked"
    detector_run --check
    stage "toolgate-mcp for Windows: build, tests under Wine"
    windows_tests
    stage "fuzz smoke: build and 20 s a target"
    fuzz_smoke
    failed=()
    rm -f target/e2e-*.tap target/e2e-*-times.txt
    for config in "${e2e_configs[@]}"; do
      mapfile -t files < <(e2e_files "$config")
      [ ${#files[@]} -gt 0 ] || continue
      stage "end-to-end on Chromium $config (${#files[@]} files)"
      e2e "$config" "${files[@]}" || failed+=("$config")
    done
    stage "the Playwright sample on Chromium 148"
    playwright_sample 148 || failed+=("148 (the Playwright sample)")
    stage "the Playwright sample on Chromium 156"
    playwright_sample 156 || failed+=("156 (the Playwright sample)")
    if [ ${#failed[@]} -gt 0 ]; then
      stage
      failures
      log "end-to-end tests failed on Chromium ${failed[*]}"
      exit 1
    fi
    if [ -f benches/browser.mjs ]; then
      stage "benchmarks, smoke mode"
      log "benchmarks, smoke mode (each figure once; no timing is judged)"
      node benches/browser.mjs --smoke
      node benches/mcp.mjs --smoke
    fi
    stage
    ;;
  bench)
    ensure_chromium_148
    build
    # Figure 11 runs on Chromium 156, as the tests' second browser does; its
    # mounts are undone at the end, as after the tests.
    ensure_chromium_156
    trap '[ -x tests/support/chromium-156.sh ] && tests/support/chromium-156.sh --unmount' EXIT
    log "core microbenchmarks"
    # To stderr, so that stdout holds only the browser benchmark's table or JSON.
    cargo bench --bench core >&2
    log "browser benchmarks in headless Chromium"
    node benches/browser.mjs "${@:2}"
    # Figure 9 with the binary users are told to build.
    cargo build -q --release -p toolgate-mcp
    # To stderr, so that stdout keeps only the browser benchmark's table or JSON.
    TOOLGATE_MCP=target/release/toolgate-mcp node benches/mcp.mjs >&2
    ;;
  dist)
    build
    dist_extension
    dist_hosts
    ;;
  detector)
    detector_run "${@:2}"
    ;;
  windows-test)
    # The Windows stage of `test` alone (windows_tests).
    windows_tests
    ;;
  dist-extension)
    # The zip alone (tests/e2e/dist.test.mjs loads it); prints its path.
    build
    dist_extension
    ;;
  *)
    echo "usage: $0 [build|example|test|bench|dist|detector|windows-test]" >&2
    exit 2
    ;;
esac

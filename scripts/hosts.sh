# shellcheck shell=bash
# toolgate-mcp for the systems other than this machine's, cross-built here;
# sourced by build.sh (which defines log, apt_install and
# ensure_public_suffix_list). toolgate-mcp/PLATFORMS.md has the measurements
# behind each choice.
#
# rustup cannot add targets here (its downloads are out of reach), so
# Debian's Rust (rustc-web, cargo-web) builds the std for each target from
# Debian's copy of its source (rust-web-src, -Zbuild-std). zig, driven by
# cargo-zigbuild, links for macOS without an Apple SDK (it carries
# libSystem's stubs) and for Linux on ARM against an older glibc than this
# machine's. The builds have a target folder of their own: Debian's rustc and
# rustup's must not share one.

CROSS_TARGET_DIR=${TOOLGATE_CROSS_TARGET_DIR:-target/cross}

# Debian's cargo and rustc with the std's source; Windows adds its linker
# (ensure_windows_toolchain), macOS and Linux on ARM zig (ensure_zig). One
# installed before, older than toolgate-mcp's rust-version, is upgraded
# (bookworm's main pool holds 1.85, bookworm-security the newer one).
ensure_cross_toolchain() {
  ensure_public_suffix_list
  if [ -x /usr/bin/cargo ] && cross_rustc_is_new_enough && [ -d /usr/lib/rustlib/src/rust/library ]; then return; fi
  apt_install --no-install-recommends rustc-web cargo-web rust-web-src
  cross_rustc_is_new_enough || {
    echo "build.sh: Debian's rustc is $(/usr/bin/rustc --version); toolgate-mcp needs $(cross_rust_version) (bookworm-security's rustc-web)" >&2
    exit 1
  }
}
cross_rust_version() { sed -n 's/^rust-version = "\(.*\)"$/\1/p' toolgate-mcp/Cargo.toml; }
cross_rustc_is_new_enough() {
  local have
  have=$(/usr/bin/rustc --version 2>/dev/null | cut -d' ' -f2)
  [ -n "$have" ] && dpkg --compare-versions "$have" ge "$(cross_rust_version)"
}

# zig and cargo-zigbuild, pinned, from PyPI, in a venv of their own under
# target/ (about 400 MB); installed again only when the pins change.
ZIG_VENV=target/zig-venv
ZIG_PACKAGES=(ziglang==0.15.2 cargo-zigbuild==0.24.1)
ensure_zig() {
  if [ "$(cat "$ZIG_VENV/.toolgate-packages" 2>/dev/null)" = "${ZIG_PACKAGES[*]}" ]; then return; fi
  log "installing zig and cargo-zigbuild from PyPI: ${ZIG_PACKAGES[*]}"
  command -v python3 >/dev/null || apt_install python3
  rm -rf "$ZIG_VENV"
  python3 -m venv "$ZIG_VENV" 2>/dev/null || { apt_install python3-venv && python3 -m venv "$ZIG_VENV"; }
  "$ZIG_VENV/bin/pip" install -q --disable-pip-version-check "${ZIG_PACKAGES[@]}"
  echo "${ZIG_PACKAGES[*]}" >"$ZIG_VENV/.toolgate-packages"
}

# The cross-built hosts by kind (scripts/binary-kind.mjs's names, which also
# end the files dist writes), each with its Rust target. Linux on ARM is linked
# against glibc 2.28 (zigbuild's ".2.28"): Debian 10 and later, Ubuntu 20.04
# and later, RHEL 8 run it, Debian 12 (2.36) and Ubuntu 22.04 (2.35) among them.
declare -A HOST_TARGETS=(
  [linux-aarch64]=aarch64-unknown-linux-gnu.2.28
  [macos-arm64]=aarch64-apple-darwin
  [macos-x86_64]=x86_64-apple-darwin
)
APPLE_HOSTS=(macos-arm64 macos-x86_64)

# Builds toolgate-mcp in cargo profile PROFILE for each host KIND, in one
# cargo run (the build scripts and macros are built once, and both cores stay
# busy). `cross_build PROFILE KIND...`
cross_build() {
  local profile=$1 kind targets=() strip=() start=$SECONDS
  shift
  for kind; do targets+=(--target "${HOST_TARGETS[$kind]}"); done
  # rustc strips Apple binaries with rustup's rust-objcopy, which Debian's
  # rustc-web lacks: so they keep their symbol table.
  case "$*" in *macos*) strip=("CARGO_PROFILE_$(tr a-z- A-Z_ <<<"$profile")_STRIP=false") ;; esac
  ensure_cross_toolchain
  ensure_zig
  log "building toolgate-mcp ($profile) for $*"
  # Debian's cargo and rustc first on PATH (rustup's come first otherwise), then zig's.
  # rustc warns that xcrun is missing (it looks for an Apple SDK): harmless, zig
  # has what the link needs.
  env PATH="$(pwd)/$ZIG_VENV/bin:/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_DIR="$CROSS_TARGET_DIR" "${strip[@]}" \
    cargo-zigbuild build -q --profile "$profile" "${targets[@]}" -Zbuild-std=std,panic_abort -p toolgate-mcp >&2
  log "built toolgate-mcp ($profile) for $* in $((SECONDS - start)) s"
}

# Where cross_build put the host of KIND built in PROFILE.
cross_output() { # kind profile
  local target=${HOST_TARGETS[$1]}
  echo "$CROSS_TARGET_DIR/${target%%.2.*}/$2/toolgate-mcp"
}

# Fails unless FILE is an executable of KIND, read from its header.
check_host() { # kind file
  node scripts/binary-kind.mjs "$1" "$2"
}

# For `./build.sh test`: the macOS hosts, which nothing here can run, built
# from the same source in the cross-check profile (Cargo.toml: release not
# optimised, about 2 minutes cheaper to build cold), and their files
# checked to be Mach-O executables for their architecture, with the check's
# own tests first.
check_apple_hosts() {
  cross_build cross-check "${APPLE_HOSTS[@]}"
  node --test --test-reporter=dot scripts/binary-kind.test.mjs
  local kind
  for kind in "${APPLE_HOSTS[@]}"; do check_host "$kind" "$(cross_output "$kind" cross-check)"; done
}

# Windows (x86_64-pc-windows-gnu): Debian's Rust as above, Debian's mingw-w64
# links (no zig: the std's own Windows support needs only mingw's import
# libraries). toolgate-mcp/PLATFORMS.md has the measurements.
WINDOWS_TARGET=x86_64-pc-windows-gnu
ensure_windows_toolchain() {
  ensure_cross_toolchain
  command -v x86_64-w64-mingw32-gcc >/dev/null || apt_install --no-install-recommends gcc-mingw-w64-x86-64-posix
}
# `windows_cargo SUBCOMMAND ARGS...`: Debian's cargo and rustc (rustup's come
# first on PATH), for Windows, the std built from source.
windows_cargo() {
  local sub=$1
  shift
  ensure_windows_toolchain
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    CARGO_TARGET_DIR="$CROSS_TARGET_DIR" \
    /usr/bin/cargo "$sub" --target "$WINDOWS_TARGET" -Zbuild-std=std,panic_abort,panic_unwind "$@"
}
windows_output() { # profile
  echo "$CROSS_TARGET_DIR/$WINDOWS_TARGET/$1/toolgate-mcp.exe"
}

# toolgate-mcp's own tests for Windows, run with Wine as the test runner,
# then the TypeScript MCP client driving the Windows build (tests/windows/).
# What Wine cannot show: toolgate-mcp/README.md, "Systems".
ensure_wine() {
  if [ -x /usr/lib/wine/wine64 ] && command -v wine >/dev/null; then return; fi
  apt_install --no-install-recommends wine wine64
}
# A Wine prefix of this run's own: its registry is a throwaway, which the
# install tests need (they write the browsers' keys). Wine before 9 lacks
# Windows' bcryptprimitives.dll, which Rust's std takes random bytes from: a
# stand-in, for the tests only (toolgate-mcp/tests/wine/bcryptprimitives.c).
# Wine's loader errors (err+module) stay on: they name the DLL when a process
# cannot start (toolgate-mcp/tests/wine/runner.sh). A Wine server left from an
# earlier run (one whose tests failed, or a deleted prefix whose folder's
# inode the new one reuses) is stopped first: the tests start with a server
# of this prefix's own.
wine_prefix() {
  export WINEPREFIX="$PWD/target/wine" WINEDEBUG=-all,err+module WINEDLLOVERRIDES="mscoree,mshtml="
  mkdir -p "$WINEPREFIX"
  wineserver -k 2>/dev/null && wineserver -w
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    log "making a Wine prefix in $WINEPREFIX"
    wine wineboot --init >/dev/null 2>&1
    wineserver -w
  fi
  local dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  [ -f "$dll" ] || x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" toolgate-mcp/tests/wine/bcryptprimitives.c -ladvapi32
}
windows_tests() {
  ensure_windows_toolchain
  ensure_wine
  wine_prefix
  log "toolgate-mcp's tests for Windows, under Wine"
  node --test --test-reporter=dot toolgate-mcp/tests/wine/
  # Warnings fail the build, as clippy's do on Linux.
  # The server is stopped however the tests end, so none outlives the run.
  local status=0
  RUSTFLAGS="-D warnings" TOOLGATE_THROWAWAY_REGISTRY=1 \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$PWD/toolgate-mcp/tests/wine/runner.sh" \
    windows_cargo test -q -p toolgate-mcp || status=$?
  if [ "$status" -eq 0 ]; then
    check_host windows-x86_64 "$(windows_output debug)"
    log "the TypeScript MCP client drives toolgate-mcp.exe under Wine"
    TOOLGATE_MCP_EXE="$(windows_output debug)" node --test tests/windows/ || status=$?
  fi
  wineserver -k 2>/dev/null || true
  return "$status"
}

# The hosts `dist` writes, by kind.
DIST_HOSTS=(linux-x86_64 linux-aarch64 macos-arm64 macos-x86_64 windows-x86_64)

# Builds the release host of KIND.
dist_build() { # kind
  case $1 in
    # This machine's: the compiler and the build the tests ran.
    linux-x86_64)
      log "building toolgate-mcp (release) for $1"
      cargo build -q --release -p toolgate-mcp
      ;;
    windows-x86_64)
      log "building toolgate-mcp (release) for $1"
      windows_cargo build -q --release -p toolgate-mcp
      ;;
    *) cross_build release "$1" ;;
  esac
}
# Where dist_build put the host of KIND.
dist_path() { # kind
  case $1 in
    linux-x86_64) echo "${CARGO_TARGET_DIR:-target}/release/toolgate-mcp" ;;
    windows-x86_64) windows_output release ;;
    *) cross_output "$1" release ;;
  esac
}

# Writes dist/toolgate-mcp-VERSION-KIND for each of DIST_HOSTS, each checked
# to be what its name says and with a NAME.sha256 beside it (sha256sum's
# format: `sha256sum -c NAME.sha256` in dist/ checks it), and prints the files.
dist_hosts() {
  local version kind file ext name names=()
  version=$(dist_version)
  mkdir -p dist
  for kind in "${DIST_HOSTS[@]}"; do
    dist_build "$kind"
    file=$(dist_path "$kind")
    check_host "$kind" "$file"
    ext=
    [[ $file == *.exe ]] && ext=.exe
    name=toolgate-mcp-$version-$kind$ext
    cp "$file" "dist/$name"
    (cd dist && sha256sum "$name" >"$name.sha256")
    names+=("$name")
  done
  log "the hosts, each with its SHA-256 (in dist/, 'sha256sum -c NAME.sha256' checks one):"
  for name in "${names[@]}"; do
    printf '  dist/%s  %s bytes  sha256 %s\n' "$name" "$(stat -c %s "dist/$name")" "$(cut -d' ' -f1 "dist/$name.sha256")" >&2
  done
  printf 'dist/%s\n' "${names[@]}"
}

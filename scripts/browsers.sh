# shellcheck shell=bash
# The browsers the end-to-end tests run on (tests/README.md, "Where each file
# runs"): Debian 12's Chromium 148 at /usr/bin/chromium, and Debian 13's 156
# in a root of its own; sourced by build.sh (which defines log, apt_install
# and as_root).

# Chromium 148, Debian 12's, the first browser. Debian 12's security archive
# has since moved on to 156, the second browser's version (and bookworm's main
# pool holds 150), so `apt-get install chromium` no longer gives 148 on a
# machine whose package lists are new. 148's packages still lie in the
# security archive's pool: they are fetched from there by name and checked
# against these hashes before apt installs them. Where they are gone, the run
# goes on with the Chromium Debian 12 serves and says so; tests keyed on the
# version follow the browser they find (tests/support/browser.mjs).
CHROMIUM_148=148.0.7778.215-1~deb12u1
declare -A CHROMIUM_148_SHA256=(
  [chromium]=dc1391a7f17306d78bb703531725348aa57632f983c78da9e6407d76712454ce
  [chromium-common]=62fcea1b49f08b923e18b71c771f1bcc3880a8015cda826851f4d27107819d32
  [chromium-driver]=63498e5d5d936e03a971e33248ab955df5b9f6a78378ee25cf82bbd7abd6da8e
)
# For `test` and `bench` only: on a machine of someone's own, it replaces the
# Chromium at /usr/bin/chromium with 148, and says so.
ensure_chromium_148() {
  local was
  was=$(chromium_major)
  [ "$was" = 148 ] && return
  if install_chromium_148; then
    [ -z "$was" ] || log "Chromium $was at /usr/bin/chromium was replaced with Debian 12's 148, the tests' first browser"
    return
  fi
  ensure_chromium
  log "Chromium 148 could not be installed from Debian's archive: the tests' 148 configuration runs $(/usr/bin/chromium --version 2>/dev/null)"
}
# Any Chromium at /usr/bin/chromium, Debian's where there is none: what
# `./build.sh` and `example` need (the icons are drawn with it).
ensure_chromium() {
  [ -x /usr/bin/chromium ] || apt_install chromium chromium-driver
}
# The major version of /usr/bin/chromium, or nothing where there is none.
chromium_major() {
  { /usr/bin/chromium --version 2>/dev/null || true; } | sed -n 's/^Chromium \([0-9]*\)\..*/\1/p'
}
# Fetches 148's three packages into target/chromium-148 (once), checks each,
# and installs them with what they depend on; fails, leaving the machine's
# Chromium as it was, where a package cannot be fetched or is not the one
# pinned.
install_chromium_148() {
  local dir=target/chromium-148 security package file files=()
  [ "$(dpkg --print-architecture)" = amd64 ] || return 1
  command -v curl >/dev/null || apt_install curl
  security=$(security_uri)
  log "installing Debian 12's Chromium $CHROMIUM_148 (its packages fetched from $security's pool once)"
  mkdir -p "$dir"
  for package in chromium chromium-common chromium-driver; do
    file="$dir/${package}_${CHROMIUM_148}_amd64.deb"
    if ! pinned "$package" "$file" 2>/dev/null; then
      curl -fsS -o "$file" "$security/pool/updates/main/c/chromium/${package}_${CHROMIUM_148}_amd64.deb" \
        && pinned "$package" "$file" || { rm -f "$file"; return 1; }
    fi
    files+=("./$file")
  done
  apt_install --no-install-recommends --allow-downgrades "${files[@]}" || return 1
  [ "$(chromium_major)" = 148 ]
}
# Whether FILE is the package PACKAGE of 148 pinned above.
pinned() { # package file
  echo "${CHROMIUM_148_SHA256[$1]}  $2" | sha256sum --check --quiet --status
}
# Debian's security archive as apt's own sources name it (they may name a
# mirror), without a trailing slash.
security_uri() {
  local uri
  uri=$(apt_uris | grep security | head -n 1) || true
  uri=${uri:-http://deb.debian.org/debian-security}
  echo "${uri%/}"
}

# Chromium 156, Debian 13's (what users run), beside Debian 12's 148: the
# browser of a Debian 13 root made with debootstrap, which
# tests/support/chromium-156.sh runs through chroot. The root lives outside
# the checkout on purpose: the wrapper bind-mounts the checkout into it.
TRIXIE_ROOT=${TOOLGATE_TRIXIE_ROOT:-/opt/toolgate/trixie}
export TOOLGATE_TRIXIE_ROOT=$TRIXIE_ROOT

# The URIs apt's own sources name, one a line: deb822 files first, then
# one-line ones (skipping any [options]).
apt_uris() {
  cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }' || true
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ } print $i }' || true
}

# Mounts under `dir` (mount points in /proc/self/mounts), one a line.
mounts_under() { awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts; }

# Removes a half-made root of ours, never while anything is mounted in it: a
# recursive delete would go through a bind into /tmp or the checkout.
remove_partial_root() {
  local dir=$1
  [ -e "$dir" ] || return 0
  if [ -n "$(mounts_under "$dir")" ] || mount | grep -qF " $dir/"; then
    echo "build.sh: $dir has mounts in it; not removing it:" >&2
    mounts_under "$dir" >&2
    exit 1
  fi
  as_root rm -rf --one-file-system "$dir"
}

# Runs `apt-get ARGS` inside the root `dir`, with /proc, /dev and /sys bound
# for it (each checked first, so a mount someone else made is left alone) and
# unbound after, even when apt-get fails.
chroot_apt() {
  local dir=$1; shift
  (
    mounted=()
    cleanup() {
      local i
      for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do as_root umount "${mounted[i]}" || as_root umount -l "${mounted[i]}"; done
    }
    trap cleanup EXIT
    for fs in proc dev sys; do
      if ! mountpoint -q "$dir/$fs"; then
        as_root mount --bind "/$fs" "$dir/$fs" || exit 1
        mounted+=("$dir/$fs")
        as_root mount --make-private "$dir/$fs" || exit 1
      fi
    done
    as_root env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
      chroot "$dir" apt-get -q -o Dpkg::Use-Pty=0 "$@"
  )
}

# Makes the root once (about a minute and 1.3 GB); nothing when its Chromium
# is there. It is built under ROOT.partial and renamed when complete, so a
# root that exists is a whole one; a run stopped half-way starts over.
ensure_chromium_156() {
  local root=$TRIXIE_ROOT
  if [ -x "$root/usr/bin/chromium" ]; then return; fi
  if [ -e "$root" ]; then
    echo "build.sh: $root exists but has no usr/bin/chromium; move it away (check 'mount | grep $root' first) or set TOOLGATE_TRIXIE_ROOT" >&2
    exit 1
  fi
  as_root mkdir -p "$(dirname "$root")"
  # One maker at a time; a second waits, then finds the root made.
  if [ -w "$(dirname "$root")" ]; then exec 8>"$root.make.lock" && flock 8; fi
  if [ -x "$root/usr/bin/chromium" ]; then exec 8>&-; return; fi
  [ -x /usr/sbin/debootstrap ] || apt_install debootstrap
  local mirror security partial=$root.partial
  mirror=$(apt_uris | grep -v security | head -n 1) || true
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(security_uri)
  log "making a Debian 13 root for Chromium 156 at $root from $mirror (about a minute, once)"
  remove_partial_root "$partial"
  as_root /usr/sbin/debootstrap --variant=minbase trixie "$partial" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    tail -n 20 "$root.debootstrap.log" >&2
    echo "build.sh: debootstrap failed; its log: $root.debootstrap.log" >&2
    exit 1
  }
  echo "deb $security trixie-security main" | as_root tee -a "$partial/etc/apt/sources.list" >/dev/null
  log "installing Chromium in the Debian 13 root"
  { chroot_apt "$partial" update && chroot_apt "$partial" install -y --no-install-recommends chromium fonts-dejavu-core; } \
    >"$root.apt.log" 2>&1 || {
    tail -n 20 "$root.apt.log" >&2
    echo "build.sh: installing Chromium in $partial failed; its log: $root.apt.log" >&2
    exit 1
  }
  [ -z "$(mounts_under "$partial")" ] || { echo "build.sh: mounts left in $partial" >&2; exit 1; }
  as_root mv "$partial" "$root"
  exec 8>&-
}

#!/usr/bin/env bash
# Chromium 156 (Debian 13's) on a Debian 12 machine: the browser of a Debian 13
# root that build.sh makes with debootstrap (ARCHITECTURE.md, "Code map"), run through chroot.
# playwright-core uses this script as its executablePath; its pipes pass through.
#
# The browser must see, at the same paths, what the tests hand it: profiles in
# /tmp, this checkout (the unpacked extension, the toolgate-mcp binary). Bind
# mounts outlive the browser, so each is made once, under a lock, and left for
# `./build.sh` to undo (`tests/support/chromium-156.sh --unmount`).
set -euo pipefail
ROOT=${TOOLGATE_TRIXIE_ROOT:-/opt/toolgate/trixie}
REPO=$(cd "$(dirname "$0")/../.." && pwd)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

targets() { printf '%s\n' "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/dev/shm" "$ROOT/tmp" "$ROOT$REPO"; }

# Whether a process runs inside the root (a browser of another test run).
in_use() {
  local link
  for link in /proc/[0-9]*/root; do
    [ "$(as_root readlink "$link" 2>/dev/null)" = "$ROOT" ] && return 0
  done
  return 1
}

if [ "${1:-}" = "--unmount" ]; then
  [ -d "$ROOT" ] || exit 0
  (
    flock 9
    # Another run's browser still needs them: its run unmounts them later.
    if in_use; then echo "chromium-156.sh: a browser still runs in $ROOT; its mounts stay" >&2; exit 0; fi
    # Innermost first: the checkout and /dev/shm sit inside other mounts.
    for target in $(targets | sort -r); do
      if mountpoint -q "$target"; then as_root umount -l "$target"; fi
    done
  ) 9>"$ROOT.lock"
  exit 0
fi

[ -x "$ROOT/usr/bin/chromium" ] || { echo "no Chromium 156 root at $ROOT: run ./build.sh" >&2; exit 127; }

# Each mount is made private: where the host's mounts are shared (systemd's
# default), the tmpfs on ROOT/dev/shm would otherwise also land on the host's
# /dev/shm, and its unmount too.
bind() { # source target
  mountpoint -q "$2" && return
  as_root mkdir -p "$2"
  as_root mount --bind "$1" "$2"
  as_root mount --make-private "$2"
}
(
  flock 9
  bind /proc "$ROOT/proc"
  bind /sys "$ROOT/sys"
  bind /dev "$ROOT/dev"
  mountpoint -q "$ROOT/dev/shm" || { as_root mount -t tmpfs -o mode=1777 tmpfs "$ROOT/dev/shm" && as_root mount --make-private "$ROOT/dev/shm"; }
  bind /tmp "$ROOT/tmp"
  bind "$REPO" "$ROOT$REPO"
) 9>"$ROOT.lock"

if [ "$(id -u)" -eq 0 ]; then exec chroot "$ROOT" /usr/bin/chromium "$@"; fi
exec sudo --preserve-env chroot "$ROOT" /usr/bin/chromium "$@"

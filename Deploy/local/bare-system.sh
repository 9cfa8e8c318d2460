# Bare Debian systems for `make dist-check`: a cached `debootstrap --variant=minbase` of
# bookworm outside the checkout, and throw-away roots on top of it (an overlay, or a copy
# where overlays cannot be mounted) with /proc and a minimal /dev. Sourced after lib.sh;
# needs root.

BRAID_CACHE_DIR="${BRAID_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/braid}"
BRAID_SUITE=bookworm
BRAID_BASE="$BRAID_CACHE_DIR/$BRAID_SUITE-minbase"

# The Debian mirror the host installs bookworm from (its apt sources), so the bare system
# comes from the same place; BRAID_DEBIAN_MIRROR overrides it. Empty: debootstrap's default.
braid_debian_mirror() {
  if [ -n "${BRAID_DEBIAN_MIRROR:-}" ]; then echo "$BRAID_DEBIAN_MIRROR"; return; fi
  python3 - "$BRAID_SUITE" <<'PY'
import glob, re, sys
suite = sys.argv[1]
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        m = re.match(r"\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s", line + " ")
        if m and m.group(2) == suite:
            print(m.group(1)); sys.exit(0)
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for block in re.split(r"\n\s*\n", open(path).read()):
        fields = {}
        for line in block.splitlines():
            if ":" in line and not line.lstrip().startswith("#"):
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.split()
        if "deb" in fields.get("types", []) and suite in fields.get("suites", []) and fields.get("uris"):
            print(fields["uris"][0]); sys.exit(0)
PY
}

# Mount points at or below DIR, deepest first (from /proc/self/mountinfo).
braid_mounts_under() { # DIR
  local dir
  dir="$(realpath -m "$1")"
  awk -v dir="$dir" '{ p = $5; gsub(/\\040/, " ", p); if (p == dir || index(p, dir "/") == 1) print p }' /proc/self/mountinfo |
    awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-
}

# Unmounts everything at or below DIR (lazily if a mount is busy). Safe to call when nothing is mounted.
braid_unmount_under() { # DIR
  local mount
  while IFS= read -r mount; do
    [ -n "$mount" ] || continue
    umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || braid_log "could not unmount $mount"
  done < <(braid_mounts_under "$1")
}

# Removes DIR after unmounting what is below it; refuses (and says so) while anything still is,
# so a bind mount can never take host files with it.
braid_remove_tree() { # DIR
  local dir="$1"
  [ -e "$dir" ] || return 0
  braid_unmount_under "$dir"
  if [ -n "$(braid_mounts_under "$dir")" ]; then
    braid_log "not removing $dir: still mounted: $(braid_mounts_under "$dir" | tr '\n' ' ')"
    return 1
  fi
  rm -rf --one-file-system "$dir"
}

# Makes $BRAID_BASE the cached bare system: creates it when it is missing (a few minutes: downloads ~40 MB) and
# refreshes its package index when older than a week. An interrupted earlier attempt is
# discarded: the base only appears under its name once debootstrap and apt-get update finished.
# Concurrent runs wait for each other (flock).
braid_bare_base() {
  mkdir -p "$BRAID_CACHE_DIR"
  (
    flock 9
    local base="$BRAID_BASE" partial="$BRAID_BASE.partial" mirror log="$BRAID_CACHE_DIR/debootstrap.log"
    if [ ! -f "$base/.braid-complete" ]; then
      command -v debootstrap >/dev/null || braid_die "debootstrap is not installed; run Deploy/local/bootstrap.sh dist"
      braid_remove_tree "$partial" || exit 1
      braid_remove_tree "$base" || exit 1
      mirror="$(braid_debian_mirror)"
      braid_log "creating the bare system $base (debootstrap --variant=minbase $BRAID_SUITE ${mirror:-<default mirror>}; log: $log)"
      # shellcheck disable=SC2086
      debootstrap --variant=minbase "$BRAID_SUITE" "$partial" $mirror >"$log" 2>&1 ||
        { braid_unmount_under "$partial"; braid_die "debootstrap failed; see $log"; }
      braid_unmount_under "$partial" # debootstrap may leave /proc or /sys mounted
      braid_base_update "$partial" >>"$log" 2>&1 || braid_die "apt-get update in the bare system failed; see $log"
      touch "$partial/.braid-complete"
      mv "$partial" "$base"
    elif [ -z "$(find "$base/var/lib/apt/lists" -maxdepth 1 -name '*_Packages*' -mtime -7 2>/dev/null | head -n1)" ]; then
      braid_log "refreshing the package index of $base"
      braid_base_update "$base" >>"$log" 2>&1 || braid_die "apt-get update in the bare system failed; see $log"
    fi
  ) 9>"$BRAID_CACHE_DIR/.lock" || exit 1
}

# apt-get update inside a root (its package index only; nothing is installed).
braid_base_update() { # ROOT
  local root="$1" status=0
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  mount -t proc proc "$root/proc"
  chroot "$root" apt-get update -qq || status=$?
  braid_unmount_under "$root/proc"
  return "$status"
}

# A throw-away root at DIR/root on top of the cached base: an overlay (the base stays pristine), or
# a copy where overlays cannot be mounted. With /proc, a /dev of the few devices programs use,
# the host's resolv.conf, and services kept from starting by package scripts.
braid_bare_root() { # BASE DIR
  local base="$1" dir="$2" root="$2/root"
  mkdir -p "$dir/upper" "$dir/work" "$root"
  if ! mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir/upper,workdir=$dir/work" "$root" 2>/dev/null; then
    braid_log "overlay not available; copying the bare system"
    cp -a "$base/." "$root/"
  fi
  mount -t proc proc "$root/proc"
  mount -t tmpfs -o mode=0755,nosuid dev "$root/dev"
  local device
  for device in null zero full random urandom tty; do
    touch "$root/dev/$device"
    mount --bind "/dev/$device" "$root/dev/$device"
  done
  ln -s /proc/self/fd "$root/dev/fd"
  ln -s /proc/self/fd/0 "$root/dev/stdin"
  ln -s /proc/self/fd/1 "$root/dev/stdout"
  ln -s /proc/self/fd/2 "$root/dev/stderr"
  mkdir -p "$root/dev/shm" "$root/dev/pts"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 0755 "$root/usr/sbin/policy-rc.d"
}

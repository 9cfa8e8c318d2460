#!/usr/bin/env bash
# `make image`: Deploy/container/Containerfile built with Debian's buildah, where no container
# registry is reachable: the release comes from the tarball of `make dist` (DIST=tarball) and the
# runtime base is a local image of the bare `debootstrap --variant=minbase bookworm` that
# `make dist-check` also uses (imported once as localhost/braid-base:bookworm-minbase). Tags
# localhost/braid:<VERSION> and prints the image's size. Needs root (buildah, chroot).
set -euo pipefail
BRAID_SCRIPT=image
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bare-system.sh"
cd "$BRAID_ROOT"
[ "$(id -u)" -eq 0 ] || braid_die "needs root (buildah): run it as root, e.g. sudo make image"
command -v buildah >/dev/null || braid_die "buildah is not installed; run Deploy/local/bootstrap.sh image"

version="$(tr -d '[:space:]' <VERSION)"
image="localhost/braid:$version"
base="localhost/braid-base:$BRAID_SUITE-minbase"

"$BRAID_ROOT/Deploy/local/dist.sh"
braid_bare_base
# The base image is the cached bare system as it is; imported again when the cache is newer.
stamp="slim2-$(stat -c %Y "$BRAID_BASE/.braid-complete")-$(find "$BRAID_BASE/var/lib/apt/lists" -maxdepth 1 -newer "$BRAID_BASE/.braid-complete" | wc -l)"
if [ "$(buildah inspect --type image --format '{{index .ImageAnnotations "braid.base"}}' "$base" 2>/dev/null)" != "$stamp" ]; then
  braid_log "importing $BRAID_BASE as $base"
  container="$(buildah from scratch)"
  mount="$(buildah mount "$container")"
  # Slim, as debian:bookworm-slim is: no package index or downloaded packages, documentation,
  # manuals or translations, and dpkg told to leave them out of what is installed later.
  tar -C "$BRAID_BASE" --exclude=./.braid-complete --exclude='./proc/*' --exclude='./sys/*' \
    --exclude='./var/lib/apt/lists/*' --exclude='./var/cache/apt/*' --exclude='./usr/share/doc/*' \
    --exclude='./usr/share/man/*' --exclude='./usr/share/locale/*' --exclude='./usr/share/info/*' -cf - . | tar -C "$mount" -xf -
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/locale/*' 'path-exclude /usr/share/info/*' >"$mount/etc/dpkg/dpkg.cfg.d/braid-slim"
  # apt keeps no downloaded packages or caches either (as debian's docker images configure it).
  clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true";'
  printf '%s\n' "DPkg::Post-Invoke { $clean };" "APT::Update::Post-Invoke { $clean };" 'Dir::Cache::pkgcache "";' \
    'Dir::Cache::srcpkgcache "";' >"$mount/etc/apt/apt.conf.d/braid-slim"
  buildah umount "$container" >/dev/null
  buildah config --annotation "braid.base=$stamp" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$container"
  buildah commit --quiet --rm "$container" "$base" >/dev/null
fi

# Only the tarball of this VERSION and architecture in .build/dist/ (the stage unpacks braid-*).
tarball=".build/dist/braid-$version-linux-$(uname -m).tar.gz"
[ -f "$tarball" ] || braid_die "make dist left no $tarball"
find .build/dist -maxdepth 1 -name "braid-*.tar.gz" ! -path "$tarball" -delete

# Docker format keeps the HEALTHCHECK (the OCI format has no field for it).
buildah build --quiet --format docker --network host --layers=false \
  -f Deploy/container/Containerfile --ignorefile Deploy/container/Containerfile.dockerignore \
  --build-arg DIST=tarball --build-arg RUNTIME_IMAGE="$base" -t "$image" . >/dev/null
size="$(buildah inspect --type image --format '{{.Size}}' "$image" 2>/dev/null || true)"
[ -n "$size" ] && [ "$size" != 0 ] || size="$(podman image inspect --format '{{.Size}}' "$image")"
braid_log "built $image: $((size / 1024 / 1024)) MiB"
echo "FIGURE image.size_mib $((size / 1024 / 1024))"

#!/usr/bin/env bash
# `make dist`: the release artifact .build/dist/braid-<VERSION>-linux-<arch>.tar.gz.
#
#   braid                  release build, Swift standard library and Foundation linked statically,
#                          RUNPATH $ORIGIN: it loads the two C libraries below from its own folder
#   librdkafka.so.1        librdkafka >= 2.2 (from the confluent-kafka wheel bootstrap.sh installs)
#   libhiredis.so.<ver>    Debian's hiredis, the one it was compiled against
#   braid-healthcheck      GET /healthz without curl (the container image's HEALTHCHECK)
#   config/ schemas/ systemd/ licenses/ runtime-packages.txt README.md VERSION
#
# Everything else it loads comes from the Debian packages in Deploy/container/runtime-packages.txt;
# `make dist-check` proves that on a bare system. The version is the VERSION file; the build
# fails when `braid version` reports another one.
set -euo pipefail
BRAID_SCRIPT=dist
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"

"$BRAID_ROOT/Deploy/local/bootstrap.sh" dist
command -v patchelf >/dev/null || braid_die "patchelf is not installed; run Deploy/local/bootstrap.sh dist"

version="$(tr -d '[:space:]' <VERSION)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || braid_die "VERSION holds '$version', not a version"
name="braid-$version-linux-$(uname -m)"
out="$BRAID_ROOT/.build/dist"
stage="$out/$name"

# Without debug info: it would be stripped below anyway, and generating it costs build minutes.
# In a build folder of its own: SwiftPM lets one command at a time use a build folder, and
# .ci/run builds this while `make test` holds .build (no other build shares these flags anyway).
build=(swift build -c release --product braid --static-swift-stdlib -debug-info-format none --scratch-path "$out/build")

# What the tarball is made of: the commit, every uncommitted change and untracked file, the
# pinned packages, the toolchain and the librdkafka it ships. When that is what the tarball on
# disk was made of, it is kept: SwiftPM often recompiles a few modules of a finished release
# build and relinks it (seen with and without a debug build in between), up to a minute and a
# half that `make image` after `make dist-check` would pay again. Outside a git checkout it
# always builds.
sources_fingerprint() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 1
  {
    git rev-parse HEAD
    git diff HEAD --binary
    git ls-files --others --exclude-standard -z | xargs -0 -r sha256sum
    cat Package.resolved 2>/dev/null || true
    swift --version 2>&1
    readlink -f "$BRAID_ROOT/.lib/librdkafka.so.1"
    dpkg-query -W -f='${Package} ${Version}\n' 'libhiredis*' 2>/dev/null || true
    echo "${build[*]}"
  } | sha256sum | cut -d' ' -f1
}
fingerprint="$(sources_fingerprint || true)"
if [ -n "$fingerprint" ] && [ -f "$out/$name.tar.gz" ] && [ "$(cat "$out/$name.source" 2>/dev/null)" = "$fingerprint" ]; then
  braid_log "$out/$name.tar.gz is up to date (made of the same sources, packages and toolchain)"
  exit 0
fi

"${build[@]}"
binary="$("${build[@]}" --show-bin-path)/braid"

braid_log "assembling $stage"
rm -rf "$stage" "$out/$name.tar.gz"
mkdir -p "$stage/config" "$stage/licenses"

# The binary: any debug info left stripped (symbols stay for backtraces), its
# build-tree rpath replaced by its own folder.
install -m 0755 "$binary" "$stage/braid"
strip --strip-debug "$stage/braid"
patchelf --set-rpath '$ORIGIN' "$stage/braid"

# The two C libraries it is linked against, under the names it asks for.
needed="$(readelf -d "$stage/braid" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
hiredis="$(grep '^libhiredis\.so' <<<"$needed")" || braid_die "braid does not link libhiredis"
grep -qx 'librdkafka.so.1' <<<"$needed" || braid_die "braid does not link librdkafka.so.1"
install -m 0644 "$(readlink -f "$BRAID_ROOT/.lib/librdkafka.so.1")" "$stage/librdkafka.so.1"
# Read whole first: awk quitting at the match would leave ldconfig to die of SIGPIPE (pipefail).
libraries="$(ldconfig -p)"
hiredis_path="$(awk -v lib="$hiredis" '$1 == lib { print $NF; exit }' <<<"$libraries")"
[ -n "$hiredis_path" ] || braid_die "$hiredis is not installed (Debian package libhiredis0.14; run Deploy/local/bootstrap.sh)"
install -m 0644 "$(readlink -f "$hiredis_path")" "$stage/$hiredis"

# Nothing of the Swift toolchain may be loaded at run time.
if grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime|XCTest|Testing)' <<<"$needed"; then
  braid_die "braid still links the libraries above dynamically; the Swift runtime must be static"
fi

site="$("$BRAID_ROOT/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$(ls "$site"/confluent_kafka-*.dist-info/licenses/LICENSE | head -n1)" "$stage/licenses/librdkafka-and-confluent-kafka.txt"
cp "/usr/share/doc/$(dpkg -S "$(readlink -f "$hiredis_path")" | cut -d: -f1)/copyright" "$stage/licenses/hiredis.txt"

install -m 0755 Deploy/container/braid-healthcheck "$stage/braid-healthcheck"
install -m 0644 Deploy/config/braid.yaml "$stage/config/braid.yaml"
install -m 0644 Deploy/config/production.yaml "$stage/config/production.yaml"
install -m 0644 Deploy/redis/braid-redis.conf "$stage/config/braid-redis.conf"
cp -R Schemas "$stage/schemas"
cp -R Deploy/systemd "$stage/systemd"
install -m 0644 Deploy/container/runtime-packages.txt "$stage/runtime-packages.txt"
echo "$version" >"$stage/VERSION"
sed -e "s/@VERSION@/$version/g" -e "s/@ARCH@/$(uname -m)/g" Deploy/dist/README.md >"$stage/README.md"

# The binary must say the version the artifact is named after, and load the librdkafka next to it.
report="$(env -u LD_LIBRARY_PATH "$stage/braid" version)" || braid_die "$stage/braid version failed: $report"
grep -qx "braid $version" <<<"$report" ||
  braid_die "VERSION says $version but braid reports '$(head -n1 <<<"$report")' (Sources/braid/VersionCommand.swift)"
# The path is the file the process mapped (`braid version` reads /proc/self/maps), compared as a
# file, not as text: a symlinked checkout names the same file differently. Not `ldd | grep -q`:
# ld.so writes a line at a time, and under pipefail the early exit of grep failed the build.
loaded="$(sed -n 's/^librdkafka [^ ]* from \(.*\)$/\1/p' <<<"$report")"
[ -n "$loaded" ] && [ "$loaded" -ef "$stage/librdkafka.so.1" ] ||
  braid_die "braid does not load the librdkafka next to it ($stage/librdkafka.so.1): braid version said
$report
ldd says:
$(env -u LD_LIBRARY_PATH ldd "$stage/braid" 2>&1 || true)"

# The allocator it is linked with (Package.swift) must be the one it runs on.
grep -q '^allocator jemalloc ' <<<"$report" ||
  braid_die "braid does not run on jemalloc (libjemalloc2; Package.swift links it): braid version said
$report"

# Reproducible archive: fixed owner, order and timestamps (those of the last commit).
mtime="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
  -C "$out" -czf "$out/$name.tar.gz" "$name"
braid_log "$(sed -n 1,2p <<<"$report" | tr '\n' ' ')"
if [ -n "$fingerprint" ]; then echo "$fingerprint" >"$out/$name.source"; else rm -f "$out/$name.source"; fi
braid_log "built $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"

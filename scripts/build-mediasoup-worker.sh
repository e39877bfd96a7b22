#!/usr/bin/env bash
# Builds mediasoup's C++ worker (`mediasoup-worker`) where no prebuilt one can be downloaded (machines
# that reach only the npm registry and Debian's archive, like our CI). On a machine with ordinary
# internet access `npm install mediasoup` fetches a prebuilt worker and this script is not needed.
#
# The worker is built from the installed npm package's own `worker/` sources (no mediasoup C++ file is
# changed) against Debian's libraries: meson uses a folder `subprojects/<name>/` with its own
# meson.build when one exists, so shim subprojects below wrap Debian's packages with `dependency()` and
# export the variables mediasoup's meson.build reads. libsrtp is built from Debian's own libsrtp2
# source package (`apt-get source libsrtp2`), statically against OpenSSL: Debian's binary libsrtp2 is
# built on NSS and costs 2–3x more per packet (facts in the shared note on mediasoup). OpenSSL is built
# too, from the upstream sources Debian's archive carries for the system's libssl3
# (openssl_<version>.orig.tar.gz), into the output folder, and the worker finds it there (RUNPATH): with
# Debian's own libssl.so.3 the worker died (SIGSEGV in SSL_read, writing the DTLS ServerHello) at the
# first handshake, and with the same OpenSSL version built from its upstream sources it does not (docs/mediasoup.md).
#
# Output: $RB_MEDIASOUP_CACHE (default ~/.cache/rb-mediasoup)/<mediasoup version>-<hash>/mediasoup-worker,
# keyed by the mediasoup version, the versions of the Debian libraries it links and this script, so a
# machine builds it once and again when one of those changes; <cache>/<version>/mediasoup-worker links to
# the newest build (where the SFU looks when MEDIASOUP_WORKER_BIN is unset). Prints the binary's path.
#
# Usage: scripts/build-mediasoup-worker.sh [--debug]   (--debug: unoptimised build with symbols, for gdb)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILDTYPE=release
[ "${1:-}" = "--debug" ] && BUILDTYPE=debug

log() { echo "[mediasoup-worker] $*" >&2; }

# The pinned version (apps/sfu/package.json) and its sources: the installed package, else its npm tarball.
VERSION=$(node -p "require('./apps/sfu/package.json').optionalDependencies.mediasoup")
PKG="$ROOT/node_modules/mediasoup"
if [ ! -f "$PKG/package.json" ] || [ "$(node -p "require('$PKG/package.json').version")" != "$VERSION" ]; then
  PKG=$(mktemp -d)/package
  log "node_modules/mediasoup is not $VERSION: taking the worker's sources from npm's tarball"
  (cd "$(dirname "$PKG")" && npm pack --silent "mediasoup@$VERSION" >/dev/null && tar xzf "mediasoup-$VERSION.tgz")
fi

# Debian packages the build needs, installed when missing (root) or named (otherwise).
DEBS=(meson ninja-build g++ pkg-config dpkg-dev libssl-dev libuv1-dev libusrsctp-dev libabsl-dev
  libflatbuffers-dev flatbuffers-compiler)
missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    log "missing Debian packages: ${missing[*]} (apt-get install them, or run this as root)"
    exit 1
  fi
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# libsrtp2's source package: deb-src lines for the same archive as the system's deb lines, in apt
# directories of our own (the system's apt configuration is left as it is).
CACHE="${RB_MEDIASOUP_CACHE:-${HOME:-/root}/.cache/rb-mediasoup}"
APTDIR="$CACHE/apt"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/sources.list.d"
SRC_LIST="$APTDIR/sources.list.d/deb-src.sources"
if [ ! -s "$SRC_LIST" ]; then
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f"
    echo
  done >"$SRC_LIST"
  if [ -f /etc/apt/sources.list ]; then
    sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list >"$APTDIR/sources.list.d/deb-src.list"
  fi
fi
APT_OPTS=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$APTDIR/sources.list.d"
  -o "Dir::State::Lists=$APTDIR/lists" -o "Debug::NoLocking=1")
if ! apt-get "${APT_OPTS[@]}" source --print-uris libsrtp2 >/dev/null 2>&1; then
  log "fetching Debian's source index"
  apt-get "${APT_OPTS[@]}" update -qq
fi
SRTP_SRC_VERSION=$(apt-cache "${APT_OPTS[@]}" showsrc libsrtp2 | sed -nE 's/^Version: //p' | sort -V | tail -1)
# the upstream version of the system's libssl3 (3.0.22-1~deb12u2 -> 3.0.22)
OPENSSL_VERSION=$(dpkg-query -W -f '${Version}' libssl3 | sed -E 's/^[0-9]+://; s/-[^-]*$//')

# The cache key: mediasoup's version, the Debian libraries linked or compiled against, this script.
debver() { dpkg-query -W -f '${Package}=${Version}\n' "$@" 2>/dev/null | sort; }
KEY_TEXT="mediasoup=$VERSION
$BUILDTYPE
libsrtp2-src=$SRTP_SRC_VERSION
openssl-src=$OPENSSL_VERSION
$(debver libssl-dev libssl3 libuv1-dev libusrsctp-dev libabsl-dev libflatbuffers-dev flatbuffers-compiler g++ meson)
$(sha256sum "$0" | cut -c1-64)"
HASH=$(printf '%s' "$KEY_TEXT" | sha256sum | cut -c1-12)
OUT="$CACHE/$VERSION-$HASH"
if [ "$BUILDTYPE" = debug ]; then OUT="$OUT-debug"; fi
BIN="$OUT/mediasoup-worker"
link_current() {
  if [ "$BUILDTYPE" = release ]; then
    mkdir -p "$CACHE/$VERSION"
    ln -sfn "$BIN" "$CACHE/$VERSION/mediasoup-worker"
  fi
}
if [ -x "$BIN" ]; then
  log "already built: $BIN"
  link_current
  echo "$BIN"
  exit 0
fi

WORK="$OUT.work"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "$KEY_TEXT" >"$WORK/key.txt"
JOBS=$(nproc)

# 0. OpenSSL from the upstream tarball in Debian's archive (the source package's .orig.tar.gz; the
# .dsc of a security update may be gone from the mirror while its .orig stays), shared, installed in
# $OUT/openssl where the worker's RUNPATH points.
SSL="$OUT/openssl"
log "building OpenSSL $OPENSSL_VERSION from Debian's source archive (upstream tarball)"
(cd "$WORK" && apt-get "${APT_OPTS[@]}" source -qq --download-only "openssl=$(dpkg-query -W -f '${Version}' libssl3)" >/dev/null 2>&1 || true)
[ -f "$WORK/openssl_$OPENSSL_VERSION.orig.tar.gz" ] ||
  (cd "$WORK" && apt-get "${APT_OPTS[@]}" source -qq --download-only openssl >/dev/null 2>&1 || true)
[ -f "$WORK/openssl_$OPENSSL_VERSION.orig.tar.gz" ] || {
  log "openssl_$OPENSSL_VERSION.orig.tar.gz not found in Debian's source archive"
  exit 1
}
rm -rf "$SSL"
(
  cd "$WORK" && tar xzf "openssl_$OPENSSL_VERSION.orig.tar.gz" && cd "openssl-$OPENSSL_VERSION"
  ./Configure linux-x86_64 shared no-tests -O2 --prefix="$SSL" --libdir=lib >"$WORK/openssl-configure.log" 2>&1
  make -j"$JOBS" build_libs >"$WORK/openssl-make.log" 2>&1 || {
    tail -30 "$WORK/openssl-make.log" >&2
    exit 1
  }
  make install_dev >>"$WORK/openssl-make.log" 2>&1
)
SSL_LINK="'-L$SSL/lib', '-lssl', '-lcrypto', '-Wl,-rpath,$SSL/lib'"

# 1. libsrtp 2 from Debian's source package, static, against that OpenSSL.
log "building libsrtp2 $SRTP_SRC_VERSION from Debian's source package (OpenSSL)"
(cd "$WORK" && apt-get "${APT_OPTS[@]}" source -qq --download-only libsrtp2 >/dev/null 2>&1 &&
  dpkg-source -x --no-check libsrtp2_*.dsc srtp-src >/dev/null)
(
  cd "$WORK/srtp-src"
  CFLAGS="-O2 -fPIC -I$SSL/include" LDFLAGS="-L$SSL/lib -Wl,-rpath,$SSL/lib" \
    ./configure --prefix="$WORK/srtp" --enable-openssl --with-openssl-dir="$SSL" >/dev/null
  make -j"$JOBS" libsrtp2.a >/dev/null
  make install-headers install-pkgconfig >/dev/null 2>&1 || true
  mkdir -p "$WORK/srtp/lib" "$WORK/srtp/include/srtp2"
  cp libsrtp2.a "$WORK/srtp/lib/"
  cp include/srtp.h include/srtp_priv.h crypto/include/auth.h crypto/include/cipher.h \
    crypto/include/crypto_types.h "$WORK/srtp/include/srtp2/" 2>/dev/null || cp include/srtp.h "$WORK/srtp/include/srtp2/"
)

# 2. The worker's sources with shim subprojects over Debian's libraries.
cp -a "$PKG/worker" "$WORK/worker"
SUB="$WORK/worker/subprojects"
rm -f "$SUB"/*.wrap # each one names a download; the shims below take their place
shim() { # name, meson.build body, meson_options.txt body
  mkdir -p "$SUB/$1"
  printf "project('%s', ['c', 'cpp'])\n%s\n" "$1" "$2" >"$SUB/$1/meson.build"
  printf '%s\n' "$3" >"$SUB/$1/meson_options.txt"
  echo 'int rb_shim_dummy(void) { return 0; }' >"$SUB/$1/dummy.c"
}
DUMMY="dummy = static_library('dummy', 'dummy.c')"
shim openssl "$DUMMY
openssl_dep = declare_dependency(include_directories: include_directories('$SSL/include'),
  link_args: [$SSL_LINK])
libcrypto_lib = dummy
libssl_lib = dummy" ""
shim libuv "$DUMMY
libuv_dep = dependency('libuv')
libuv = dummy" "option('build_tests', type: 'boolean', value: false)
option('build_benchmarks', type: 'boolean', value: false)"
# libsrtp 2.5's API beside the libsrtp 3 fork mediasoup's wrap names: size_t lengths and
# srtp_stream_remove (compat/srtp.h; cryptex and MKI are not used by mediasoup 3.15).
shim libsrtp2 "$DUMMY
libsrtp2_dep = declare_dependency(
  include_directories: include_directories('compat', '$WORK/srtp/include', '$WORK/srtp/include/srtp2'),
  link_args: ['$WORK/srtp/lib/libsrtp2.a', $SSL_LINK])
libsrtp2 = dummy" "option('crypto-library', type: 'string', value: 'openssl')
option('crypto-library-kdf', type: 'feature', value: 'disabled')
option('tests', type: 'feature', value: 'disabled')"
mkdir -p "$SUB/libsrtp2/compat"
cat >"$SUB/libsrtp2/compat/srtp.h" <<'EOF'
// libsrtp 2.5 (Debian's source package) behind the API of the libsrtp 3 fork mediasoup 3.15 uses.
#pragma once
#include <srtp2/srtp.h>
#ifdef __cplusplus
#include <cstddef>
inline srtp_err_status_t srtp_protect(srtp_t ctx, void* hdr, size_t* len)
{
  int n = static_cast<int>(*len);
  const srtp_err_status_t err = ::srtp_protect(ctx, hdr, &n);
  *len = static_cast<size_t>(n);
  return err;
}
inline srtp_err_status_t srtp_unprotect(srtp_t ctx, void* hdr, size_t* len)
{
  int n = static_cast<int>(*len);
  const srtp_err_status_t err = ::srtp_unprotect(ctx, hdr, &n);
  *len = static_cast<size_t>(n);
  return err;
}
inline srtp_err_status_t srtp_protect_rtcp(srtp_t ctx, void* hdr, size_t* len)
{
  int n = static_cast<int>(*len);
  const srtp_err_status_t err = ::srtp_protect_rtcp(ctx, hdr, &n);
  *len = static_cast<size_t>(n);
  return err;
}
inline srtp_err_status_t srtp_unprotect_rtcp(srtp_t ctx, void* hdr, size_t* len)
{
  int n = static_cast<int>(*len);
  const srtp_err_status_t err = ::srtp_unprotect_rtcp(ctx, hdr, &n);
  *len = static_cast<size_t>(n);
  return err;
}
inline srtp_err_status_t srtp_stream_remove(srtp_t ctx, uint32_t ssrc)
{
  return ::srtp_remove_stream(ctx, ssrc);
}
#endif
EOF
shim usrsctp "$DUMMY
usrsctp_dep = dependency('usrsctp')
usrsctp = dummy" "option('sctp_build_programs', type: 'boolean', value: false)"
shim abseil-cpp "$DUMMY
absl_container_dep = [dependency('absl_flat_hash_map'), dependency('absl_flat_hash_set'),
  dependency('absl_btree'), dependency('absl_inlined_vector')]
absl_strings_dep = dependency('absl_strings')
absl_types_dep = dependency('absl_optional')
absl_container_lib = dummy" ""
shim catch2 "catch2_dep = declare_dependency()" ""
shim flatbuffers "$DUMMY
flatbuffers_dep = dependency('flatbuffers')
flatbuffers_lib = dummy" ""

# bookworm's meson is 1.0.1; mediasoup asks >= 1.1.0 but uses nothing from 1.1.
sed -i "s/meson_version: '>= 1.1.0'/meson_version: '>= 1.0.0'/" "$WORK/worker/meson.build"

# 3. Configure and build (liburing off: bookworm's 2.3 lacks calls mediasoup makes; no difference
# measured in fan-out). 3.15 needs its FlatBuffers headers generated first, as its tasks.py does.
log "building mediasoup-worker $VERSION ($BUILDTYPE, -j$JOBS; ~6 min on 2 busy cores)"
cd "$WORK/worker"
meson setup build --wrap-mode=nodownload --buildtype="$BUILDTYPE" -Dms_disable_liburing=true \
  -Db_pie=true -Db_staticpic=true >"$WORK/meson-setup.log" 2>&1 ||
  {
    tail -30 "$WORK/meson-setup.log" >&2
    exit 1
  }
ninja -C build -j"$JOBS" fbs/FBS >"$WORK/ninja.log" 2>&1 || true
ninja -C build -j"$JOBS" mediasoup-worker >>"$WORK/ninja.log" 2>&1 || {
  tail -40 "$WORK/ninja.log" >&2
  exit 1
}
cp build/mediasoup-worker "$BIN.tmp"
[ "$BUILDTYPE" = release ] && strip "$BIN.tmp"
cp "$WORK/key.txt" "$OUT/key.txt"
mv "$BIN.tmp" "$BIN"
cd "$ROOT"
rm -rf "$WORK"
link_current
log "built $BIN"
echo "$BIN"

#!/usr/bin/env bash
# Build SUNDIALS 7.1.1 from Debian's *source* package into a cache prefix that
# later runs reuse.
#
# Usage: ci/build-sundials.sh [PREFIX]
#   PREFIX defaults to ${CHS_SUNDIALS_CACHE:-$HOME/.cache/chs}/sundials-7.1.1
#
# All progress goes to stderr; the last (and only) line on stdout is the
# install prefix, so callers can do:  prefix="$(bash ci/build-sundials.sh)"
#
# How the source is obtained: Debian stable (bookworm) ships SUNDIALS 6.4, so
# the 7.1.1 source package is taken from the next release (trixie; forky and
# sid are tried after it if trixie ever stops carrying 7.1.1).  The mirror is
# whatever the machine's own apt configuration uses for its release.  The
# extra deb-src entry lives only in a private, throw-away apt state (own
# source list, own lists/ and cache/ dirs under a temp dir), so the system's
# apt sources and package lists are never modified.
set -euo pipefail

SUNDIALS_VERSION=7.1.1
# Bump when the configure options below change, so cached builds are redone.
BUILD_REV=1
# Suites searched, in order, for the 7.1.1 source package.
read -r -a SUITES_TO_TRY <<<"${CHS_SUNDIALS_SUITES:-trixie forky sid}"

prefix="${1:-${CHS_SUNDIALS_CACHE:-$HOME/.cache/chs}/sundials-${SUNDIALS_VERSION}}"

# Keep stdout clean for the final prefix line; everything else -> stderr.
exec 3>&1 1>&2

log() { printf '[build-sundials] %s\n' "$*" >&2; }
die() { printf '[build-sundials] ERROR: %s\n' "$*" >&2; exit 1; }

is_complete() {
  [[ -f "$prefix/.complete" ]] && grep -qx "build-rev=${BUILD_REV}" "$prefix/.complete"
}

finish() {
  printf '%s\n' "$prefix" >&3
  exit 0
}

if is_complete; then
  log "reusing cached SUNDIALS ${SUNDIALS_VERSION} at $prefix"
  finish
fi

start_ts=$SECONDS

# --------------------------------------------------------------------------
# Serialise concurrent builds into the same prefix.
mkdir -p "$(dirname "$prefix")"
exec 9>"${prefix}.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi
if is_complete; then
  log "another run finished building $prefix meanwhile; reusing it"
  finish
fi
# Never wipe a directory this script did not create.
if [[ -d "$prefix" && -n "$(ls -A "$prefix")" && ! -e "$prefix/.complete" && ! -e "$prefix/.partial" ]]; then
  die "$prefix exists, is not empty and was not made by this script; refusing to overwrite it"
fi

# --------------------------------------------------------------------------
# Build dependencies.
SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install packages"
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

deps=(dpkg-dev build-essential cmake libsuitesparse-dev)
missing=()
for p in "${deps[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  log "installing build dependencies: ${missing[*]}"
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# --------------------------------------------------------------------------
# Work area (removed on exit, whatever happens).
work="$(mktemp -d "${TMPDIR:-/tmp}/chs-sundials.XXXXXX")"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# --------------------------------------------------------------------------
# Find the machine's Debian mirror URI (and its Signed-By keyring) from its
# own apt configuration: deb822 *.sources first, then one-line *.list files.
codename=bookworm
if [[ -r /etc/os-release ]]; then
  codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-bookworm}")"
fi

sl=/etc/apt/sources.list
sp=/etc/apt/sources.list.d
eval "$(apt-config shell sl Dir::Etc::sourcelist/f sp Dir::Etc::sourceparts/d 2>/dev/null || true)"
sp="${sp%/}"

mirror_uri=""
mirror_keyring=""

# deb822: print "URI<TAB>SIGNED-BY" for the first enabled stanza whose Types
# include "deb" and whose Suites include the release codename itself.
read_deb822() {
  awk -v want="$codename" '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") &&
          tolower(enabled) != "no" && uris != "") {
        split(uris, u, " "); printf "%s\t%s\n", u[1], signed; found = 1; exit
      }
      types = suites = uris = signed = enabled = ""; key = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/   { next }                        # continuation (inline key etc.)
    {
      line = $0; i = index(line, ":"); if (i == 0) next
      key = tolower(substr(line, 1, i - 1)); val = substr(line, i + 1)
      gsub(/^[ \t]+|[ \t]+$/, "", val); gsub(/[ \t]+/, " ", val)
      if (key == "types") types = val
      else if (key == "suites") suites = val
      else if (key == "uris") uris = val
      else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = val
    }
    END { if (!found) flush() }
  ' "$@" 2>/dev/null | head -n1
}

# One-line format: deb [opts] URI SUITE COMPONENTS...
read_oneline() {
  awk -v want="$codename" '
    /^[ \t]*#/ { next }
    $1 == "deb" {
      i = 2; signed = ""
      if ($2 ~ /^\[/) {
        opts = ""
        while (i <= NF) { opts = opts " " $i; if ($i ~ /\]$/) { i++; break } i++ }
        if (match(opts, /signed-by=[^] ]+/))
          signed = substr(opts, RSTART + 10, RLENGTH - 10)
      }
      if ($(i + 1) == want) { printf "%s\t%s\n", $i, signed; exit }
    }
  ' "$@" 2>/dev/null | head -n1
}

found=""
shopt -s nullglob
sources_files=("$sp"/*.sources)
list_files=()
[[ -f "$sl" ]] && list_files+=("$sl")
list_files+=("$sp"/*.list)
shopt -u nullglob
if ((${#sources_files[@]})); then
  found="$(read_deb822 "${sources_files[@]}")"
fi
if [[ -z "$found" ]] && ((${#list_files[@]})); then
  found="$(read_oneline "${list_files[@]}")"
fi
[[ -n "$found" ]] || die "no 'deb' source for suite '$codename' found in $sl or $sp/"
mirror_uri="${found%%$'\t'*}"
mirror_keyring="${found#*$'\t'}"
# Signed-By may be an inline key or a fingerprint; only a keyring file can be
# reused as-is.  Otherwise fall back to Debian's archive keyring.
if [[ -n "$mirror_keyring" && ! -f "$mirror_keyring" ]]; then
  mirror_keyring=""
fi
if [[ -z "$mirror_keyring" && -f /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
  mirror_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
fi
log "mirror from apt configuration (suite $codename): $mirror_uri${mirror_keyring:+ (keyring $mirror_keyring)}"

# --------------------------------------------------------------------------
# Private apt state: only our deb-src entry, own lists and cache.
aptdir="$work/apt"
mkdir -p "$aptdir/parts" "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$work/dl"
: >"$aptdir/sources.list"
chmod 0755 "$work"
if id _apt >/dev/null 2>&1 && [[ "$(id -u)" -eq 0 ]]; then
  # let apt's unprivileged download sandbox write there
  chown _apt "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$work/dl"
fi
APT_OPTS=(
  -o "Dir::Etc::SourceList=$aptdir/sources.list"
  -o "Dir::Etc::SourceParts=$aptdir/parts"
  -o "Dir::State::Lists=$aptdir/lists"
  -o "Dir::Cache=$aptdir/cache"
  -o "Dir::Cache::pkgcache="
  -o "Dir::Cache::srcpkgcache="
  -o "Acquire::Check-Valid-Until=false"
  -o "APT::Get::List-Cleanup=false"
)

deb_version=""
deb_suite=""
for suite in "${SUITES_TO_TRY[@]}"; do
  rm -f "$aptdir/parts/"*.sources
  {
    echo "Types: deb-src"
    echo "URIs: $mirror_uri"
    echo "Suites: $suite"
    echo "Components: main"
    [[ -n "$mirror_keyring" ]] && echo "Signed-By: $mirror_keyring"
  } >"$aptdir/parts/chs-${suite}-src.sources"
  log "looking for sundials ${SUNDIALS_VERSION} in $suite (deb-src)"
  if ! apt-get "${APT_OPTS[@]}" update; then
    log "apt-get update for $suite failed; trying the next suite"
    continue
  fi
  versions="$(apt-cache "${APT_OPTS[@]}" showsrc sundials 2>/dev/null | sed -n 's/^Version: //p' | sort -uV)"
  log "$suite carries sundials source version(s): ${versions//$'\n'/ }"
  v="$(printf '%s\n' "$versions" | grep -E "^([0-9]+:)?${SUNDIALS_VERSION//./\\.}([+~-]|$)" | tail -n1 || true)"
  if [[ -n "$v" ]]; then
    deb_version="$v"
    deb_suite="$suite"
    break
  fi
done
[[ -n "$deb_version" ]] || die "none of ${SUITES_TO_TRY[*]} carries a sundials ${SUNDIALS_VERSION} source package"
log "using Debian source package sundials=$deb_version from $deb_suite"

(cd "$work/dl" && apt-get "${APT_OPTS[@]}" source --download-only "sundials=$deb_version")
dscs=("$work/dl"/sundials_*.dsc)
dsc="${dscs[0]}"
[[ -f "$dsc" ]] || die "apt-get source did not produce a .dsc"

srcdir="$work/src"
if ! dpkg-source -x "$dsc" "$srcdir"; then
  log "dpkg-source -x with Debian patches failed; retrying without patches"
  rm -rf "$srcdir"
  dpkg-source -x --skip-patches "$dsc" "$srcdir"
fi
src_ver="$(sed -n 's/^set(PACKAGE_VERSION_\(MAJOR\|MINOR\|PATCH\) "\([0-9]*\)")/\2/p' "$srcdir/CMakeLists.txt" | paste -sd.)"
[[ "$src_ver" == "$SUNDIALS_VERSION" ]] ||
  die "unpacked source is SUNDIALS '$src_ver', expected ${SUNDIALS_VERSION}"

# --------------------------------------------------------------------------
# Configure, build, install.
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
klu_inc=/usr/include/suitesparse
klu_lib="/usr/lib/$multiarch"
[[ -f "$klu_inc/klu.h" ]] || die "$klu_inc/klu.h not found (libsuitesparse-dev)"

jobs="${CHS_JOBS:-2}"
builddir="$work/build"

# Start from an empty prefix (a partial install from an interrupted run
# must not survive); the guard above keeps foreign directories safe.
rm -rf "$prefix"
mkdir -p "$prefix"
: >"$prefix/.partial"

cmake_args=(
  -S "$srcdir" -B "$builddir"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX="$prefix"
  -DCMAKE_INSTALL_LIBDIR=lib
  -DBUILD_SHARED_LIBS=ON
  -DBUILD_STATIC_LIBS=OFF
  -DBUILD_ARKODE=ON
  -DBUILD_CVODE=ON
  -DBUILD_IDA=ON
  -DBUILD_CVODES=OFF
  -DBUILD_IDAS=OFF
  -DBUILD_KINSOL=OFF
  -DBUILD_FORTRAN_MODULE_INTERFACE=OFF
  -DBUILD_BENCHMARKS=OFF
  -DEXAMPLES_ENABLE_C=OFF
  -DEXAMPLES_ENABLE_CXX=OFF
  -DEXAMPLES_INSTALL=OFF
  -DSUNDIALS_TEST_UNITTESTS=OFF
  -DSUNDIALS_PRECISION=DOUBLE
  -DSUNDIALS_INDEX_SIZE=64
  -DENABLE_MPI=OFF
  -DENABLE_OPENMP=OFF
  -DENABLE_PTHREAD=OFF
  -DENABLE_LAPACK=OFF
  -DENABLE_KLU=ON
  -DKLU_INCLUDE_DIR="$klu_inc"
  -DKLU_LIBRARY_DIR="$klu_lib"
)
log "configuring: cmake ${cmake_args[*]}"
cmake "${cmake_args[@]}"
log "building with -j$jobs"
cmake --build "$builddir" -j"$jobs"
cmake --install "$builddir"

# Sanity checks on what was installed.
cfg="$(find "$prefix" -name SUNDIALSConfig.cmake -print -quit)"
[[ -n "$cfg" ]] || die "SUNDIALSConfig.cmake was not installed under $prefix"
grep -q "define SUNDIALS_VERSION \"${SUNDIALS_VERSION}\"" "$prefix/include/sundials/sundials_config.h" ||
  die "installed sundials_config.h is not version ${SUNDIALS_VERSION}"
grep -q 'define SUNDIALS_INT64_T 1' "$prefix/include/sundials/sundials_config.h" ||
  die "installed SUNDIALS does not use 64-bit indices"
[[ -f "$prefix/include/sunlinsol/sunlinsol_klu.h" ]] || die "KLU linear solver was not installed"

{
  echo "build-rev=${BUILD_REV}"
  echo "debian-source=sundials_${deb_version}"
  echo "debian-suite=${deb_suite}"
  echo "config=${cfg}"
  echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - start_ts))s"
} >"$prefix/.complete"
rm -f "$prefix/.partial"
log "SUNDIALS ${SUNDIALS_VERSION} (Debian $deb_version from $deb_suite) installed in $prefix in $((SECONDS - start_ts))s"
finish

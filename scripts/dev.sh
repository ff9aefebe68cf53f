#!/usr/bin/env bash
# BLAScope developer entry point: installs what is missing, configures, builds, runs or tests.
#   scripts/dev.sh run [--headless]   set up, build, start the GUI (or the CLI) on the demo
#   scripts/dev.sh test               set up, build, run the whole test suite with ctest
#   scripts/dev.sh build              set up and build only
#   scripts/dev.sh gpu-test           on a machine with a GPU: build, run the GPU tests and
#                                     the GEMM/DLASCL scenarios on CPU and GPU side by side
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BLASSCOPE_BUILD_DIR:-$ROOT/build}"

# Every build and test dependency, as Debian 12 package names.
PACKAGES=(
  cmake ninja-build g++ pkg-config ccache git
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libopenblas-dev liblapacke-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libzip-dev zlib1g-dev libhdf5-dev libfmt-dev
  python3 python3-numpy
  xvfb xauth
)

usage() {
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || echo "$pkg"
  done
}

install_packages() {
  local missing
  mapfile -t missing < <(missing_packages)
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "dev.sh: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
      return
    fi
    echo "dev.sh: not root; run this first, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

configure() {
  local args=(-S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release)
  command -v ccache >/dev/null 2>&1 && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake "${args[@]}"
}

build() {
  install_packages
  configure
  cmake --build "$BUILD" --parallel "$(nproc)"
}

has_display() {
  [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]
}

run_demo() {
  local demo="$BUILD/demo"
  /usr/bin/python3 "$ROOT/scripts/make_demo_tensors.py" "$demo"
  if [ "${1:-}" = "--headless" ]; then
    local f
    for f in "$demo"/*; do
      echo "== blasscope-cli inspect $f"
      "$BUILD/bin/blasscope-cli" inspect "$f" || true
    done
    for f in "$ROOT"/resources/workloads/*.json; do
      echo "== blasscope-cli run $f"
      "$BUILD/bin/blasscope-cli" run "$f" || true
    done
    echo "== blasscope-cli scenarios"
    "$BUILD/bin/blasscope-cli" scenarios
    local id
    for id in nan-svd nan-lstsq rowmajor-lda buffer-overrun-crash seed-000-1-custom-layer-dtypes; do
      echo "== blasscope-cli run $id"
      "$BUILD/bin/blasscope-cli" run "$id" || true
    done
    return
  fi
  if ! has_display; then
    echo "dev.sh: no display (DISPLAY and WAYLAND_DISPLAY are unset), so running the demo headless." >&2
    echo "        For the GUI, run this from a desktop session, or see it under a virtual display:" >&2
    echo "        xvfb-run -a $BUILD/bin/blasscope --scenario nan-svd --run cpu --screenshot shots/" >&2
    run_demo --headless
    return
  fi
  echo "dev.sh: starting the GUI: click a scenario in the gallery to run it, or open a demo tensor file from $demo"
  exec "$BUILD/bin/blasscope"
}

run_tests() {
  export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
  ctest --test-dir "$BUILD" --output-on-failure --timeout 900 -j "$(nproc)"
}

run_gpu_tests() {
  if [ ! -f "$BUILD/lib/libblasscope_gpu.so" ]; then
    echo "dev.sh: the GPU plugin was not built (no CUDA toolkit found at configure time)" >&2
    exit 1
  fi
  ctest --test-dir "$BUILD" --output-on-failure -L gpu
  echo "== CPU and GPU side by side"
  local id
  for id in healthy-baseline misaligned-vs-aligned ld-aliasing-vs-padded seed-001-2-large-matmul dlascl-cfrom-zero; do
    "$BUILD/bin/blasscope-cli" run "$id" --device both --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
gpu = r["environment"]["gpu"]
print(r["workload"], "| GPU:", gpu.get("device", {}).get("name") or gpu.get("reason"))
for c in r["comparisons"]:
    print("  op %d: cpu %.3f ms, gpu %.3f ms, speed-up %.1fx, max rel diff %.2e (tolerance %.1e) %s" % (
        c["op"], (c["cpu_seconds"] or 0) * 1e3, (c["gpu_seconds"] or 0) * 1e3, c["speedup"] or 0,
        c["max_rel_diff"], c["tolerance"], "agree" if c["agree"] else "DISAGREE"))
' || true
  done
}

main() {
  local cmd="${1:-}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    run) build; run_demo "$@" ;;
    test) build; run_tests ;;
    build) build ;;
    gpu-test) build; run_gpu_tests ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"

#!/usr/bin/env bash
# BLAScope developer entry point: installs what is missing, configures, builds, runs or tests.
#   scripts/dev.sh run [--headless]   set up, build, start the GUI (or the CLI) on the demo
#   scripts/dev.sh test               set up, build, run the whole test suite with ctest
#   scripts/dev.sh build              set up and build only
#   scripts/dev.sh fuzz [SECONDS]     build the libFuzzer harnesses (clang) and run each one for
#                                     SECONDS (default 60) from seeds the test generators make;
#                                     crashes land in build-fuzz/crashes/NAME/
#   scripts/dev.sh sanitize [--ci]    ASan + UBSan build in build-sanitize/ (BLASSCOPE_SANITIZE_BUILD_DIR)
#                                     and every test under it; --ci: the core and e2e tests only,
#                                     which `test` also runs when CI=true
#   scripts/dev.sh gpu-test           on a machine with a GPU: build, run the GPU tests, the GPU
#                                     benchmark, the scenarios on CPU and GPU side by side, and
#                                     record cuBLAS and PyTorch programs
#   scripts/dev.sh gpu-bundle [DIR]   build here and pack what gpu-test needs (binaries, their
#                                     libraries, Qt's offscreen plugin, a font) into DIR
#                                     (default .gpu-bundle), for a GPU machine that cannot install
#                                     Debian packages: there run `. DIR/env.sh; scripts/dev.sh gpu-test`
set -euo pipefail

EXTRA_PACKAGES=()
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BLASSCOPE_BUILD_DIR:-$ROOT/build}"

# Every build and test dependency, as Debian 12 package names.
PACKAGES=(
  cmake ninja-build g++ pkg-config ccache git
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libopenblas-dev liblapacke-dev libblas3 liblapack3
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libzip-dev zlib1g-dev libhdf5-dev libfmt-dev
  python3 python3-numpy python3-scipy python3-torch python3-h5py
  xvfb xauth
)

# Only `fuzz` needs these: clang and its libFuzzer/sanitizer runtimes.
FUZZ_PACKAGES=(clang libclang-rt-14-dev)
FUZZ_HARNESSES=(npy npz safetensors tensor_file python_literal workload session recording triage pytorch pickle shard_index hdf5)

usage() {
  sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed -n 's/^# \{0,1\}//p'
}

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}" "${EXTRA_PACKAGES[@]}"; do
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
  apt-get update || {
    echo "dev.sh: apt-get cannot reach the package archive; on a machine without network, use a bundle" >&2
    echo "        built elsewhere: scripts/dev.sh gpu-bundle (see its help)" >&2
    exit 1
  }
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

SANITIZE_BUILD="${BLASSCOPE_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
# What CI runs under the sanitizers (`sanitize --ci`): the core and end-to-end suites, which
# drive the CLI and worker through every reader, op and crash path. The GUI's build and tests
# are left to a run by hand: on two cores they take it from about 12 to 18 minutes.
SANITIZE_CI_LABELS='^(core|e2e)$'

# Options for every instrumented process the tests start, the worker under the CLI under Python
# included. Reports go to files rather than stderr, so one in a grandchild whose exit status a
# test accepts still fails the run.
export_sanitizer_options() {
  local logs="$1"
  export BLASSCOPE_SANITIZED=1  # tests that set RLIMIT_AS use ASan's own cap instead
  # handle_segv=0, handle_sigbus=0: a worker killed by SIGSEGV or SIGBUS (a guard page, a bad
  # pointer handed to OpenBLAS, a read past the end of a mapped file) is something BLAScope
  # reports, so the signal must reach its default action.
  export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:log_path=$logs/asan"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
  # libhdf5's own leaks on files it cannot read are not ours; any other leak is still a report.
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan_suppressions.txt"
}

run_sanitize() {
  local ci=0
  case "${1:-}" in
    --ci) ci=1 ;;
    "") ;;
    *) usage >&2; return 2 ;;
  esac
  local logs="$SANITIZE_BUILD/sanitizer-logs" started=$SECONDS
  local args=(-S "$ROOT" -B "$SANITIZE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBLASSCOPE_SANITIZE=ON)
  command -v ccache >/dev/null 2>&1 && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  local ctest_args=(--test-dir "$SANITIZE_BUILD" --output-on-failure --timeout 900 -j "$(nproc)")
  local scope="everything"
  if [ "$ci" = 1 ]; then
    args+=(-DBLASSCOPE_BUILD_GUI=OFF)
    ctest_args+=(-L "$SANITIZE_CI_LABELS")
    scope="CI subset: no GUI, core and e2e tests"
  else
    args+=(-DBLASSCOPE_BUILD_GUI=ON)
  fi
  echo "==== sanitize: ASan + UBSan build in $SANITIZE_BUILD ($scope)"
  install_packages
  rm -rf "$logs" && mkdir -p "$logs"
  export_sanitizer_options "$logs"  # the build runs test_core to list its tests
  local build="ok" tests="not run"
  cmake "${args[@]}" && cmake --build "$SANITIZE_BUILD" --parallel "$(nproc)" || build="FAILED"
  local built=$SECONDS
  if [ "$build" = ok ]; then
    echo "==== sanitize: tests ($scope)"
    tests="passed"
    QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" ctest "${ctest_args[@]}" || tests="FAILED"
  fi
  local reports=("$logs"/*)
  [ -e "${reports[0]}" ] || reports=()
  local report
  for report in "${reports[@]}"; do
    echo "==== sanitize: report $report"
    head -n 60 "$report"
  done
  echo "==== sanitize summary ($scope): build $build ($((built - started)) s), tests $tests" \
       "($((SECONDS - built)) s), ${#reports[@]} sanitizer report(s)"
  [ "$build" = ok ] && [ "$tests" = passed ] && [ "${#reports[@]}" -eq 0 ]
}

# The shared libraries an ELF file needs beyond the C runtime and CUDA (which the GPU machine has).
bundled_libraries() {
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libresolv|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas(Lt)?|libcupti|libnvrtc)\.so'
}

make_gpu_bundle() {
  local dest="${1:-$ROOT/.gpu-bundle}"
  local qt_plugins
  qt_plugins="$(dirname "$(dpkg -L qt6-base-dev 2>/dev/null | grep -m1 '/plugins/platforms/' || echo /usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/x)")"
  [ -f "$BUILD/lib/libblasscope_gpu.so" ] || { echo "dev.sh: the GPU plugin was not built (no CUDA toolkit found)" >&2; exit 1; }
  rm -rf "$dest"
  mkdir -p "$dest/build/bin" "$dest/build/lib" "$dest/libs" "$dest/qt/platforms" "$dest/fonts"
  local exe
  for exe in blasscope blasscope-cli blasscope-cli-tools blasscope-worker blasscope-bench-gpu test_gpu_device; do
    cp "$BUILD/bin/$exe" "$dest/build/bin/"
  done
  cp "$BUILD/lib/libblasscope_gpu.so" "$BUILD/lib/libblasscope-preload.so" "$dest/build/lib/"
  cp "$qt_plugins/libqoffscreen.so" "$dest/qt/platforms/"
  local lib
  for lib in $(bundled_libraries "$dest"/build/bin/* "$dest"/build/lib/*.so "$dest"/qt/platforms/*.so); do
    cp -L "$lib" "$dest/libs/"
  done
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf "$dest/fonts/"
  cat >"$dest/fonts/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir prefix="relative">.</dir><cachedir>/tmp/blasscope-fontconfig</cachedir></fontconfig>
CONF
  cat >"$dest/env.sh" <<'ENV'
# Source this on the GPU machine: it points BLAScope's scripts and binaries at this bundle.
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cuda_dirs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && cuda_dirs="$cuda_dirs:$d"
done
export LD_LIBRARY_PATH="$BUNDLE/libs$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$BUNDLE/qt" FONTCONFIG_FILE="$BUNDLE/fonts/fonts.conf"
export BLASSCOPE_BUILD_DIR="$BUNDLE/build" BLASSCOPE_PREBUILT=1
export BLASSCOPE_GPU_PLUGIN="$BUNDLE/build/lib/libblasscope_gpu.so"
ENV
  du -sh "$dest"
  echo "dev.sh: GPU bundle in $dest; on the GPU machine: . $(basename "$dest")/env.sh && scripts/dev.sh gpu-test"
}

run_gpu_tests() {
  if [ ! -f "$BUILD/lib/libblasscope_gpu.so" ]; then
    echo "dev.sh: the GPU plugin was not built (no CUDA toolkit found at configure time)" >&2
    exit 1
  fi
  local status=0
  echo "== GPU device tests"
  "$BUILD/bin/test_gpu_device" || status=1
  echo "== GPU benchmark"
  "$BUILD/bin/blasscope-bench-gpu" || status=1
  echo "== CPU and GPU side by side"
  local id
  for id in healthy-baseline misaligned-vs-aligned ld-aliasing-vs-padded seed-001-2-large-matmul dlascl-cfrom-zero; do
    "$BUILD/bin/blasscope-cli" run "$id" --device both --json | python3 -c '
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
  local shots="${BLASSCOPE_GPU_SHOTS:-$BUILD/gpu-shots}"
  mkdir -p "$shots"
  echo "== Recording cuBLAS programs (blasscope-cli record) on the GPU"
  python3 "$ROOT/tests/e2e/test_record_cli.py" "$BUILD/bin/blasscope-cli" RecordCuBlas || status=1
  echo "== Recording a PyTorch program's GPU matrix products (session in $shots/torch-gpu.json)"
  "$BUILD/bin/blasscope-cli" record --output "$shots/torch-gpu.json" -- python3 -c '
import torch
if not torch.cuda.is_available():
    raise SystemExit("torch sees no GPU")
a = torch.randn(1024, 1024, device="cuda")
for dtype in (torch.float32, torch.float64, torch.float16):
    x = a.to(dtype)
    y = x @ x
    z = torch.bmm(x.expand(4, -1, -1), x.expand(4, -1, -1))
torch.cuda.synchronize()
print("torch", torch.__version__, "products done")
' || echo "dev.sh: the PyTorch GPU program could not be recorded (see above)" >&2
  if [ -f "$shots/torch-gpu.json" ]; then
    "$BUILD/bin/blasscope-cli" report "$shots/torch-gpu.json" --format md | head -40
    QT_QPA_PLATFORM=offscreen "$BUILD/bin/blasscope" "$shots/torch-gpu.json" --size 1280x800 \
      --screenshot "$shots/torch-gpu" || echo "dev.sh: screenshots of the PyTorch recording FAILED" >&2
  fi
  echo "== GUI screenshots of --device both runs (offscreen) in $shots"
  for id in seed-001-2-large-matmul dlascl-cfrom-zero; do
    QT_QPA_PLATFORM=offscreen "$BUILD/bin/blasscope" --scenario "$id" --run both --size 1280x800 \
      --screenshot "$shots/$id" || { echo "dev.sh: screenshots of $id FAILED" >&2; status=1; }
  done
  [ "$status" = 0 ] || echo "dev.sh: gpu-test FAILED (see above)" >&2
  return "$status"
}

# Seeds for each harness, made as the tests make their inputs: NumPy-written tensor files and
# the malformed ones, the built-in workloads, sessions of real runs, a recording of NumPy.
make_fuzz_seeds() {
  local seeds="$1" py=/usr/bin/python3 cli="$BUILD/bin/blasscope-cli" h
  rm -rf "$seeds"
  for h in "${FUZZ_HARNESSES[@]}"; do mkdir -p "$seeds/$h"; done
  local files="$seeds/.generated"
  mkdir -p "$files"
  "$py" "$ROOT/tests/data/make_tensor_files.py" "$files/good" >/dev/null
  "$py" "$ROOT/tests/data/make_malformed_files.py" "$files/bad" >/dev/null
  find "$files" -type f -size -1024k -name '*.npy' -exec cp -t "$seeds/npy" {} +
  find "$files" -type f -size -1024k -name '*.npz' -exec cp -t "$seeds/npz" {} +
  find "$files" -type f -size -1024k -name '*.safetensors' -exec cp -t "$seeds/safetensors" {} +
  "$py" "$ROOT/tests/data/make_torch_files.py" "$files/torch" >/dev/null
  "$py" "$ROOT/tests/data/make_hdf5_files.py" "$files/hdf5" >/dev/null
  find "$files/hdf5" -type f -size -1024k \( -name '*.h5' -o -name '*.keras' \) -exec cp -t "$seeds/hdf5" {} +
  find "$files" -type f -size -1024k ! -name '*.json' -exec cp -t "$seeds/tensor_file" {} +
  find "$files/torch" -type f \( -name '*.pt' -o -name '*.pth' \) -exec cp -t "$seeds/pytorch" {} +
  "$py" - "$files/torch" "$seeds/pickle" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1:]
for name in sorted(os.listdir(src)):
    if zipfile.is_zipfile(os.path.join(src, name)):
        with zipfile.ZipFile(os.path.join(src, name)) as z:
            for member in z.namelist():
                if member.endswith("/data.pkl"):
                    open(os.path.join(dst, name + ".pkl"), "wb").write(z.read(member))
PY
  "$py" - "$seeds/npy" "$seeds/python_literal" <<'PY'
import os, sys
src, dst = sys.argv[1:]
for name in sorted(os.listdir(src)):
    data = open(os.path.join(src, name), "rb").read()
    if data[:6] == b"\x93NUMPY" and len(data) > 10:
        size = int.from_bytes(data[8:10] if data[6] == 1 else data[8:12], "little")
        start = 10 if data[6] == 1 else 12
        open(os.path.join(dst, name + ".txt"), "wb").write(data[start:start + size])
PY
  # shard_index: the generator's indexes, and indexes naming the harness's own shard files.
  "$py" "$ROOT/tests/data/make_sharded_files.py" "$files/sharded" >/dev/null
  find "$files/sharded" -type f -size -1024k -name '*.index.json' | while read -r f; do
    cp "$f" "$seeds/shard_index/$(echo "${f#"$files"/sharded/}" | tr / _)"
  done
  "$py" - "$seeds/shard_index" <<'PY'
import json, os, sys
one, two = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
good = {"a": one, "b": one, "c": two, "d": two}
seeds = {
    "harness_good.json": {"metadata": {"total_size": 34}, "weight_map": good},
    "harness_sub.json": {"weight_map": dict(good, e="sub/model.safetensors")},
    "harness_truncated.json": {"weight_map": dict(good, f="truncated.safetensors")},
    "harness_self.json": {"weight_map": {"a": "model.safetensors.index.json"}},
    "harness_unlisted.json": {"metadata": {"total_size": 7, "format": "pt"}, "weight_map": {"a": one, "c": two}},
}
for name, index in seeds.items():
    with open(os.path.join(sys.argv[1], name), "w") as out:
        json.dump(index, out)
PY
  cp "$ROOT"/resources/scenarios/*.json "$ROOT"/resources/workloads/*.json "$seeds/workload/"
  cp "$ROOT"/tests/data/error_texts/*.txt "$seeds/triage/"
  for h in nan-svd rowmajor-lda buffer-overrun-crash float16-cast-overflow healthy-baseline; do
    "$cli" run "$h" --session "$seeds/session/$h.json" >/dev/null 2>&1 || true
  done
  # Few calls listed inside each call: the seed has "unlisted" counts and a "nested_limit".
  "$cli" record --nested-calls 8 --output "$seeds/recording/numpy.json" -- "$py" -c \
    'import numpy as np; a = np.random.rand(40, 30); np.linalg.svd(a); a @ a.T; a[3, 2] = np.nan; np.linalg.lstsq(a, a[:, 0], rcond=None)' \
    >/dev/null 2>&1 || true
  rm -rf "$files"
  # The JSON harnesses mutate faster from the keys and names their seeds use (libFuzzer -dict).
  "$py" - "$seeds" workload session recording shard_index <<'PY'
import json, os, sys
root = sys.argv[1]
for harness in sys.argv[2:]:
    tokens = set()
    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                tokens.add(key)
                walk(item)
        elif isinstance(value, list):
            for item in value[:50]:
                walk(item)
        elif isinstance(value, str) and len(value) < 40:
            tokens.add(value)
    for name in os.listdir(os.path.join(root, harness)):
        try:
            walk(json.load(open(os.path.join(root, harness, name))))
        except (ValueError, OSError):
            pass
    with open(os.path.join(root, harness + ".dict"), "w") as out:
        for token in sorted(tokens):
            # libFuzzer's dictionary syntax knows only \\, \" and \xNN escapes.
            if token.isascii() and token.isprintable() and "\\" not in token:
                out.write('"\\"' + token.replace('"', '\\"') + '\\""\n')
PY
  for h in "${FUZZ_HARNESSES[@]}"; do
    printf '  %-14s %3d seeds\n' "$h" "$(find "$seeds/$h" -type f | wc -l)"
  done
}

# Builds the harnesses with clang (libFuzzer, ASan, UBSan) and runs each for $1 seconds. The
# corpus grows across runs in build-fuzz/corpus; what crashed is kept in build-fuzz/crashes.
run_fuzz() {
  local seconds="${1:-60}" fuzz_build="${BLASSCOPE_FUZZ_DIR:-$ROOT/build-fuzz}" h status=0
  [[ "$seconds" =~ ^[0-9]+$ ]] || { echo "dev.sh: fuzz takes a number of seconds, not '$seconds'" >&2; exit 2; }
  local args=(-S "$ROOT" -B "$fuzz_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLASSCOPE_FUZZ=ON
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
  command -v ccache >/dev/null 2>&1 && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake "${args[@]}" >/dev/null
  cmake --build "$fuzz_build" --parallel "$(nproc)"
  echo "== seeds"
  make_fuzz_seeds "$fuzz_build/seeds"
  for h in "${FUZZ_HARNESSES[@]}"; do
    local corpus="$fuzz_build/corpus/$h" crashes="$fuzz_build/crashes/$h" log="$fuzz_build/logs/$h.log"
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    echo "== fuzz_$h for ${seconds}s"
    # A reader must refuse within 10 s and 2 GiB whatever the input; slower or bigger is a finding.
    local dict=()
    [ -f "$fuzz_build/seeds/$h.dict" ] && dict=(-dict="$fuzz_build/seeds/$h.dict")
    # libhdf5 (not instrumented) leaks in its own error paths on malformed files: not ours to find.
    # Its leaks are suppressed (every harness that can reach it: hdf5, tensor_file); all others fail.
    if LSAN_OPTIONS="suppressions=$ROOT/tests/lsan_suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
        "$fuzz_build/bin/fuzz_$h" "$corpus" "$fuzz_build/seeds/$h" "${dict[@]}" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -artifact_prefix="$crashes/" \
        -print_final_stats=1 >"$log" 2>&1; then
      echo "   clean: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs," \
        "$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1), corpus $(find "$corpus" -type f | wc -l) files"
    else
      status=1
      echo "   FAILED: $(grep -m1 -E 'ERROR: |runtime error|==ERROR' "$log" || tail -1 "$log")"
      echo "   input kept in $crashes/; log: $log"
    fi
  done
  [ "$status" = 0 ] && echo "dev.sh: every harness ran ${seconds}s clean" || echo "dev.sh: fuzz FAILED (see above)" >&2
  return "$status"
}

main() {
  local cmd="${1:-}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    run) build; run_demo "$@" ;;
    test)
      build
      local status=0
      run_tests || status=1
      # CI also runs the sanitizer subset, whether or not the normal suite passed.
      if [ "${CI:-}" = true ]; then
        run_sanitize --ci || status=1
      fi
      return "$status"
      ;;
    build) build ;;
    fuzz) EXTRA_PACKAGES=("${FUZZ_PACKAGES[@]}"); build; run_fuzz "$@" ;;
    sanitize) run_sanitize "$@" ;;
    gpu-test)
      # A prebuilt bundle (gpu-bundle) serves GPU machines that cannot install packages.
      if [ "${BLASSCOPE_PREBUILT:-0}" = 1 ] && [ -x "$BUILD/bin/blasscope-cli" ] && [ -x "$BUILD/bin/blasscope-cli-tools" ]; then
        echo "dev.sh: using the prebuilt binaries in $BUILD"
      else
        build
      fi
      run_gpu_tests
      ;;
    gpu-bundle) build; make_gpu_bundle "$@" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"

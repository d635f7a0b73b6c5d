#!/usr/bin/env bash
# spbfs.csgraph on a GPU: the gpu-marked csgraph tests, scipy's own csgraph test modules
# with cupy / cupyx inputs, and benchmarks/bench_csgraph.py with spbfs on the GPU against
# scipy on the host.
#
# Run from the repository root on a machine with a CUDA GPU and CuPy:
#     bash tests/gpu/device_csgraph.sh               # all three phases
#     bash tests/gpu/device_csgraph.sh tests suite   # some of them
#     SCALE=20 REPEAT=1 bash tests/gpu/device_csgraph.sh bench
# Phases: tests (tests/gpu/test_csgraph_gpu.py and tests/test_csgraph.py's gpu test),
# suite (scipy's modules, SPBFS_SUITE_DEVICE=cupy: every input that can live on the device
# is given as cupy / cupyx, results must come back as device types), bench (SCALE, default
# 20; scipy's bellman_ford and johnson are left out: they take minutes from scale 16).
# SUITE_MODULES picks some of scipy's modules (default: "traversal shortest_path
# connected_components spanning_tree reordering flow matching graph_laplacian conversions"),
# to split the suite over runs of a limited length.
# Each phase runs under a time limit (LIMIT seconds, default 540) and prints its wall time;
# reports (the suite's call counts) go to $OUT (default: a temporary folder).  The exit
# status is non-zero when a phase failed.
set -u
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
OUT=${OUT:-$(mktemp -d)}
LIMIT=${LIMIT:-540}
SCALE=${SCALE:-20}
REPEAT=${REPEAT:-1}
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(tests suite bench)
status=0

"$PY" - <<'EOF'
import cupy, numpy, scipy
print("cupy", cupy.__version__, "numpy", numpy.__version__, "scipy", scipy.__version__)
print("device:", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
EOF

run_phase() {
    local name=$1
    shift
    echo
    echo "=== $name: $*"
    local start=$SECONDS
    timeout "$LIMIT" "$@"
    local rc=$?
    echo "=== $name: exit $rc after $((SECONDS - start)) s"
    [ $rc -ne 0 ] && status=1
    return 0
}

for phase in "${phases[@]}"; do
    case $phase in
    tests)
        run_phase tests "$PY" -m pytest -q -rfE -m gpu \
            tests/gpu/test_csgraph_gpu.py "tests/test_csgraph.py::test_gpu_matches_cpu"
        ;;
    suite)
        tests_dir=$("$PY" -c "import pathlib, scipy.sparse.csgraph as c; \
print(pathlib.Path(c.__file__).resolve().parent / 'tests')")
        modules=()
        for m in ${SUITE_MODULES:-traversal shortest_path connected_components spanning_tree \
                 reordering flow matching graph_laplacian conversions}; do
            modules+=("$tests_dir/test_$m.py")
        done
        SPBFS_SUITE_DEVICE=cupy SPBFS_SUITE_REPORT="$OUT/suite_device.json" \
            PYTHONPATH="tests/scipy_suite:$PYTHONPATH" \
            run_phase suite "$PY" -m pytest -q -rfE -p spbfs_scipy_plugin -p no:cacheprovider \
            -c tests/scipy_suite/suite.ini --rootdir "$tests_dir" "${modules[@]}"
        "$PY" - "$OUT/suite_device.json" <<'EOF'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except OSError:
    sys.exit("no report written")
calls, device = data["calls"], data["device_calls"]
print(f"{len(data['per_test'])} tests; calls to spbfs.csgraph (with device inputs / all):")
for name in sorted(calls):
    print(f"  {name:36s} {device[name]:6d} / {calls[name]:6d}")
EOF
        ;;
    bench)
        run_phase bench "$PY" benchmarks/bench_csgraph.py --device gpu --scales "$SCALE" \
            --repeat "$REPEAT" --skip bellman_ford johnson
        ;;
    *)
        echo "unknown phase $phase (tests, suite, bench)"
        status=1
        ;;
    esac
done
echo
echo "reports in $OUT"
exit $status

#!/usr/bin/env bash
# GAP's six kernels against spbfs on a machine's CPU cores (issue 57's scale 22 on the 16
# cores of the device host), both with every core: builds GAP from its source in GAP_DIR,
# makes GAP's graphs with its converter (benchmarks/bench_gap.py does, once per scale),
# then runs bench_gap.py.
#
# GAP is never part of spbfs: fetch its source beside the checkout first (`git clone
# https://github.com/sbeamer/gapbs`); on a lent GPU machine (no network) copy its `src/`,
# `Makefile`, `benchmark/`, `test/test.mk` and `LICENSE` into an ignored folder and carry it, e.g. `.devcarry/gapbs` with
# the device tool's carry [".devcarry"].
#
#     GAP_DIR=.devcarry/gapbs SCALES="22" REPS=2 bash benchmarks/device_gap.sh
#     KERNELS="sssp pr" THREADS=16 bash benchmarks/device_gap.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAP_DIR=${GAP_DIR:-.devcarry/gapbs}
SCALES=${SCALES:-22}
REPS=${REPS:-2}
THREADS=${THREADS:-$(nproc)}
PY=${PYTHON:-python3}
echo "GAP: $GAP_DIR, scales $SCALES, $THREADS threads, $(nproc) cores"
make -C "$GAP_DIR" -j "$THREADS" bfs sssp pr cc bc tc converter > /dev/null
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" SPBFS_NUM_THREADS=$THREADS
# shellcheck disable=SC2086
"$PY" benchmarks/bench_gap.py --gap "$GAP_DIR" --scales $SCALES --reps "$REPS" \
    --threads "$THREADS" ${KERNELS:+--kernels $KERNELS}

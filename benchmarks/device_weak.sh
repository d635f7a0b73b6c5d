#!/usr/bin/env bash
# Issue 33's weak-scaling runs on one multi-GPU machine, in one job (one rank per GPU):
# the single GPU at the base scale, then NG GPUs at base + log2(NG).
# Usage: bash benchmarks/device_weak.sh NG BASE [checks] [graph500] [algorithms]
# Output: the console, and $OUT/*.txt when OUT is set.
set -u
NG=${1:-2}
BASE=${2:-26}
shift 2
WHAT=${*:-checks graph500 algorithms}
SCALE=$((BASE + $(python3 -c "import math; print(int(round(math.log2($NG))))")))
export NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PYTHONPATH -x PYTHONUNBUFFERED -n $NG"
OUTDIR=${OUT:-/tmp}
nvidia-smi -L
git log -1 --format='commit %H' 2>/dev/null || true
status=0
step() {   # step NAME TIMEOUT COMMAND...: run, keep the output, report rc
  local name=$1 limit=$2; shift 2
  echo "=== $name: $*"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUTDIR/$name.txt" 2>&1
  local rc=$?
  grep -v "^\s*$" "$OUTDIR/$name.txt" | tail -n 25
  echo "--- $name rc=$rc in $((SECONDS - t0)) s"
  [ "$rc" = 0 ] || status=1
}
for w in $WHAT; do
  case $w in
    checks)
      step check_ops 200 $RUN python3 -m mpi4py tests/mpi/check_algebra.py ops gpu nccl
      step check_algorithms 300 $RUN python3 -m mpi4py tests/mpi/check_algebra.py algorithms gpu nccl
      step check_bfs 150 $RUN python3 -m mpi4py tests/mpi/check_bfs.py bfs gpu nccl ;;
    graph500)
      step graph500_single 300 python3 -m spbfs graph500 --scale "$BASE" --device gpu --no-progress
      step graph500_dist 400 $RUN python3 -m mpi4py -m spbfs graph500 --scale "$SCALE" --dist --device gpu --no-progress ;;
    algorithms)
      step algorithms 560 $RUN python3 -m mpi4py benchmarks/bench_dist.py --algorithms --scales "$BASE" --roots 4 --device gpu ;;
  esac
done
exit $status

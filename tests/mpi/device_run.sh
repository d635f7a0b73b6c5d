#!/usr/bin/env bash
# spbfs.dist on a GPU machine (one rank per GPU): correctness, then the weak-scaling benchmark.
# Usage: bash tests/mpi/device_run.sh NGPU "BASE_SCALES" ROOTS [all|checks|bench|benchp]
# (benchp: the benchmark at P=NGPU only)
# Writes bench rows to $OUT/bench.jsonl when OUT is set.  Env: DEV (gpu), PLANES for P>1.
set -u
NG=${1:-2}
SCALES=${2:-"24 26"}
ROOTS=${3:-16}
WHAT=${4:-all}
DEV=${DEV:-gpu}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
export OMPI_MCA_btl_vader_single_copy_mechanism=none
OUTDIR=${OUT:-/tmp}
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PYTHONPATH -x PYTHONUNBUFFERED -n"
else
  RUN="mpirun -n"
fi
[ "$DEV" = gpu ] && nvidia-smi -L
[ "$DEV" = gpu ] && python3 -c "import cupy, mpi4py, numpy; print('cupy', cupy.__version__, 'mpi4py', mpi4py.__version__, 'numpy', numpy.__version__); from cupy.cuda import nccl; print('nccl', nccl.get_version()); from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"
status=0
if [ "$WHAT" = all ] || [ "$WHAT" = checks ]; then
  for args in "bfs $DEV nccl" "bfs $DEV mpi" "tiny $DEV nccl" "harness $DEV nccl"; do
    echo "=== check_bfs $args on $NG GPUs"
    timeout 150 $RUN "$NG" python3 -m mpi4py tests/mpi/check_bfs.py $args 2>&1 | tail -n 12
    rc=${PIPESTATUS[0]}; echo "rc=$rc"; [ "$rc" = 0 ] || status=1
  done
fi
if [ "$WHAT" != checks ]; then
  PS="1 $NG"; [ "$WHAT" = benchp ] && PS="$NG"
  for p in $PS; do
    planes="nccl"; [ "$p" -gt 1 ] && planes=${PLANES:-"nccl mpi"}
    echo "=== bench P=$p scales $SCALES planes $planes"
    timeout 300 $RUN "$p" python3 -m mpi4py benchmarks/bench_dist.py --scales $SCALES \
      --device "$DEV" --planes $planes --roots "$ROOTS" --json "$OUTDIR/bench.jsonl" 2>&1
    rc=${PIPESTATUS[0]}; echo "rc=$rc"; [ "$rc" = 0 ] || status=1
    [ "$NG" = 1 ] && break
  done
fi
exit $status

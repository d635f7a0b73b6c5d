#!/usr/bin/env bash
# One short device job for the distributed BFS: the checks at P = 1 (the engine's own loop)
# and P = 2 (the device-held level loop), then P = 1 and P = 2 at 2^26 vertices per GPU.
# Usage: bash tests/mpi/device_dist_final.sh   (on a machine with 2 GPUs)
set -u
export NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PYTHONPATH -x PYTHONUNBUFFERED -n"
for p in 1 2; do
  echo "=== check_bfs bfs gpu nccl P=$p"
  timeout 120 $RUN $p python3 -m mpi4py tests/mpi/check_bfs.py bfs gpu nccl > /tmp/check.txt 2>&1 \
    || { tail -30 /tmp/check.txt; exit 1; }
  tail -1 /tmp/check.txt
done
for p in 1 2; do
  echo "=== bench_dist P=$p"
  timeout 150 $RUN $p python3 -m mpi4py benchmarks/bench_dist.py --scales 26 --roots 16 \
    --validate 1 --device gpu --planes nccl 2>&1 | grep -v "^\s*$" | tail -4
done

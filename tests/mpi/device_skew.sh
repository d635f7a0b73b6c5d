#!/usr/bin/env bash
# Issue 56's GPU cases on one machine, one rank per GPU: skewed and even edge lists at every
# threshold on both data planes, graphs built one after another (one NCCL set-up).
# Usage: bash tests/mpi/device_skew.sh NGPU SCALE
set -u
NG=${1:-4}
SCALE=${2:-14}
export NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export SPBFS_NCCL_TIMEOUT=${SPBFS_NCCL_TIMEOUT:-20} OMPI_MCA_btl_vader_single_copy_mechanism=none
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PYTHONPATH -x PYTHONUNBUFFERED -x SPBFS_NCCL_TIMEOUT -n"
else
  RUN="mpirun -n"
fi
status=0
# CASES: the cases to run, comma-separated (default: all)
IFS=, read -r -a cases <<< "${CASES:-reuse gpu nccl,even gpu nccl,even gpu mpi,skew gpu nccl,skew gpu mpi,fresh gpu nccl}"
for args in "${cases[@]}"; do
  echo "=== check_skew $args on $NG GPUs, scale $SCALE"
  t0=$(date +%s)
  timeout 240 $RUN "$NG" python3 -m mpi4py tests/mpi/check_skew.py $args "$SCALE" 2>&1 | tail -n 12
  rc=${PIPESTATUS[0]}; echo "rc=$rc wall=$(( $(date +%s) - t0 )) s"
  [ "$rc" = 0 ] || status=1
done
exit $status

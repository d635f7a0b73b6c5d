#!/bin/bash
# The NetworkX backend's GPU checks on a lent machine (no network, no install): spbfs from
# this tree, its networkx entry points through a hand-made dist-info on PYTHONPATH.
#   bash benchmarks/device_nx.sh tests      # GPU-marked tests of the backend (quick profile)
#   bash benchmarks/device_nx.sh bench ARGS # benchmarks/bench_nx.py --device gpu ARGS
set -e
site=$(mktemp -d)
mkdir -p "$site/spbfs-0.1.0.dist-info"
printf 'Metadata-Version: 2.1\nName: spbfs\nVersion: 0.1.0\n' > "$site/spbfs-0.1.0.dist-info/METADATA"
printf '[networkx.backends]\nspbfs = spbfs.nx:backend_interface\n\n[networkx.backend_info]\nspbfs = spbfs.nx._info:get_info\n' \
    > "$site/spbfs-0.1.0.dist-info/entry_points.txt"
export PYTHONPATH="$site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import networkx, cupy, spbfs; print('networkx', networkx.__version__, 'cupy', cupy.__version__, 'spbfs', spbfs.__file__, 'backend', 'spbfs' in networkx.utils.backends.backends)"
case "$1" in
tests)
    SPBFS_HYPOTHESIS_PROFILE=quick python3 -m pytest -q -m gpu -p no:cacheprovider \
        tests/nx/test_nx_backend.py tests/nx/test_nx_paths.py tests/nx/test_nx_algorithms.py ;;
bench)
    shift
    python3 benchmarks/bench_nx.py --device gpu "$@" ;;
esac

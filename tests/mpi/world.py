"""The command line and MPI world shared by the scripts under tests/mpi:
``script.py MODE [DEVICE [DATA_PLANE]]``."""

import sys

from spbfs import dist


def world():
    """``(comm, rank, P, mode, device, C, xp)`` of this process."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    mode = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    plane = sys.argv[3] if len(sys.argv) > 3 else "auto"
    C = dist.Communicator(device=device, data_plane=plane)
    return comm, comm.rank, comm.size, mode, device, C, C.xp

"""The CPU backend of :mod:`spbfs.semiring`: the seam's primitives on numpy arrays
(:mod:`spbfs.cpu.backend`), with scipy's compiled merges where they are the fastest thing.

The operations choose it for numpy operands; nothing here imports the algebra.
"""

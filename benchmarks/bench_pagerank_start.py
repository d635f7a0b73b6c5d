"""PageRank's start on undirected graphs: the steps and the error from the uniform start and
from the start ``spbfs.pagerank`` keeps (the degree start where its first step changes the
ranks by under ``DEGREE_START_SHARE`` of the uniform start's; see
``spbfs/algorithms/pagerank.py``).

For each graph family (NetworkX's generators and the Graph500 Kronecker generator, about
``--n`` vertices, unweighted), prints the fewest ``max_iter`` that converge with
``nstart`` uniform and with the default start, which start was kept, and the L1 distance of
both answers from a converged one (``tol`` 1e-14 / n).  The rule is NetworkX's: the L1
change below ``n * tol``, here ``tol = --tol / n``.

Usage: python benchmarks/bench_pagerank_start.py [--n 3000] [--tol 1e-4] [--seed 0]
"""

from __future__ import annotations

import argparse

import networkx as nx
import numpy as np
import scipy.sparse as sp
from bench_gap import pagerank_iterations

import spbfs
from spbfs.graph500.generate import kronecker


def families(n, seed):
    """``(name, make)`` pairs: ``make()`` gives an undirected NetworkX graph or a
    symmetric scipy array of about ``n`` vertices."""
    rng = np.random.default_rng(seed)
    scale = max(int(np.log2(n)) + 1, 4)

    def kron():
        u, v = kronecker(scale, edgefactor=16, seed=seed)
        m = 1 << scale
        A = sp.coo_array((np.ones(u.size), (u, v)), shape=(m, m)).tocsr()
        A = (A + A.T).tolil()
        A.setdiag(0)
        return (A.tocsr() > 0).astype(np.float64)

    def chung_lu(shape):
        weights = (rng.pareto(shape, n) * 2 + 1).tolist()
        return nx.expected_degree_graph(weights, seed=seed, selfloops=False)

    side = int(np.sqrt(n))
    return [
        (f"Kronecker scale {scale}", kron),
        ("Barabasi-Albert m=3", lambda: nx.barabasi_albert_graph(n, 3, seed=seed)),
        ("Barabasi-Albert m=1 (a tree)", lambda: nx.barabasi_albert_graph(n, 1, seed=seed)),
        ("powerlaw cluster", lambda: nx.powerlaw_cluster_graph(n, 3, 0.5, seed=seed)),
        ("Chung-Lu, Pareto 1.2", lambda: chung_lu(1.2)),
        ("Chung-Lu, Pareto 3", lambda: chung_lu(3.0)),
        ("stochastic blocks", lambda: nx.stochastic_block_model(
            [n // 6] * 6, [[0.02 if i == j else 0.0005 for j in range(6)] for i in range(6)],
            seed=seed)),
        ("G(n, p), mean degree 30", lambda: nx.gnp_random_graph(n, 30 / n, seed=seed)),
        ("G(n, p), mean degree 6", lambda: nx.gnp_random_graph(n, 6 / n, seed=seed)),
        ("Watts-Strogatz p=0.05", lambda: nx.watts_strogatz_graph(n, 6, 0.05, seed=seed)),
        ("Watts-Strogatz p=1", lambda: nx.watts_strogatz_graph(n, 6, 1.0, seed=seed)),
        ("random geometric", lambda: nx.random_geometric_graph(n, 0.03 * np.sqrt(3000 / n),
                                                                seed=seed)),
        (f"grid {side} x {side}", lambda: nx.grid_2d_graph(side, side)),
        ("lollipop", lambda: nx.lollipop_graph(n // 60, n // 15)),
        ("random tree", lambda: nx.random_labeled_tree(n, seed=seed)),
    ]


def kept_start(A):
    """"degree" or "uniform": the start ``spbfs.pagerank`` kept for ``A`` (alpha 0.85)."""
    M = spbfs.prepare(A).canonical()
    x = M.pattern.derived("pagerank undirected starts", dict)[0.85, True][0]
    linked = np.diff(M.indptr) > 0
    return "degree" if linked.any() and np.ptp(x[linked]) > 0 else "uniform"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--tol", type=float, default=1e-4, help="the L1 change to stop under")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| graph | steps, uniform start | steps, default | start kept | L1 error, uniform "
          "| L1 error, default |")
    print("|---|---:|---:|---|---:|---:|")
    for name, make in families(args.n, args.seed):
        G = make()
        A = G if sp.issparse(G) else nx.to_scipy_sparse_array(G, weight=None, format="csr",
                                                              dtype=np.float64)
        n = A.shape[0]
        tol, uniform = args.tol / n, np.ones(n)
        exact = spbfs.pagerank(A, tol=1e-14 / n, max_iter=10000, nstart=uniform)
        error = [float(np.abs(spbfs.pagerank(A, tol=tol, **kw) - exact).sum())
                 for kw in ({"nstart": uniform}, {})]
        print(f"| {name} | {pagerank_iterations(A, tol, 1000, nstart=uniform)} | "
              f"{pagerank_iterations(A, tol, 1000)} | "
              f"{kept_start(A)} | {error[0]:.1e} | {error[1]:.1e} |", flush=True)


if __name__ == "__main__":
    main()

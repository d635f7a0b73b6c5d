"""NetworkX's own tests of the dispatched functions, run against the spbfs backend.

Each NetworkX test module runs in a child pytest with NetworkX's backend
test mode on (``NETWORKX_TEST_BACKEND=spbfs``: every dispatchable call in the
tests converts its graphs and runs in spbfs when ``can_run`` accepts;
``NETWORKX_FALLBACK_TO_NX=True``: NetworkX runs the rest itself).  NetworkX's
``conftest.py`` reads both variables; it is loaded because ``--confcutdir``
is the directory that holds the installed ``networkx`` package.  A probe
plugin (tests/helpers/dispatch_probe.py) counts the calls that reached spbfs, so a
run that silently never dispatched fails too.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

nx = pytest.importorskip("networkx")

# module -> backend functions its tests must exercise
SP = "algorithms/shortest_paths/tests/"
MODULES = {
    "algorithms/traversal/tests/test_bfs.py": {
        "bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
        "descendants_at_distance"},  # (no NetworkX test calls generic_bfs_edges)
    SP + "test_unweighted.py": {
        "single_source_shortest_path_length", "shortest_path_length",
        "single_source_shortest_path", "single_target_shortest_path",
        "single_target_shortest_path_length", "all_pairs_shortest_path",
        "all_pairs_shortest_path_length", "bidirectional_shortest_path"},
    SP + "test_weighted.py": {
        "single_source_dijkstra_path_length", "dijkstra_path", "dijkstra_path_length",
        "single_source_dijkstra", "single_source_dijkstra_path", "multi_source_dijkstra",
        "multi_source_dijkstra_path", "multi_source_dijkstra_path_length", "all_pairs_dijkstra",
        "all_pairs_dijkstra_path", "all_pairs_dijkstra_path_length", "bellman_ford_path",
        "bellman_ford_path_length", "single_source_bellman_ford",
        "single_source_bellman_ford_path", "single_source_bellman_ford_path_length",
        "negative_edge_cycle"},  # its all_pairs_bellman_ford_* tests use negative weights
    SP + "test_generic.py": {
        "shortest_path", "shortest_path_length", "has_path",
        "single_source_shortest_path_length", "single_source_dijkstra_path_length"},
    SP + "test_dense.py": {"floyd_warshall", "floyd_warshall_predecessor_and_distance"},
    SP + "test_dense_numpy.py": {"floyd_warshall_numpy"},
    "algorithms/tests/test_distance_measures.py": {
        "shortest_path_length", "single_source_dijkstra_path_length"},
    "algorithms/tests/test_lowest_common_ancestors.py": {
        "ancestors", "is_directed_acyclic_graph", "lowest_common_ancestor",
        "all_pairs_lowest_common_ancestor", "tree_all_pairs_lowest_common_ancestor"},
    "algorithms/tests/test_sparsifiers.py": {"shortest_path_length"},
    "algorithms/tests/test_threshold.py": {"single_source_shortest_path_length"},
    "algorithms/tests/test_dag.py": {
        "descendants", "ancestors", "is_directed_acyclic_graph", "topological_generations"},
    "algorithms/components/tests/test_connected.py": {
        "connected_components", "number_connected_components", "is_connected",
        "node_connected_component"},
    "algorithms/components/tests/test_strongly_connected.py": {
        "strongly_connected_components", "number_strongly_connected_components",
        "is_strongly_connected"},
    "algorithms/components/tests/test_weakly_connected.py": {
        "weakly_connected_components", "number_weakly_connected_components",
        "is_weakly_connected"},
    "algorithms/link_analysis/tests/test_pagerank.py": {"pagerank", "google_matrix"},
    "algorithms/link_analysis/tests/test_hits.py": {"hits"},
    "algorithms/tests/test_cluster.py": {
        "triangles", "clustering", "average_clustering", "transitivity", "square_clustering",
        "generalized_degree"},
    "algorithms/centrality/tests/test_betweenness_centrality.py": {
        "betweenness_centrality", "edge_betweenness_centrality"},
    "algorithms/centrality/tests/test_degree_centrality.py": {
        "degree_centrality", "in_degree_centrality", "out_degree_centrality"},
    "algorithms/centrality/tests/test_eigenvector_centrality.py": {"eigenvector_centrality"},
    "algorithms/centrality/tests/test_katz_centrality.py": {"katz_centrality"},
    "algorithms/centrality/tests/test_closeness_centrality.py": {"closeness_centrality"},
    "algorithms/centrality/tests/test_harmonic_centrality.py": {"harmonic_centrality"},
    "algorithms/tests/test_core.py": {"core_number", "k_core", "k_shell", "k_crust",
                                       "k_truss"},
    "algorithms/tests/test_isolate.py": {"isolates", "number_of_isolates", "is_isolate"},
    "algorithms/tests/test_link_prediction.py": {
        "jaccard_coefficient", "adamic_adar_index", "resource_allocation_index",
        "common_neighbor_centrality"},
    "algorithms/tests/test_reciprocity.py": {"reciprocity", "overall_reciprocity"},
    "algorithms/community/tests/test_label_propagation.py": {"label_propagation_communities"},
    "algorithms/community/tests/test_louvain.py": {"louvain_communities"},
    "algorithms/community/tests/test_leiden.py": {"leiden_communities", "leiden_partitions"},
    "algorithms/tree/tests/test_recognition.py": {
        "is_tree", "is_forest", "is_arborescence", "is_branching"},
    "classes/tests/test_function.py": {"number_of_selfloops", "is_negatively_weighted"},
    "algorithms/tests/test_regular.py": {"is_regular", "is_k_regular"},
    "algorithms/tests/test_dominating.py": {"is_dominating_set"},
    "algorithms/tests/test_triads.py": {"is_triad"},
    "algorithms/tests/test_tournament.py": {
        "is_tournament", "score_sequence", "tournament_matrix"},
    "algorithms/tests/test_cuts.py": {
        "cut_size", "volume", "normalized_cut_size", "conductance", "edge_expansion",
        "mixing_expansion", "node_expansion", "boundary_expansion"},
    "algorithms/tests/test_boundary.py": {"edge_boundary", "node_boundary"},
    "linalg/tests/test_graphmatrix.py": {"adjacency_matrix"},
    "linalg/tests/test_laplacian.py": {"laplacian_matrix", "normalized_laplacian_matrix"},
    "linalg/tests/test_modularity.py": {"modularity_matrix", "directed_modularity_matrix"},
    "linalg/tests/test_bethehessian.py": {"bethe_hessian_matrix"},
    "tests/test_convert_scipy.py": {"to_scipy_sparse_array"},
    "tests/test_convert_numpy.py": {"to_numpy_array"},
    "algorithms/tests/test_efficiency.py": {
        "efficiency", "global_efficiency", "local_efficiency"},
    "algorithms/operators/tests/test_unary.py": {"complement", "reverse"},
    "algorithms/operators/tests/test_binary.py": {
        "difference", "symmetric_difference", "intersection", "compose", "union",
        "disjoint_union", "full_join"},
    "algorithms/tests/test_smetric.py": {"s_metric"},
    "algorithms/tests/test_structuralholes.py": {"mutual_weight"},
    # (no NetworkX test calls intra_community_edges: tests/nx/test_nx_more.py does)
    "algorithms/community/tests/test_quality.py": {"inter_community_edges"},
    "algorithms/tests/test_simple_paths.py": {"is_simple_path"},
    "generators/tests/test_ego.py": {"ego_graph"},
    "drawing/tests/test_layout.py": {"forceatlas2_layout"},
    "algorithms/bipartite/tests/test_centrality.py": {
        "bipartite_betweenness_centrality"},
}

# Node-id prefixes (relative to the networkx package) left out, with the reason.  No NetworkX
# test of a dispatched function is known to differ; this list is for run time only.
DESELECTED = {
    "algorithms/tests/test_distance_measures.py::TestDistance::test_use_bounds_on_off_consistency":
        "run time only: 500 parametrised cases, each ~340 shortest_path_length calls on "
        "20-node graphs; test mode converts the graph on every call (~90 s on 2 cores). "
        "The same function is covered by the module's other tests and test_generic.py.",
}

NX_ROOT = Path(nx.__file__).parent
PROBE_DIR = Path(__file__).resolve().parents[1] / "helpers"


def _backend_installed() -> bool:
    return "spbfs" in nx.utils.backends.backends


@pytest.mark.skipif(not _backend_installed(), reason="spbfs is not installed with its "
                    "networkx.backends entry point (pip install -e .)")
@pytest.mark.parametrize("module", sorted(MODULES))
def test_networkx_module_passes_with_spbfs(module, tmp_path):
    from spbfs.nx import FUNCTIONS

    if not MODULES[module] <= set(FUNCTIONS):
        pytest.skip(f"spbfs does not dispatch {sorted(MODULES[module] - set(FUNCTIONS))}")
    probe = tmp_path / "calls.json"
    env = dict(os.environ, NETWORKX_TEST_BACKEND="spbfs", NETWORKX_FALLBACK_TO_NX="True",
               SPBFS_NX_PROBE=str(probe),
               PYTHONPATH=os.pathsep.join(filter(None, [str(PROBE_DIR),
                                                        os.environ.get("PYTHONPATH")])))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    args = [sys.executable, "-m", "pytest", str(NX_ROOT / module), "-q", "-p", "no:cacheprovider",
            "-p", "dispatch_probe", "-c", str(tmp_path / "pytest.ini"),
            "--rootdir", str(NX_ROOT), "--confcutdir", str(NX_ROOT.parent), "-W",
            "ignore::DeprecationWarning"]
    for prefix in DESELECTED:
        if prefix.startswith(module):
            args += ["--deselect", prefix]
    run = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=540)
    tail = (run.stdout + run.stderr)[-6000:]
    assert run.returncode == 0, tail
    assert " passed" in run.stdout and " failed" not in run.stdout, tail
    assert " xpassed" not in run.stdout, f"a test in on_start_tests passes now:\n{tail}"
    calls = json.loads(probe.read_text())
    missing = MODULES[module] - {name for name, count in calls.items() if count}
    assert not missing, f"never dispatched to spbfs: {sorted(missing)}\n{tail}"


def test_deselected_entries_name_listed_modules():
    for prefix, reason in DESELECTED.items():
        assert prefix.split("::")[0] in MODULES and reason

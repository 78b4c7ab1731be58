"""The fast paths of the stages whose plain rule lives in the stage's own module (as bm25s keeps
``bm25s/numba/``): each gives its plain rule's results, float for float, by other means. The stage
module chooses between them (``build_graph(..., fast=...)``); ``tests/test_rules.py`` holds each
pair equal through these public names. (The ranking means' fast path,
``ranking_means_of_scores``, sits beside its rule in ``lab/metrics.py``.)"""

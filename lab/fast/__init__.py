"""The fast paths of the stages whose plain rule lives in the stage's own module (as bm25s keeps
``bm25s/numba/``): each gives its plain rule's results, float for float, by other means. The stage
module chooses between them (``build_graph(..., fast=...)``; a retrieval's ranking means are
always ``metrics.ranking_means_of_scores``, ``lab.metrics.ranking_means`` of ``rank_questions``
being the rule); ``tests/test_rules.py`` and ``tests/test_rules_ranking.py`` hold each pair equal
through these public names."""

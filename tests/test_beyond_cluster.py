"""Issue 27 on Dask: qes-retrieval, the heading guard and the adaptive budget's sweep points on
a LocalCluster give the serial frame."""

from __future__ import annotations

import pandas as pd
import pytest

distributed = pytest.importorskip(
    "distributed", reason="pip install -r requirements-distributed.txt"
)

from distributed import Client, LocalCluster  # noqa: E402

from lab import LabConfig, cluster, sweep  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(480)]


def test_the_new_chunker_guard_and_adaptive_points_on_workers_equal_the_serial_sweep(handbook):
    config = LabConfig(chunkers=("qes-dp", "qes-retrieval"), heading_guard=True, budget="adaptive")
    grid = {"budgets": (40, 120, 300), "sizes": (250, 450)}
    serial = sweep(handbook, config, **grid).frame()
    lc = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0")
    try:
        with Client(lc, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=120)
            on_workers = sweep(handbook, config, **grid, client=client).frame()
    finally:
        cluster.close_quietly(lc)
    pd.testing.assert_frame_equal(on_workers, serial, check_exact=True)
    assert serial["adaptive"].sum() == 2 * 2 * 2  # chunkers x modes x sizes
    assert len(serial) == 2 * 2 * 2 * 4

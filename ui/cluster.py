"""Where the app's sweeps run: on the Dask cluster whose scheduler ``CHUNKING_LAB_SCHEDULER`` names
(an environment variable, or a Streamlit secret of that name), otherwise on this machine.

One client per scheduler address is shared by every session. A scheduler that does not answer,
or a cluster that fails mid-sweep, is left alone for :data:`RETRY` seconds: sweeps run here
meanwhile, and the sweep page says why.
"""

from __future__ import annotations

import os
import threading
import time

import streamlit as st

from lab import ClusterError, DistributedUnavailable, connect_cluster

from .draw import md_escape

ENV = "CHUNKING_LAB_SCHEDULER"
RETRY = 30.0  # seconds before trying a failed cluster again
CONNECT_TIMEOUT = 5.0  # seconds a page waits for a scheduler to answer


def address() -> str | None:
    """The scheduler address the deployment names, or None."""
    value = os.environ.get(ENV, "").strip()
    if value:
        return value
    try:
        value = str(st.secrets.get(ENV) or "").strip()
    except FileNotFoundError:  # no secrets file at all
        return None
    return value or None


class Link:
    """The shared connection to one scheduler: a client while it answers, else why not."""

    def __init__(self, address: str):
        self.address = address
        self.problem: str | None = None
        self._client = None
        self._failed_at: float | None = None
        self._lock = threading.Lock()

    def client(self):
        """A running client of the scheduler, or None (``problem`` says why)."""
        with self._lock:
            if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY:
                return None
            if self._client is not None and self._client.status == "running":
                return self._client
            self._close()
            try:
                self._client = connect_cluster(self.address, timeout=CONNECT_TIMEOUT)
            except (DistributedUnavailable, ClusterError) as exc:
                self._failed(str(exc))
                return None
            self.problem, self._failed_at = None, None
            return self._client

    def failed(self, problem: str) -> None:
        """Record that the cluster failed a sweep: sweep here for a while."""
        with self._lock:
            self._failed(problem)

    def _failed(self, problem: str) -> None:
        self.problem, self._failed_at = problem, time.monotonic()

    def _close(self) -> None:
        if self._client is not None:
            self._client.close(timeout=CONNECT_TIMEOUT)
            self._client = None


@st.cache_resource(show_spinner=False)
def _link(address: str) -> Link:
    return Link(address)


def link() -> Link | None:
    """The shared link to the configured scheduler; None when sweeps run on this machine."""
    named = address()
    return _link(named) if named else None


def where() -> str:
    """Where sweeps run, as one markdown line for the sidebar."""
    current = link()
    if current is None:
        return ":material/computer: Sweeps run on this machine."
    shown = md_escape(current.address)
    if current.problem:
        return (
            f":material/cloud_off: Sweeps run on this machine: the Dask cluster at {shown} is "
            "unavailable."
        )
    return f":material/cloud: Sweeps run on the Dask cluster at {shown}."

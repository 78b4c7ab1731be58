"""Which cross-encoder a name typed in the sidebar or carried by a link may load.

The app runs on a server that anyone with a link can reach, so a name is one of two things:

- the name of a folder in the one **models directory** the deployer chose (the environment
  variable ``CHUNKING_LAB_MODELS``, by default ``~/.cache/chunking-lab/models``): ``my-reranker``
  or ``org/my-reranker``;
- a **model hub id** (``cross-encoder/ms-marco-MiniLM-L6-v2``), loaded from the local model
  cache by its absolute folder, never from a folder of the server's working directory that
  happens to share its name; downloaded into the cache only when the user asks.

Anything else (``/etc``, ``../models``, ``~/x``) is refused before the disk is looked at, with
the same words whether or not such a path exists. The command line trusts its user and keeps
taking any local path.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from lab.rerank import hub_folder

from .store import app_folder

MODELS_ENV = "CHUNKING_LAB_MODELS"
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_NAME = re.compile(rf"{_PART}(?:/{_PART})?")
MAX_NAME = 96  # the model hub's limit for a repository id


class Source(NamedTuple):
    """Where a named cross-encoder loads from (an absolute folder), or why it cannot; whether
    the hub could provide it on request."""

    folder: str | None
    problem: str | None = None
    downloadable: bool = False


def models_dir() -> Path:
    """The folder whose sub-folders the app may load cross-encoders from."""
    return app_folder(MODELS_ENV, "models")


def allowed(name: str) -> bool:
    """True when ``name`` has the shape of a models-directory folder or a hub id: one or two
    parts of letters, digits, ``.``, ``_`` and ``-``, no ``..`` or ``--``, at most 96 characters.
    Absolute, relative and home paths never do."""
    return (
        len(name) <= MAX_NAME
        and _NAME.fullmatch(name) is not None
        and ".." not in name
        and "--" not in name
    )


def refusal(name: str) -> str:
    return (
        f"{name} is not a model hub id (such as cross-encoder/ms-marco-MiniLM-L6-v2) nor the "
        "name of a folder in the app's models directory, so it is not loaded"
    )


def resolve(name: str) -> Source:
    """The folder cross-encoder ``name`` loads from: its folder in the models directory, else
    the local model cache's copy of that hub model. A name of any other shape is refused."""
    if not allowed(name):
        return Source(None, refusal(name))
    local = models_dir() / name
    if local.is_dir():
        return Source(str(local))
    try:
        cached = hub_folder(name)
    except ValueError:  # a shape the hub itself rejects
        return Source(None, refusal(name))
    if cached:
        return Source(cached)
    return Source(
        None,
        f"{name} is not in this server's model cache nor in its models directory: the hub "
        "model is downloaded on request",
        downloadable=True,
    )

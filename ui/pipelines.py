"""Chunkers users bring, in the app: the server's ``chunking-lab.toml`` (read once per process,
only from the path ``CHUNKING_LAB_CONFIG`` names on the server, never from a link or an
upload), the tokenizers the sidebar offers, and the chunkers whose libraries are missing."""

from __future__ import annotations

import threading

import streamlit as st

from lab import CHUNKERS, ChunkerFailed, Corpus, LabConfig, chunker_status, load_config
from lab.plugins import config_path
from lab.tokens import BUNDLED, TIKTOKEN_ENCODINGS, TokenizerUnavailable, get_tokenizer

from . import cache
from .draw import md_escape

CHARACTERS = "characters and words"
_LOCK = threading.Lock()
_PROBLEMS: list[str] | None = None  # what the server's configuration could not add


def server_config() -> list[str]:
    """Register the pipelines and plugins of the server's configuration file, once per
    process; the problems it had, to show."""
    global _PROBLEMS
    with _LOCK:
        if _PROBLEMS is None:
            path = config_path()
            try:
                _PROBLEMS = load_config(path)[1] if path else []
            except ValueError as err:
                _PROBLEMS = [str(err)]
        return _PROBLEMS


def show_config_problems() -> None:
    for problem in server_config():
        st.warning(f"Server configuration: {md_escape(problem)}", icon=":material/settings:")


def failing(corpus: Corpus, config: LabConfig) -> dict[str, str]:
    """The plugins among ``config.chunkers`` that fail on ``corpus``, with why (their indexes,
    built here, are the ones the pages then use)."""
    failed = {}
    for name in config.chunkers:
        if CHUNKERS[name].kind != "plugin":
            continue
        try:
            cache.index(corpus, config, name)
        except ChunkerFailed as err:
            failed[name] = str(err)
    return failed


def tokenizer_options() -> list[str]:
    """What sizes and budget can count in here: characters and words, and each tokenizer that
    loads offline (the bundled MiniLM's, tiktoken's where its files are local)."""
    options = [CHARACTERS]
    for name in (BUNDLED, *TIKTOKEN_ENCODINGS):
        try:
            get_tokenizer(name)
        except TokenizerUnavailable:
            continue
        options.append(name)
    return options


def unavailable_note() -> str | None:
    """One line naming the chunkers whose libraries are missing here, with the command."""
    missing = [(name, chunker_status(name)[1]) for name in CHUNKERS]
    missing = [(name, why) for name, why in missing if why]
    if not missing:
        return None
    installs = sorted({CHUNKERS[name].install for name, _ in missing})
    names = ", ".join(name for name, _ in missing)
    return (
        f":material/info: {md_escape(names)} not available here: "
        + " / ".join(f"`{i}`" for i in installs)
        + " adds them."
    )

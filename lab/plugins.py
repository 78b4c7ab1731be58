"""Chunkers a user brings: a Python function (:func:`register_chunker`, ``--plugin
module:function``) and named production pipelines (``chunking-lab.toml``, :func:`load_config`).

Code and paths named here are honoured only from the command line or a server-side
configuration file, never from a URL or an upload: nothing in this module reads either.
"""

from __future__ import annotations

import importlib
import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .chunkers import CHUNKERS, Params, Plan, chunker_status
from .chunkers.adapters.locate import locate
from .chunkers.base import ChunkerFailed, register
from .parse import Document

CONFIG_ENV = "CHUNKING_LAB_CONFIG"
CONFIG_KEYS = {"adapter", "size", "overlap", "tokenizer"}
ChunkFunction = Callable[[str, int, int], Sequence]


def _checked(name: str, text: str, out) -> Plan:
    """The plan of what a plugin returned: strings (located in order, like an adapter's) or
    ``(start, end)`` pairs inside the text."""
    try:
        items = list(out)
    except TypeError:
        raise ChunkerFailed(
            f"plugin {name} returned {type(out).__name__}, not a list of strings or "
            "(start, end) pairs"
        ) from None
    if all(isinstance(i, str) for i in items):
        return locate(text, items)
    bodies = []
    for item in items:
        pair = tuple(item) if isinstance(item, list | tuple) else ()
        if len(pair) != 2 or not all(isinstance(v, int) for v in pair):
            raise ChunkerFailed(
                f"plugin {name} returned {item!r:.60}: give strings or (start, end) pairs"
            )
        start, end = pair
        if not 0 <= start < end <= len(text):
            raise ChunkerFailed(
                f"plugin {name} returned the range ({start}, {end}), outside the text "
                f"(0 <= start < end <= {len(text)})"
            )
        bodies.append(pair)
    return Plan(tuple(bodies))


def register_chunker(
    name: str, fn: ChunkFunction, *, label: str | None = None, description: str | None = None
) -> None:
    """Add ``fn(text, size, overlap)`` as the chunker ``name``: it returns the chunks as strings
    (found in the text in order, like an adapter's) or as ``(start, end)`` pairs. ``size`` and
    ``overlap`` are in the unit in use (tokens with a tokenizer, characters otherwise). A
    function that raises, or returns a range outside the text, fails with a
    :class:`ChunkerFailed` naming it; other chunkers are not affected."""
    if not callable(fn):
        raise ValueError(f"register_chunker({name!r}, ...) needs a function, got {fn!r:.60}")
    if not name or "," in name or name.strip() != name:
        raise ValueError(f"a chunker name must be non-empty, without commas, got {name!r}")
    if name in CHUNKERS and CHUNKERS[name].kind not in ("plugin", "pipeline"):
        raise ValueError(f"{name!r} is one of the lab's chunkers: choose another name")
    where = getattr(fn, "__module__", "?") + ":" + getattr(fn, "__qualname__", "?")

    def plan(doc: Document, p: Params) -> Plan:
        try:
            out = fn(doc.text, p.size, p.overlap)
        except Exception as err:
            raise ChunkerFailed(
                f"plugin {name} ({where}) failed on {doc.name or 'the document'}: "
                f"{type(err).__name__}: {err}"
            ) from err
        return _checked(name, doc.text, out)

    register(
        name,
        label or name,
        description or f"Your function {where}(text, size, overlap).",
        order=60,
        overlap=True,
        units=False,
        kind="plugin",
    )(plan)


def load_plugin(spec: str) -> str:
    """Import ``module:function`` and register it as the chunker named after the function;
    its name. A ``ValueError`` says what could not be found."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--plugin {spec!r}: expected module:function")
    try:
        module = importlib.import_module(module_name)
    except Exception as err:
        raise ValueError(f"--plugin {spec}: cannot import {module_name}: {err}") from err
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"--plugin {spec}: {module_name} has no function {attr}")
    name = attr.replace("_", "-")
    register_chunker(name, fn)
    return name


@dataclass(frozen=True)
class Pipeline:
    """A named production pipeline: an adapter (or any chunker) at a fixed size and overlap,
    counted in a tokenizer's tokens when one is named."""

    name: str
    adapter: str
    size: int
    overlap: int
    tokenizer: str | None = None


def register_pipeline(pipeline: Pipeline, download: bool = False) -> None:
    """Register ``pipeline`` as a chunker under its name. A ``ValueError`` says what is wrong
    (unknown adapter, missing library, a tokenizer that cannot be found offline)."""
    from .chunkers import plan_document
    from .index import check_chunking

    name, adapter = pipeline.name, pipeline.adapter
    if adapter not in CHUNKERS or CHUNKERS[adapter].kind in ("pipeline", "plugin"):
        known = ", ".join(n for n, s in CHUNKERS.items() if s.kind in ("lab", "adapter"))
        raise ValueError(f"[chunkers.{name}]: unknown adapter {adapter!r}; choose one of {known}")
    ok, status = chunker_status(adapter)
    if not ok:
        raise ValueError(f"[chunkers.{name}]: {status}")
    try:
        check_chunking(adapter, pipeline.size, pipeline.overlap)
    except ValueError as err:
        raise ValueError(f"[chunkers.{name}]: {err}") from None
    tokenizer = None
    if pipeline.tokenizer is not None:
        from .tokens import get_tokenizer

        try:
            tokenizer = get_tokenizer(pipeline.tokenizer, download)
        except ValueError as err:
            raise ValueError(f"[chunkers.{name}]: {err}") from None
    spec = CHUNKERS[adapter]

    def plan(doc: Document, p: Params) -> Plan:
        fixed = replace(p, size=pipeline.size, overlap=pipeline.overlap, tokenizer=tokenizer)
        return plan_document(spec, doc, fixed)

    unit = f"{pipeline.tokenizer} tokens" if pipeline.tokenizer else "characters"
    register(
        name,
        name,
        f"Your pipeline: {adapter} at {pipeline.size} {unit}, overlap {pipeline.overlap}.",
        order=50,
        dense=spec.dense,
        units=False,
        kind="pipeline",
        requires=spec.requires,
        install=spec.install,
    )(plan)


def config_path(given: str | os.PathLike | None = None) -> Path | None:
    """The configuration file to read: ``given``, else the one ``CHUNKING_LAB_CONFIG`` names."""
    value = given if given is not None else os.environ.get(CONFIG_ENV)
    return Path(value).expanduser() if value else None


def load_config(path: str | os.PathLike, download: bool = False) -> tuple[list[str], list[str]]:
    """Register the plugins (``plugins = ["module:function", ...]``) and pipelines
    (``[chunkers.NAME]`` with ``adapter``, ``size``, ``overlap``, ``tokenizer``) a
    ``chunking-lab.toml`` names: the chunkers added and a message for each entry that could not
    be (the others are added). An unreadable file or invalid TOML is a ``ValueError``."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"cannot read the configuration {path}: {err.strerror or err}") from err
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid TOML: {err}") from err
    added, problems = [], []
    plugins = data.get("plugins", [])
    if not isinstance(plugins, list):
        problems.append(f'{path}: plugins must be a list of "module:function" strings')
        plugins = []
    for spec in plugins:
        try:
            added.append(load_plugin(str(spec)))
        except ValueError as err:
            problems.append(f"{path}: {err}")
    chunkers = data.get("chunkers", {})
    for name, entry in chunkers.items() if isinstance(chunkers, dict) else ():
        try:
            register_pipeline(_pipeline(name, entry), download)
            added.append(name)
        except ValueError as err:
            problems.append(f"{path}: {err}")
    return added, problems


def _pipeline(name: str, entry) -> Pipeline:
    if not isinstance(entry, dict):
        raise ValueError(f"[chunkers.{name}] must be a table with adapter, size and overlap")
    unknown = sorted(set(entry) - CONFIG_KEYS)
    if unknown:
        raise ValueError(
            f"[chunkers.{name}]: unknown key {unknown[0]!r}; use {', '.join(sorted(CONFIG_KEYS))}"
        )
    if name in CHUNKERS and CHUNKERS[name].kind not in ("pipeline", "plugin"):
        raise ValueError(f"[chunkers.{name}]: {name!r} is one of the lab's chunkers: rename it")
    if "adapter" not in entry:
        raise ValueError(f'[chunkers.{name}]: name its adapter, e.g. adapter = "semchunk"')
    size, overlap = entry.get("size", 450), entry.get("overlap", 0)
    tokenizer = entry.get("tokenizer")
    return Pipeline(name, str(entry["adapter"]), size, overlap, tokenizer and str(tokenizer))

"""``generate``: draft questions with a language model over the OpenAI-compatible
chat-completions protocol, keeping those whose evidence the loader finds in the documents."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from ..drafting import Draft, Endpoint, LLMError, draft_questions
from .common import emit, positive_int, say
from .importing import documents_of


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    p = commands.add_parser(
        "generate",
        help="draft questions with an LLM, every evidence string checked against the text",
        description="Ask a chat-completions server (Ollama, vLLM, llama.cpp, LM Studio, OpenAI) "
        "for questions that need two or more evidence sentences, keep those whose evidence is "
        "in the documents, drop invented evidence and repeats with the reason, and write QE "
        "JSON. Needs httpx: pip install -r requirements-llm.txt",
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--doc", action="append", type=Path, metavar="PATH", help="a document; repeat for several"
    )
    where.add_argument(
        "--collection", type=Path, metavar="MANIFEST", help="the documents a manifest lists"
    )
    p.add_argument(
        "--llm",
        required=True,
        metavar="URL",
        help="the server's OpenAI-compatible base URL, e.g. http://localhost:11434/v1",
    )
    p.add_argument("--model", required=True, metavar="NAME", help="the model to ask")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable holding the API key (the key never goes on the command "
        "line); none is sent without it",
    )
    p.add_argument(
        "--questions", type=positive_int, default=10, metavar="N", help="how many (default 10)"
    )
    p.add_argument(
        "--max-requests",
        type=positive_int,
        metavar="N",
        help="the most requests to make (default: twice what N questions need, plus two)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long one request may take (default 120)",
    )
    p.add_argument(
        "--train",
        type=float,
        default=0.3,
        metavar="SHARE",
        help="the share of kept questions marked train, the same ones on every run (default 0.3)",
    )
    p.add_argument("--seed", type=int, default=0, help="which excerpts are shown first")
    p.add_argument(
        "--out", type=Path, metavar="QE.json", help="write the questions here, not stdout"
    )
    p.set_defaults(handler=_cmd_generate)


def _cmd_generate(args: argparse.Namespace) -> int:
    key = None
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise ValueError(f"--api-key-env {args.api_key_env}: that variable is not set")
    if args.timeout <= 0:
        raise ValueError(f"--timeout must be positive, got {args.timeout}")
    endpoint = Endpoint(args.llm, args.model, key, timeout=args.timeout)
    progress = _Progress()
    try:
        draft = draft_questions(
            documents_of(args.doc or [], args.collection),
            endpoint,
            args.questions,
            max_requests=args.max_requests,
            seed=args.seed,
            train=args.train,
            progress=progress,
        )
    except LLMError as exc:
        raise ValueError(str(exc)) from None
    _report(draft, progress)
    emit(
        json.dumps({"questions": list(draft.questions)}, ensure_ascii=False, indent=1) + "\n",
        args.out,
    )
    return 0


class _Progress:
    """Says each new note and each dropped question as drafting goes."""

    def __init__(self):
        self.notes = self.dropped = 0

    def __call__(self, draft: Draft) -> None:
        for note in draft.notes[self.notes :]:
            say("warning", note)
        for d in draft.dropped[self.dropped :]:
            say("dropped", f"{d.question!r}: {d.reason}")
        self.notes, self.dropped = len(draft.notes), len(draft.dropped)
        say("note", f"request {draft.requests}: {len(draft.questions)} question(s) kept so far")


def _report(draft: Draft, progress: _Progress) -> None:
    for note in draft.notes[progress.notes :]:
        say("warning", note)
    if draft.stopped:
        say("warning", f"kept what there is: {draft.stopped}")
    train = sum(q["split"] == "train" for q in draft.questions)
    say(
        "note",
        f"kept {len(draft.questions)} question(s) ({train} train, "
        f"{len(draft.questions) - train} test), dropped {len(draft.dropped)}, "
        f"in {draft.requests} request(s)",
    )

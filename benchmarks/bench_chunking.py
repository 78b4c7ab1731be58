"""Raw text to chunks on 1 MB against LangChain's RecursiveCharacterTextSplitter, semchunk and
chonkie's RecursiveChunker, side by side in one process, each asked for chunks of at most 450
characters with their offsets into the text (LangChain: ``add_start_index``; semchunk:
``offsets=True``; chonkie: its chunks' ``start_index``). Ours: ``parse_document`` (units,
provisions, cross-references) then the ``recursive`` chunker's chunks, text and source ranges.
Also ``parse_document`` alone, in characters per second.

Text: the generated 1 MB corpus (``lab.generate``) and, where it is installed, 1 MB of Vim's
release notes (``/usr/share/vim/vim90/doc/version8.txt``: long prose, few headings).

    python benchmarks/bench_chunking.py [--repeats N] [--quick]
"""

import statistics
from pathlib import Path

from common import arguments, cpu_seconds, figure, generated, missing, ratio_line, side_by_side

from lab import parse_document
from lab.chunkers import Params, chunk_document

SIZE = 450
VIM = Path("/usr/share/vim/vim90/doc/version8.txt")


def ours(text: str) -> list:
    doc = parse_document(text, "bench")
    return chunk_document(doc, 0, "recursive", Params(SIZE, 0))[0]


def peers() -> dict:
    """Each installed peer as a function from text to chunks with offsets."""
    found = {}
    if not missing("langchain_text_splitters"):
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter(
            chunk_size=SIZE, chunk_overlap=0, add_start_index=True
        )
        found["LangChain recursive"] = lambda text: splitter.create_documents([text])
    else:
        print(f"LangChain: not measured: {missing('langchain_text_splitters')}")
    if not missing("semchunk"):
        import semchunk

        found["semchunk"] = lambda text: semchunk.chunk(
            text, chunk_size=SIZE, token_counter=len, offsets=True
        )
    else:
        print(f"semchunk: not measured: {missing('semchunk')}")
    if not missing("chonkie"):
        from chonkie import RecursiveChunker

        chunker = RecursiveChunker(tokenizer="character", chunk_size=SIZE)
        found["chonkie recursive"] = chunker.chunk
    else:
        print(f"chonkie: not measured: {missing('chonkie')}")
    return found


def main() -> None:
    args = arguments(__doc__, repeats=9)
    chars = 100_000 if args.quick else 1_000_000
    texts = {"generated 1 MB" if not args.quick else "generated 100 KB": generated(chars, 10)[0]}
    if VIM.exists():
        texts[f"Vim release notes, {chars // 1000} KB"] = VIM.read_text(encoding="utf-8")[:chars]
    others = peers()
    for name, text in texts.items():
        ours(text)
        parse = cpu_seconds(lambda t=text: parse_document(t, "bench"), args.repeats)
        rate = len(text) / statistics.median(parse) / 1e6
        print(figure(f"{name}: parse_document", parse) + f" ({rate:.1f} M chars/s)")
        for peer, fn in others.items():
            fn(text)
            a, b, r = side_by_side(lambda t=text: ours(t), lambda t=text, f=fn: f(t), args.repeats)
            print(figure(f"{name}: text to chunks, ours", a))
            print(figure(f"{name}: text to chunks, {peer}", b))
            print(ratio_line(f"{name}: vs {peer}", r, None if args.quick else 1.0))


if __name__ == "__main__":
    main()

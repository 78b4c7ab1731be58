"""Documents for the tests: small real-world excerpts written inline, and hypothesis strategies
that generate markdown documents and corpora with questions."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st

from lab import build_corpus, parse_document

# A GPL-3.0-like excerpt: setext title and section headings, `N. Title.` numbered sections,
# decoration lines, a numbered line whose long sentence starts an untitled provision.
GPL_LIKE = """\
GNU GENERAL PUBLIC LICENSE
==========================

Version 3, 29 June 2007

Copyright (C) 2007 Free Software Foundation, Inc. Everyone is permitted to copy and
distribute verbatim copies of this license document, but changing it is not allowed.

Preamble
--------

The GNU General Public License is a free, copyleft license for software and other
kinds of works. By contrast, the GNU General Public License is intended to guarantee
your freedom to share and change all versions of a program.

****

TERMS AND CONDITIONS
--------------------

0. Definitions.

"This License" refers to version 3 of the GNU General Public License.

"The Program" refers to any copyrightable work licensed under this License. Each
licensee is addressed as "you".

1. Source Code.

The "source code" for a work means the preferred form of the work for making
modifications to it. "Object code" means any non-source form of a work.

2. Basic Permissions.

All rights granted under this License are granted for the term of copyright on the
Program, and are irrevocable provided the stated conditions are met. You may convey
covered works to others, subject to Section 1.

3. Protecting Users' Legal Rights From Anti-Circumvention Law.

No covered work shall be deemed part of an effective technological measure under
any applicable law fulfilling obligations under article 11 of the WIPO copyright
treaty adopted on 20 December 1996.

4. Conveying Verbatim Copies.

You may convey verbatim copies of the Program's source code as you receive it, in
any medium, provided that you conspicuously publish an appropriate copyright notice.

----

5. You may charge any price or no price for each copy that you convey, and you may
offer support or warranty protection for a fee, as permitted by Section 2.

END OF TERMS AND CONDITIONS
"""

# An Apache-2.0-like excerpt: centred title lines, `N. Title. Body...` sections whose first
# sentence wraps onto the next lines, lettered list items.
APACHE_LIKE = """\
                                 Apache License
                           Version 2.0, January 2004

   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION

   1. Definitions.

      "License" shall mean the terms and conditions for use, reproduction,
      and distribution as defined by this document.

      "Licensor" shall mean the copyright owner or entity authorized by
      the copyright owner that is granting the License.

      "Work" shall mean the work of authorship made available under the License.

   2. Grant of Copyright License. Subject to the terms and conditions of
      this License, each Contributor hereby grants to You a perpetual,
      worldwide, non-exclusive, no-charge, royalty-free, irrevocable
      copyright license to reproduce the Work.

   3. Grant of Patent License. Subject to the terms and conditions of
      this License, each Contributor hereby grants to You a patent license.
      If You institute patent litigation, the licenses granted under
      Section 3 terminate as of the date such litigation is filed.

   4. Redistribution. You may reproduce and distribute copies of the
      Work in any medium, provided that You meet the following conditions:

      (a) You must give any other recipients of the Work a copy of
          this License; and

      (b) You must cause any modified files to carry prominent notices
          stating that You changed the files, as Section 2 allows.

   5. Submission of Contributions. Unless You explicitly state otherwise,
      any Contribution submitted for inclusion in the Work shall be under
      the terms and conditions of this License.

   ────────────────────────────────────────

   END OF TERMS AND CONDITIONS
"""

README = """\
# chunky

A tiny library for splitting text. It works offline.

## Install

Install it with pip:

```bash
pip install chunky
# then check the version
chunky --version
```

## Usage

1. Import the module.
2. Call `split()` on your text.

```python
# a comment, not a heading
from chunky import split
print(split("Hello. World."))
```

| Option | Meaning |
|--------|---------|
| size   | characters per chunk |
| step   | characters between starts |

See the docs at https://example.org/docs. Version 1.2.3 is current.
"""

NO_HEADINGS = """\
Meeting notes from the spring planning session. Everyone agreed that the
old telescope needs a new mount before the autumn open nights.

The budget for repairs is 4,000 pounds, approx. half of last year's figure! Who
signs off the order? The treasurer does, after Dr. Patel checks the quote.

Next meeting: the first Tuesday of May.
"""

REAL_DOCUMENTS = {
    "gpl": GPL_LIKE,
    "apache": APACHE_LIKE,
    "readme": README,
    "notes": NO_HEADINGS,
}


# The TechNova support collection's documents, in the order of data/technova/collection.json
TECHNOVA_DOCS = [
    "firmware-changelog.md",
    "troubleshooting-guide.md",
    "product-specs.html",
    "headphones-faq.md",
    "returns-policy.md",
    "support-call.txt",
    "wh-500-quick-start.md",
]

# The chunkers of SPEC section 4 whose contracts these tests pin down; later chunkers (recursive,
# semantic, parent-child, ...) promise other things and bring their own tests.
SPEC_CHUNKERS = ("fixed", "sentence", "structure", "qes-dp", "qes-greedy")

# Names the product promises, written here rather than read from the code under test.
LEXICAL_MODES = ("flat", "graph")  # SPEC 5: the modes that need no embedding model
ALL_MODES = ("flat", "graph", "dense", "hybrid")  # SPEC 5 and its later dense and hybrid modes
EMBEDDING_MODEL = "all-MiniLM-L6-v2"  # README: the bundled embedding model
RERANKER_MODEL = "cross-encoder/ms-marco-MiniLM-L6-v2"  # README: the default cross-encoder
DENSE_INSTALL = "pip install -r requirements-dense.txt"  # README: how to enable dense retrieval


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


WORDS = _words(
    "comet dome filter lens night visitor escort terrace torch gate badge rule zone permit tour "
    "guide mount shutter ticket group warden archive pier eyepiece"
)
FILLER = _words("the a of and is on to must may every")
TITLE_WORDS = _words(
    "Access Conduct Lighting Safety Groups Parking Records Visitors Telescope Hours"
)
ASIDES = (
    *("",) * 3,
    " e.g. at the gate",
    " under Section {ref}",
    " near the 1.2-metre mount",
    " as Dr. Vega asked",
    " (see Sections {ref}, {ref} and {ref})",
    " per \u00a7 {ref}",
)
# Block kinds, prose three times as likely as any other.
BLOCK_KINDS = _words(
    "paragraph paragraph paragraph atx numbered setext list table decoration code long"
)


@st.composite
def references(draw) -> str:
    return f"{draw(st.integers(1, 3))}.{draw(st.integers(1, 3))}"


@st.composite
def sentences(draw, max_words: int = 16) -> str:
    words = draw(st.lists(st.sampled_from(WORDS + FILLER), min_size=1, max_size=max_words))
    aside = draw(st.sampled_from(ASIDES))
    while "{ref}" in aside:
        aside = aside.replace("{ref}", draw(references()), 1)
    end = draw(st.sampled_from(".!?."))
    return " ".join(words).capitalize() + aside + end


@st.composite
def titles(draw) -> str:
    return " ".join(draw(st.lists(st.sampled_from(TITLE_WORDS), min_size=1, max_size=3)))


@st.composite
def blocks(draw) -> str:
    kind = draw(st.sampled_from(BLOCK_KINDS))
    if kind == "atx":
        number = draw(
            st.sampled_from(["", f"{draw(st.integers(1, 3))} ", f"{draw(references())} "])
        )
        return "#" * draw(st.integers(1, 4)) + " " + number + draw(titles())
    if kind == "numbered":
        number, title = draw(references()), draw(titles())
        forms = [
            f"{number} {title}",
            f"{number}. {title}",
            f"{number[0]}. {title}.",
            f"{number[0]}. {title}. {draw(sentences())}\n{draw(sentences())}",  # title, then body
            f"   {number[0]}. {draw(sentences(max_words=30))}\n      {draw(sentences())}",
        ]
        return draw(st.sampled_from(forms))
    if kind == "setext":
        title = draw(titles())
        return title + "\n" + draw(st.sampled_from("=-")) * len(title)
    if kind == "list":
        items = draw(st.lists(sentences(), min_size=1, max_size=3))
        marker = draw(st.sampled_from(["- ", "* ", "1. "]))
        return "\n".join(marker + item for item in items)
    if kind == "table":
        rows = draw(
            st.lists(st.tuples(st.sampled_from(WORDS), st.integers(0, 99)), min_size=1, max_size=3)
        )
        return "| item | count |\n|---|---|\n" + "\n".join(f"| {w} | {n} |" for w, n in rows)
    if kind == "decoration":
        return draw(st.sampled_from(["****", "----", "\u2500" * 12, "* * *"]))
    if kind == "code":
        return "```\n# a comment, not a heading\nrun --fast\n```"
    if kind == "long":
        return draw(sentences(max_words=90))
    joiner = draw(st.sampled_from([" ", "\n"]))
    return joiner.join(draw(st.lists(sentences(), min_size=1, max_size=4)))


@st.composite
def markdown_documents(draw) -> str:
    """Markdown with random headings (ATX, numbered, setext), paragraphs, lists, tables, code,
    decoration lines and over-long sentences; always some prose."""
    parts = draw(st.lists(blocks(), min_size=1, max_size=14))
    parts.insert(draw(st.integers(0, len(parts))), draw(sentences()))
    return "\n\n".join(parts) + draw(st.sampled_from(["", "\n"]))


@st.composite
def corpora(draw):
    """A one-document corpus over a generated document, with train and test questions whose
    evidence is one or more of its sentences (or two consecutive ones as one string)."""
    text = draw(markdown_documents())
    doc = parse_document(text)
    prose = [u for u in doc.units if u.kind == "sentence"]
    questions = []
    for q in range(draw(st.integers(0, 5)) if prose else 0):
        evidence = []
        for k in draw(
            st.lists(st.integers(0, len(prose) - 1), min_size=1, max_size=3, unique=True)
        ):
            stop = prose[min(k + draw(st.integers(0, 1)), len(prose) - 1)].end
            evidence.append(text[prose[k].start : max(stop, prose[k].end)])
        questions.append(
            {
                "id": f"q{q}",
                "question": " ".join(
                    draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
                ),
                "evidence": evidence,
                "split": draw(st.sampled_from(["train", "test"])),
            }
        )
    return build_corpus({"generated": text}, {"questions": questions})


def real_text(path: Path) -> str:
    """An installed real text, the test skipped when it is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        pytest.skip(f"{path} is not UTF-8")


def zipf_weights(rng, n, terms, length, repeats):
    """A canonical chunk x term matrix like BM25's: each row ``length`` or fewer terms drawn
    by a Zipf law (a few terms in most rows), the common ones weighing less; ``repeats`` rows
    copied and as many copied with one weight nudged (cosines near 1 and ties)."""
    p = 1.0 / np.arange(1, terms + 1) ** 1.1
    rows, cols = [], []
    for i in range(n):
        picked = np.unique(rng.choice(terms, size=int(rng.integers(1, length + 1)), p=p / p.sum()))
        rows += [i] * len(picked)
        cols += picked.tolist()
    cols = np.array(cols)
    weights = (0.2 + np.log1p(cols)) * (0.5 + rng.random(len(cols)))
    m = sp.csr_matrix((weights, (rows, cols)), shape=(n, terms))
    copies = rng.integers(0, n, size=repeats)
    nudged = sp.csr_matrix(m[rng.integers(0, n, size=repeats)])
    nudged.data[:: max(1, len(nudged.data) // max(repeats, 1))] *= 1 + 1e-9
    m = sp.csr_matrix(sp.vstack([m, m[copies], nudged]))
    m.sort_indices()
    return m

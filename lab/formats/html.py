"""Read an HTML document with BeautifulSoup into the same units as markdown.

The document's text is the text a reader sees, laid out as plain text: headings (h1-h6) on lines
of their own, paragraphs separated by blank lines, list items one per line (``- `` or ``3. ``),
table rows one per line with cells joined by ``" | "`` (a table that lays out a page, holding
headings, lists or other tables, is read as blocks instead). Scripts, styles and other non-content
elements are dropped and whitespace runs collapse, as a browser shows them. Evidence is located
in this extracted text, so chunk offsets are offsets into it.

BeautifulSoup repairs markup that is not well formed the way browsers do; a separate check with
the standard library's tokenizer names what was repaired (a tag closed without being opened, an
element never closed), so the user knows the text may not read as they meant.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from ..parse import Document, UnitBuilder
from .blocks import Block, build

if TYPE_CHECKING:
    from bs4 import Tag

DROPPED = frozenset(
    "script style noscript template head svg canvas iframe object embed math button select "
    "input textarea".split()
)
BLOCKS = frozenset(
    "html body main article section header footer nav aside div p blockquote figure figcaption "
    "address details summary form fieldset legend dl dt dd hr center caption".split()
)
LISTS = frozenset(("ul", "ol", "menu"))
TABLE_PARTS = frozenset("table thead tbody tfoot tr td th".split())
# A table whose cells hold any of these lays out a page rather than holding data (paragraphs and
# divs are not signs: exported data tables often wrap each cell in one).
LAYOUT_SIGNS = frozenset(
    "table h1 h2 h3 h4 h5 h6 ul ol dl pre blockquote form section article".split()
)
HEADINGS = {f"h{n}": n for n in range(1, 7)}

# Elements that may legally be left open (their end tag is optional), and void elements.
OPTIONAL_END = frozenset(
    "html head body p li dt dd tr td th thead tbody tfoot option optgroup colgroup caption rt rp "
    "rb rtc".split()
)
VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr basefont frame "
    "keygen".split()
)
MAX_PROBLEMS = 3

# The page around the main content: navigation, banners, asides (``header`` and ``footer`` of an
# article or section are its own and stay), by element, role, or class and id.
CHROME = frozenset("nav header footer aside".split())
CHROME_ROLES = frozenset("navigation banner contentinfo complementary search".split())
CONTENT = ("article", "section", "main")
_CHROME_MARKS = re.compile(
    r"\b(?:toc|table-of-contents|tableofcontents|sidebar|sphinxsidebar\w*|related|breadcrumbs?"
    r"|headerlink|skip-?link|navbar|nav|navheader|navfooter|menu|site-header|site-footer|copy-?button|copybtn)\b"
)
PERMALINK_MARKS = frozenset("# \u00b6 \u00a7 \U0001f517 \u2693".split())
PARSERS = ("main", "page")


def _words(text: str) -> str:
    return " ".join(text.split())


class _Walker:
    """Turns a parsed HTML tree into content blocks in reading order, without recursion (a
    document nested thousands of elements deep reads like any other). With ``main``, only the
    main content: the ``main`` element (or ``role=main``) when there is one, and never
    navigation, headers and footers outside an article, asides, tables of contents or
    permalink marks."""

    def __init__(self, main: bool = True) -> None:
        # BeautifulSoup is imported with the first HTML document, not with the lab.
        import bs4

        self.main = main
        self.blocks: list[Block] = []
        self.inline: list[str] = []
        self.skipped = (bs4.Comment, bs4.Declaration, bs4.Doctype, bs4.ProcessingInstruction)
        self.string, self.tag = bs4.NavigableString, bs4.Tag
        self.pending: tuple[str, bool] | None = None  # an open list item's marker, first?
        self.numbers: dict[int, int] = {}  # the next number of each open ordered list

    def add(self, block: Block) -> None:
        self.pending = None
        self.blocks.append(block)

    def flush(self) -> None:
        text = _words("".join(self.inline))
        self.inline = []
        if not text:
            return
        if self.pending is not None:
            marker, first = self.pending
            self.add(Block("item", text, marker=marker, first=first))
        else:
            self.add(Block("para", text))

    def walk(self, root: Tag) -> None:
        """Read ``root``'s children: an explicit stack of nodes to enter, and of ``None`` marks
        where a block element ends (the text gathered so far is then flushed)."""
        stack: list = list(reversed(list(root.children)))
        while stack:
            node = stack.pop()
            if node is None:
                self.flush()
            elif isinstance(node, self.skipped):
                continue
            elif isinstance(node, self.string):
                self.inline.append(str(node))
            elif isinstance(node, self.tag) and not self.dropped(node):
                children = self.element(node)
                if children is not None:
                    stack.extend(reversed(children))

    def dropped(self, tag: Tag) -> bool:
        if tag.name in DROPPED:
            return True
        if not self.main:
            return False
        if tag.name in CHROME or tag.get("role") in CHROME_ROLES:
            return tag.name not in ("header", "footer") or tag.find_parent(CONTENT) is None
        marks = " ".join([*tag.get("class", ()), str(tag.get("id", ""))]).lower()
        return bool(marks) and _CHROME_MARKS.search(marks) is not None

    def element(self, tag: Tag) -> list | None:
        """Handle ``tag``; the nodes to read after it (its children, then an end mark for a
        block), or None when it is read whole."""
        name = tag.name
        if name == "br":
            self.inline.append(" ")
        elif name in HEADINGS and not (self.main and _is_byline(tag)):
            self.flush()
            text = _heading_text(tag, self.main)
            if text:
                self.add(Block("heading", text, level=HEADINGS[name]))
        elif name in HEADINGS:  # an author's name set as a heading: a line of text
            self.flush()
            return [*tag.children, None]
        elif name == "table" and not _lays_out_page(tag):
            self.flush()
            self.table(tag)
        elif name == "pre":
            self.flush()
            code = tag.get_text().strip("\n")
            if code.strip():
                self.add(Block("code", code))
        elif name == "li":
            self.flush()
            parent = tag.parent
            if parent is not None and parent.name in LISTS:
                first = id(parent) not in self.numbers
                number = self.numbers.setdefault(id(parent), _int(parent.get("start"), 1))
                self.numbers[id(parent)] = number + 1
                self.pending = (f"{number}. " if parent.name == "ol" else "- ", first)
            return [*tag.children, None]
        elif name in LISTS or name in BLOCKS or name in TABLE_PARTS:
            self.flush()
            return [*tag.children, None]
        else:
            return list(tag.children)
        return None

    def table(self, tag: Tag) -> None:
        caption = tag.find("caption")
        if caption is not None and _words(caption.get_text(" ")):
            self.add(Block("para", _words(caption.get_text(" "))))
        rows = []
        for tr in tag.find_all("tr"):
            if tr.find_parent("table") is not tag:
                continue  # a row of a nested table: part of its cell's text
            cells = tr.find_all(("td", "th"), recursive=False)
            if not cells:
                continue
            header = tr.parent.name == "thead" or all(c.name == "th" for c in cells)
            rows.append(([_words(c.get_text(" ")) for c in cells], header))
        if rows:
            self.add(Block("table", rows=rows))


def _lays_out_page(table: Tag) -> bool:
    """Whether a table lays out a page (it holds headings, lists or another table): its cells
    are then read as blocks of text, not as rows of data."""
    return table.find(LAYOUT_SIGNS) is not None


def _heading_text(tag: Tag, main: bool) -> str:
    """A heading's words; with ``main``, without its permalink marks (``#``, ``¶``)."""
    words = _words(tag.get_text(" ")).split(" ")
    if main:
        while words and words[-1] in PERMALINK_MARKS:
            words.pop()
        while words and words[0] in PERMALINK_MARKS:
            words.pop(0)
    return " ".join(words)


def _is_byline(tag: Tag) -> bool:
    """Whether a heading element holds an author's name (DocBook's ``class="author"``)."""
    marks = " ".join(
        [*tag.get("class", ()), *(p.get("class", [""])[0] for p in tag.parents if p.get("class"))]
    )
    return "author" in marks.lower()


def _main_content(soup: Tag) -> Tag:
    """The page's main element (``main``, or an element with ``role=main``), else the page."""
    found = soup.find("main") or soup.find(attrs={"role": "main"})
    return found if found is not None else soup


def _int(value, default: int) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


def extract(source: str, parser: str = "main") -> tuple[str, UnitBuilder]:
    """The extracted text of HTML ``source`` and its units (headings, sentences, list items,
    table rows with their cells, code blocks): of its main content (``parser="main"``) or of
    the whole page (``"page"``)."""
    if parser not in PARSERS:
        raise ValueError(f"unknown HTML parser {parser!r}; choose from {', '.join(PARSERS)}")
    walker = _Walker(main=parser == "main")
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(source, "html.parser")
    walker.walk(_main_content(soup) if walker.main else soup)
    walker.flush()
    builder = build(walker.blocks)
    return builder.text, builder


def read(source: str, parser: str = "main") -> UnitBuilder:
    """The units of HTML ``source``'s extracted text (its main content, or with ``parser=
    "page"`` the whole page); what had to be repaired is in its ``problems``."""
    _, builder = extract(source, parser)
    builder.problems.extend(well_formedness(source))
    return builder


def parse_html(source: str, name: str = "document", parser: str = "main") -> Document:
    """Parse HTML ``source`` into a :class:`~lab.parse.Document` over its extracted text; what
    had to be repaired is in the document's ``problems``."""
    return read(source, parser).document(name, "html")


class _TagCheck(HTMLParser):
    """Tracks open elements to name end tags that close nothing and elements never closed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int]] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_endtag(self, tag) -> None:
        line = self.getpos()[0]
        names = [t for t, _ in self.stack]
        if tag not in names:
            if tag not in VOID:
                self.problems.append(f"</{tag}> on line {line} closes no open <{tag}>")
            return
        while self.stack:
            open_tag, opened = self.stack.pop()
            if open_tag == tag:
                return
            if open_tag not in OPTIONAL_END:
                self.problems.append(
                    f"<{open_tag}> opened on line {opened} is not closed before </{tag}> "
                    f"on line {line}"
                )

    def finish(self) -> list[str]:
        self.close()
        for tag, opened in self.stack:
            if tag not in OPTIONAL_END:
                self.problems.append(f"<{tag}> opened on line {opened} is never closed")
        return self.problems


def well_formedness(source: str) -> list[str]:
    """One note saying how ``source`` is not well formed (up to three problems), or none."""
    check = _TagCheck()
    check.feed(source)
    problems = check.finish()
    if not problems:
        return []
    more = len(problems) - MAX_PROBLEMS
    listed = "; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
    return [
        f"the HTML is not well formed ({listed}); it was read leniently, as a browser would, "
        "so check its extracted text in the index overview"
    ]

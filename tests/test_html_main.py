"""HTML main content (``lab.formats.html``): the page's chrome left out by default, permalink
marks stripped, block elements on lines of their own, deep nesting read without recursion."""

import pytest

from lab import outline, parse_html

PAGE = """<!doctype html><html><body>
<header><a href="/">Home</a> <nav><ul><li>Docs</li><li>Blog</li></ul></nav></header>
<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul><li>1. Intro</li></ul></div>
<div class="body">
<h1>zlib API<a class="headerlink" href="#z">\u00b6</a></h1>
<nav class="toc"><h2>Table of Contents</h2><ol><li>Compression</li></ol></nav>
<h2 id="c">Compression <a href="#c">#</a></h2>
<div><span>Added in: v2.0</span></div><div><span>Deprecated since: v3.1</span></div>
<pre>deflate(data)</pre><button>Copy</button><pre>inflate(data)</pre>
<aside>Sponsored: buy things.</aside>
</div>
<footer>Copyright 2024. Privacy.</footer>
</body></html>"""


def test_main_content_leaves_out_navigation_tocs_asides_and_footers():
    doc = parse_html(PAGE, "api.html")
    assert [(h["level"], h["title"]) for h in outline(doc)] == [
        (1, "zlib API"),
        (2, "Compression"),
    ]
    assert doc.text.startswith("zlib API\n\nCompression")
    for chrome in ("Home", "Docs", "Navigation", "Table of Contents", "Sponsored", "Copyright"):
        assert chrome not in doc.text
    assert "Added in: v2.0\n\nDeprecated since: v3.1" in doc.text
    code = [doc.text[u.start : u.end] for u in doc.units if u.kind == "code"]
    assert code == ["deflate(data)", "inflate(data)"]


def test_the_page_parser_keeps_the_whole_page():
    doc = parse_html(PAGE, "api.html", parser="page")
    assert "Home" in doc.text and "Copyright 2024." in doc.text
    assert "Table of Contents" in [h["title"] for h in outline(doc)]


def test_an_articles_own_header_stays_and_main_is_read_alone():
    page = (
        "<body><p>Cookie banner text.</p><main><article><header><h1>Post</h1></header>"
        "<p>Body text.</p></article></main></body>"
    )
    doc = parse_html(page, "p.html")
    assert doc.text == "Post\n\nBody text."


def test_html_nested_thousands_deep_reads_without_recursion():
    page = "<div>" * 3000 + "<p>Deep text. Two.</p>" + "</div>" * 3000
    doc = parse_html(page, "deep.html")
    assert doc.text == "Deep text. Two."
    assert len(doc.units) == 2


def test_an_unknown_html_parser_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="main, page"):
        parse_html("<p>x</p>", "x.html", parser="fast")


def test_the_parser_option_reaches_the_corpus_from_the_command_line(tmp_path, capsys):
    import json

    from lab.cli import main

    page = tmp_path / "api.html"
    page.write_text(PAGE, encoding="utf-8")
    assert main(["outline", "--format", "json", "--parser", "page", str(page)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert "Navigation" in [h["title"] for h in entry["headings"]]
    from lab import load_corpus

    main_text = load_corpus([page]).documents[0].text
    page_text = load_corpus([page], parser="page").documents[0].text
    assert "Home" in page_text and "Home" not in main_text
    assert main(["run", "--doc", str(page), "--qe", str(page), "--parser", "full"]) == 2
    assert "unknown parser 'full'; choose from main, page" in capsys.readouterr().err

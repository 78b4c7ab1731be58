"""reStructuredText (``lab.formats.rst``): section titles by adornment, literal blocks as code."""

from lab import outline, read_document

DOC = """\
=========
 Project
=========

Intro paragraph. It has two sentences.

Install
*******

Run this::

    # not a heading
    pip install project

Details
^^^^^^^

- an item
- another item

.. code-block:: python
   :linenos:

   # nor this
   print(1)

.. a comment that is
   no content

Usage with :func:`run` and ``--fast``
*************************************

Text.

----

Last
^^^^

End.
"""


def test_titles_get_levels_in_the_order_their_adornments_appear():
    doc = read_document(DOC, "x.rst", "rst")
    assert [(h["level"], h["title"]) for h in outline(doc)] == [
        (1, "Project"),
        (2, "Install"),
        (3, "Details"),
        (2, "Usage with run and --fast"),
        (3, "Last"),
    ]
    for h in outline(doc):
        assert doc.text[h["start"] :].startswith(h["title"][:5])


def test_literal_blocks_and_code_directives_are_code_units_and_comments_no_content():
    doc = read_document(DOC, "x.rst", "rst")
    code = [doc.text[u.start : u.end] for u in doc.units if u.kind == "code"]
    assert code == ["# not a heading\n    pip install project", "# nor this\n   print(1)"]
    sentences = [doc.text[u.start : u.end] for u in doc.units if u.kind == "sentence"]
    assert "Intro paragraph." in sentences and "- an item" in sentences
    assert not any("comment" in s for s in sentences)
    assert [p.path for p in doc.provisions if p.title == "Details"] == ["Install \u203a Details"]

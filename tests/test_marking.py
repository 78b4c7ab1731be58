"""Units to mark as evidence, shown as a reader sees them rendered: markdown's marks gone, the
text itself kept (what is marked is still the document's own text at its offsets)."""

import pytest

from lab import build_corpus, search
from lab.marking import readable


@pytest.mark.parametrize(
    ("text", "kind", "shown"),
    [
        (
            "- **Faithfulness**: Measures if the response",
            "sentence",
            "Faithfulness: Measures if the response",
        ),
        (
            "5. **Evaluate** it with `ragas` and [its docs](https://docs.ragas.io).",
            "sentence",
            "5. Evaluate it with ragas and its docs.",
        ),
        ("> ## Note: *very* important", "sentence", "Note: very important"),
        ("* [x] a task done", "sentence", "a task done"),
        ("snake_case_names and 2*3*4 stay", "sentence", "snake_case_names and 2*3*4 stay"),
        (r"Escaped \*stars\* and \# stay", "sentence", "Escaped *stars* and # stay"),
        ("A ~~bad~~ good <br/> line &amp; more", "sentence", "A bad good  line & more"),
        (
            "See <https://example.com> and ![the logo](logo.png).",
            "sentence",
            "See https://example.com and the logo.",
        ),
        ("| WH-500 | **30 h** | `USB-C` |", "row", "WH-500 | 30 h | USB-C"),
        ("```python\nx = **kwargs\n```", "code", "```python\nx = **kwargs\n```"),
    ],
)
def test_a_unit_reads_without_its_markdown_marks(text, kind, shown):
    assert readable(text, kind) == shown


def test_marking_a_readable_unit_still_marks_the_documents_own_text():
    text = "# Notes\n\n- **Faithfulness**: measures *grounding* in the context.\n"
    (hit,) = search(build_corpus({"notes": text}, None), "grounding")
    assert hit.text == "- **Faithfulness**: measures *grounding* in the context."
    assert text[hit.start : hit.end] == hit.text
    assert readable(hit.text, hit.kind) == "Faithfulness: measures grounding in the context."

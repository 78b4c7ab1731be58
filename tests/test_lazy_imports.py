"""What importing the engine brings in, in a fresh interpreter: not pandas (tables), scipy.stats
(the Compare page's tests), BeautifulSoup (HTML documents) or the dense stack; each comes with
the first call that needs it. (Import times are measured in ``benchmarks/``, not here.)"""

import json
import subprocess
import sys

from app_support import ROOT

LATE = ("pandas", "scipy.stats", "bs4", "networkx", "torch", "sentence_transformers")


def imported_after(code: str) -> list[str]:
    found = f"sorted(m for m in {LATE!r} if m in sys.modules)"
    probe = f"import json, sys\n{code}\nprint(json.dumps({found}))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_engine_leaves_the_heavy_modules_out():
    assert imported_after("import lab, lab.cli") == []


def test_a_run_needs_no_table_library_and_a_table_brings_pandas():
    run = (
        "from lab import LabConfig, load_corpus, run_lab\n"
        "r = run_lab(load_corpus('data/handbook.md', 'data/handbook_qe.json'), LabConfig())"
    )
    assert imported_after(run) == []
    assert imported_after(run + "\nr.metrics_frame()") == ["pandas"]


def test_an_html_document_brings_beautifulsoup():
    code = "from lab import parse_html\nparse_html('<h1>T</h1><p>One. Two.</p>', 'x.html')"
    assert imported_after(code) == ["bs4"]

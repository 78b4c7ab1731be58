"""The suite's own rules: an AppTest file (``test_app_*.py``) must carry the ``app`` marker, or
collection fails, so an engine-only run never starts the app by accident."""

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
UNMARKED = "def test_page():\n    assert True\n"
MARKED = "import pytest\n\npytestmark = pytest.mark.app\n\n" + UNMARKED


def collect(folder: Path) -> subprocess.CompletedProcess:
    """Collect ``folder`` with this suite's conftest as a plugin."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "--collect-only", "-q"]
        + ["-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join((str(TESTS), str(TESTS.parent)))},
        cwd=folder,
    )


def test_an_app_test_file_without_the_app_marker_fails_collection(tmp_path):
    (tmp_path / "test_app_marked.py").write_text(MARKED)
    (tmp_path / "test_app_forgotten.py").write_text(UNMARKED)
    (tmp_path / "test_engine.py").write_text(UNMARKED)  # not an AppTest file: no marker needed
    run = collect(tmp_path)
    assert run.returncode == 4  # pytest's usage error
    assert "test_app_forgotten.py: an AppTest file needs pytestmark = pytest.mark.app" in run.stderr
    assert "test_app_marked.py" not in run.stderr and "test_engine.py" not in run.stderr


def test_marked_app_test_files_collect(tmp_path):
    (tmp_path / "test_app_marked.py").write_text(MARKED)
    (tmp_path / "test_engine.py").write_text(UNMARKED)
    run = collect(tmp_path)
    assert run.returncode == 0, run.stderr
    assert "2 tests collected" in run.stdout


def test_ci_runs_the_readmes_test_command_in_a_fresh_venv_before_the_full_run():
    """Issue 21, item 1: CI installs every extra, so on its own it never sees what a new user
    sees. It first runs the README's test command in a new virtual environment holding only
    requirements-dev.txt, then the full run."""
    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    command = re.search(
        r"^pip install -r requirements-dev\.txt && (python -m pytest)\s", readme, re.M
    )
    assert command, "the README's test command"
    steps = [
        line.strip()
        for line in (TESTS.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    venv = next(i for i, s in enumerate(steps) if s.startswith("python -m venv "))
    folder = steps[venv].removeprefix("python -m venv ").strip('"')
    python = f'"{folder}/bin/python"'
    fresh_install = steps.index(f"{python} -m pip install -r requirements-dev.txt")
    fresh_tests = steps.index(f"{python} {command[1].removeprefix('python ')}")
    full_install = next(i for i, s in enumerate(steps) if "requirements-dense.txt" in s)
    full_tests = len(steps) - 1 - steps[::-1].index(command[1])
    assert venv < fresh_install < fresh_tests < full_install < full_tests

"""The code examples of README.md and docs/*.md run, so they cannot drift from the code.

Every fenced block marked ``python``, ``pycon`` or ``console`` is an example:

- ``python`` blocks are executed;
- ``pycon`` blocks (``>>>`` prompts) are run as doctests: what they show is
  checked as a plain doctest: the output must be shown exactly as it prints
  (``...`` matches anything; whitespace is normalized). A number that may
  move in its last digits is shown through ``round`` or a format, or tested
  against a range;
- ``console`` blocks hold ``$ pranker ...`` commands, each followed by what it
  prints: the command is run from the top of the repository and its output
  must be the one shown, line for line.

The blocks of one page run in order in one namespace (a later block may use the
names an earlier one defined), in a temporary working directory, so examples
may write files. A block that cannot run here (a cluster address, files that do
not exist) is preceded by the line ``<!-- not run: REASON -->``; keep those
few. ``docs/calibration.md`` is left out while it is being rewritten.

The API reference is checked here too: every name in ``pranker.__all__`` has a
page in ``docs/api/``, and every name that left the top level has one under its
submodule's path.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted(
    p for p in (ROOT / "docs").glob("*.md") if p.name not in {"calibration.md"}
)

_FENCE = re.compile(r"^(`{3,})([\w-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_SKIP = re.compile(r"<!--\s*not run:[^>]*-->\s*$")


def _examples(path: Path):
    """(lineno, language, code) of each runnable python/pycon block of a page."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        lang = m.group(2).lower()
        if lang not in {"python", "py", "pycon", "console"}:
            continue
        before = text[: m.start()].rstrip("\n")
        last_line = before.rsplit("\n", 1)[-1]
        if _SKIP.search(last_line):
            continue
        lineno = text.count("\n", 0, m.start()) + 1
        out.append((lineno, lang, m.group(3)))
    return out


@pytest.fixture
def in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        import matplotlib
    except ImportError:
        pass
    else:
        matplotlib.use("Agg")
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples(page, in_tmp_dir):
    examples = _examples(page)
    if not examples:
        pytest.skip("no runnable example")
    namespace = {"__name__": "__docs_example__"}
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for lineno, lang, code in examples:
        where = f"{page.relative_to(ROOT)}:{lineno}"
        if lang == "console":
            _check_console(code, where)
        elif lang == "pycon":
            test = doctest.DocTestParser().get_doctest(code, namespace, where, str(page), lineno)
            test.globs = namespace  # shared with the page's other blocks
            runner = doctest.DocTestRunner(optionflags=flags)
            failures = []
            runner.run(test, out=failures.append, clear_globs=False)
            assert runner.failures == 0, f"{where}: example output differs\n" + "".join(failures)
        else:
            exec(compile(code, where, "exec"), namespace)


def _commands(code: str):
    """(command, expected output) of each ``$ `` line of a console block."""
    out: list = []
    for line in code.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line.rstrip())
    return [(cmd, "\n".join(lines).strip("\n")) for cmd, lines in out]


def _check_console(code: str, where: str) -> None:
    commands = _commands(code)
    assert commands, f"{where}: a console block without a '$ ' command"
    for cmd, want in commands:
        argv = shlex.split(cmd)
        assert argv[0] == "pranker", f"{where}: only pranker commands are run, not {cmd!r}"
        env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONPATH=str(ROOT))
        proc = subprocess.run(
            [sys.executable, "-m", "pranker", *argv[1:]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
        )
        assert proc.returncode == 0, f"{where}: {cmd} failed\n{proc.stderr}"
        got = "\n".join(line.rstrip() for line in proc.stdout.splitlines()).strip("\n")
        assert got == want, f"{where}: {cmd} prints\n{got}\n\nbut the page shows\n{want}"


def test_console_blocks_are_parsed():
    """A console block's commands and outputs are split where they should be."""
    block = "$ pranker --version\npranker 1.0\n\n$ pranker x  \na  \nb\n"
    assert _commands(block) == [("pranker --version", "pranker 1.0"), ("pranker x  ", "a\nb")]


def test_skip_marker_is_rare():
    """Blocks that are not run stay the exception."""
    n_skipped = sum(
        len(re.findall(r"<!--\s*not run:", p.read_text(encoding="utf-8"))) for p in PAGES
    )
    n_run = sum(len(_examples(p)) for p in PAGES)
    assert n_skipped <= max(3, n_run // 3)


def test_every_public_name_has_an_api_page():
    import pranker
    import pranker.compat
    import pranker.dask

    listed = set()
    for rst in (ROOT / "docs" / "api").glob("*.rst"):
        text = rst.read_text(encoding="utf-8")
        module = "pranker"
        for line in text.splitlines():
            m = re.match(r"\.\. currentmodule:: ([\w.]+)", line)
            if m:
                module = m.group(1)
            m = re.match(r"   (\w+)$", line)
            if m:
                listed.add(f"{module}.{m.group(1)}")
    wanted = {f"pranker.{n}" for n in pranker.__all__}
    wanted |= {f"pranker.{module}.{n}" for n, module in pranker._MOVED.items()}
    wanted |= {f"pranker.compat.{n}" for n in pranker.compat.__all__}
    wanted |= {f"pranker.dask.{n}" for n in pranker.dask.__all__}
    assert sorted(wanted - listed) == []

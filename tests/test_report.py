"""The HTML report (``pranker score --report``) as its readers see it.

Parsed with the standard library's HTML parser (contents, self-containment),
then rendered by a real headless browser (Chromium) when one is installed:
every figure must have its size on the page and the console must show no error.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from pranker.cli.format import pvalue_text  # noqa: E402
from pranker.cli.main import main  # noqa: E402

pytestmark = pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"


class Page(HTMLParser):
    """Text per section (h2), tables, images, links and anything that would load."""

    def __init__(self):
        super().__init__()
        self.sections = {}
        self.current = None
        self.imgs = []
        self.cells = []
        self.row = None
        self.external = []
        self.scripts = 0
        self.in_h2 = False
        self.title = ""
        self._tag = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._tag = tag
        if tag == "h2":
            self.in_h2 = True
            self.current = ""
        elif tag == "img":
            self.imgs.append(a)
        elif tag == "tr":
            self.row = []
        elif tag == "script":
            self.scripts += 1
        if tag in ("img", "script", "iframe", "audio", "video", "source", "embed"):
            if "src" in a and not a["src"].startswith("data:"):
                self.external.append(a["src"])
        if tag == "link":
            self.external.append(a.get("href", ""))
        for v in a.values():
            if v and re.search(r"url\(\s*['\"]?https?:", v):
                self.external.append(v)

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_h2 = False
            self.sections[self.current] = ""
        elif tag == "tr" and self.row is not None:
            self.cells.append(self.row)
            self.row = None
        self._tag = None

    def handle_data(self, data):
        if self._tag == "title":
            self.title += data
        if self.in_h2:
            self.current += data
        elif self.current is not None:
            self.sections[self.current] = self.sections.get(self.current, "") + data
        if self.row is not None and self._tag in ("td", "th"):
            self.row.append(data.strip())


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """A data file with two score columns and its report (written once)."""
    tmp = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(7)
    n = 300
    y = rng.random(n) < 0.12
    a = rng.normal(size=n) + 2.0 * y
    b = rng.normal(size=n) + 0.4 * y
    f = tmp / "preds.csv"
    f.write_text(
        "label,model_a,model_b\n"
        + "".join(f"{int(u)},{float(v)!r},{float(w)!r}\n" for u, v, w in zip(y, a, b, strict=True))
    )
    html_path = tmp / "report.html"
    code = main(
        [
            "score",
            str(f),
            "-s",
            "model_a,model_b",
            "-l",
            "label",
            "--report",
            str(html_path),
            "--quiet",
        ]
    )
    assert code == 0
    return f, html_path


def test_report_contents(scored, capsys):
    f, html_path = scored
    text = html_path.read_text(encoding="utf-8")
    page = Page()
    page.feed(text)
    # self-contained: no network resource, no script, figures inline
    assert page.external == [] and page.scripts == 0
    assert "http://" not in re.sub(r'href="https://doi\.org/[^"]+"', "", text).replace(
        "http://www.w3.org", ""
    )
    assert len(page.imgs) >= 3  # PR curves + one null figure per column
    for img in page.imgs:
        assert img["src"].startswith("data:image/svg+xml;base64,")
        svg = base64.b64decode(img["src"].split(",", 1)[1])
        assert b"<svg" in svg and img.get("alt")
    # the table shows what the command prints
    code, js, _ = run(["score", f, "-s", "model_a,model_b", "-l", "label", "--json"], capsys)
    records = json.loads(js)
    header = page.cells[0]
    assert header[:6] == [
        "scores",
        "method",
        "AUPRC",
        "p-value",
        "log10 p",
        "95% interval of the p-value",
    ]
    rows = {r[0]: r for r in page.cells[1:3]}
    from types import SimpleNamespace

    for rec in records:
        row = rows[rec["score_column"]]
        assert row[1] == rec["method"]
        res = SimpleNamespace(
            **{k: (tuple(v) if isinstance(v, list) else v) for k, v in rec.items()}
        )
        assert row[3] == pvalue_text(res)
        assert float(row[4]) == pytest.approx(rec["log10_pvalue"], abs=1e-3)
    sections = page.sections
    assert {
        "Results",
        "How each p-value was computed",
        "Figures",
        "What to cite",
        "To reproduce",
    } <= set(sections)
    how = sections["How each p-value was computed"]
    assert "random" in how and "equally likely" in how
    assert "importance sampling" in how or "Exact" in how
    cite = sections["What to cite"]
    assert "Lopes" in cite and "Bontempi" in cite and "10.1007/978-3-662-44851-9_21" in cite
    assert "pranker" in cite
    repro = sections["To reproduce"]
    data = f.read_bytes()
    assert hashlib.sha256(data).hexdigest() in repro
    assert f"{len(data):,} bytes" in repro and "preds.csv" in repro
    assert "--report" in repro and "model_a,model_b" in repro  # the command line
    from pranker import __version__

    assert __version__ in repro and "seed" in repro


def test_report_citation_matches_citation_file():
    from pathlib import Path

    from pranker.cli import report

    cff = Path(__file__).resolve().parents[1] / "CITATION.cff"
    if not cff.exists():
        pytest.skip("CITATION.cff not in this checkout")
    text = cff.read_text()
    assert report.PAPER_DOI in text and report.SOFTWARE_TITLE in text


def test_report_refuses_overwrite_and_is_atomic(scored, capsys, tmp_path):
    f, html_path = scored
    before = html_path.read_bytes()
    code, out, err = run(["score", f, "--report", html_path], capsys)
    assert code == 2 and "--force" in err and html_path.read_bytes() == before
    code, _, err = run(["score", f, "--report", tmp_path / "r.txt"], capsys)
    assert code == 2 and ".html" in err
    code, _, err = run(
        ["score", f, "--report", tmp_path / "x.html", "-o", tmp_path / "x.html"], capsys
    )
    assert code == 2 and "same file" in err
    assert list(tmp_path.iterdir()) == []


def test_report_from_standard_input(monkeypatch, tmp_path, capsys):
    import io
    import sys

    text = "score,label\n" + "".join(f"{i / 40!r},{int(i % 4 == 0)}\n" for i in range(40))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    out = tmp_path / "r.html"
    code, _, err = run(["score", "-", "--report", out, "--quiet"], capsys)
    assert code == 0, err
    page = out.read_text()
    assert hashlib.sha256(text.encode()).hexdigest() in page and "standard input" in page


# --- a real browser --------------------------------------------------------------

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PROBE = """<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('img').forEach(function (im) {
    var r = im.getBoundingClientRect();
    out.push([im.naturalWidth, im.naturalHeight, Math.round(r.width), Math.round(r.height),
              im.complete]);
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({imgs: out, width: document.documentElement.scrollWidth,
                                    view: window.innerWidth});
  document.body.appendChild(pre);
});
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


@pytest.fixture
def browser():
    exe = chromium()
    if exe is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    return exe


def _chromium(exe, tmp_path, *args, timeout=120):
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def test_report_in_a_browser(scored, browser, tmp_path):
    _, html_path = scored
    text = html_path.read_text(encoding="utf-8")
    # the page as shipped, plus a probe that writes what the browser laid out
    probe = tmp_path / "probe.html"
    probe.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    proc = _chromium(
        browser,
        tmp_path,
        "--window-size=1200,3000",
        "--virtual-time-budget=5000",
        "--enable-logging=stderr",
        "--v=0",
        "--dump-dom",
        probe.as_uri(),
    )
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, proc.stderr[-2000:]
    facts = json.loads(m.group(1).replace("&quot;", '"'))
    assert len(facts["imgs"]) >= 3
    for nat_w, nat_h, w, h, complete in facts["imgs"]:
        assert complete and nat_w > 300 and nat_h > 200  # the SVG decoded
        assert w > 300 and h > 200  # and took its place on the page
        assert w <= facts["view"]  # scaled to the page, not overflowing it
    assert facts["width"] <= facts["view"]  # no horizontal scrolling
    console = [
        ln
        for ln in proc.stderr.splitlines()
        if "CONSOLE" in ln or "Uncaught" in ln or "Failed to load resource" in ln
    ]
    assert console == [], console
    # a screenshot of the page as shipped
    shot = tmp_path / "report.png"
    proc = _chromium(
        browser, tmp_path, "--window-size=1200,3000", f"--screenshot={shot}", html_path.as_uri()
    )
    assert shot.exists() and shot.stat().st_size > 50_000, proc.stderr[-2000:]
    keep = html_path.parent / "report-screenshot.png"
    shutil.copy(shot, keep)  # left next to the report for a look

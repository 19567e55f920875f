"""The HTML report (``pranker score --report``) as its readers see it.

Parsed with the standard library's HTML parser (contents, self-containment),
then rendered by a real headless browser (Chromium) when one is installed:
every figure must have its size on the page and the console must show no error.
"""

from __future__ import annotations

import base64
import hashlib
import html
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
        self._cell = None  # text of the open td/th, nested tags included

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
        elif tag in ("td", "th"):
            self._cell = ""
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
        elif tag in ("td", "th") and self._cell is not None:
            if self.row is not None:
                self.row.append(self._cell.strip())
            self._cell = None
        self._tag = None

    def handle_data(self, data):
        if self._tag == "title":
            self.title += data
        if self.in_h2:
            self.current += data
        elif self.current is not None:
            self.sections[self.current] = self.sections.get(self.current, "") + data
        if self._cell is not None:
            self._cell += data


# each method as a reader reads it: (the table's name, words the prose must use)
METHOD_WORDS = {
    "exact": ("exact enumeration", "placements"),
    "tilt": ("exponential tilting", "Exponential tilting (importance sampling)"),
    "saddlepoint": ("saddlepoint approximation", "Saddlepoint approximation"),
    "montecarlo": ("Monte Carlo", "Monte Carlo"),
    "beta": ("beta approximation", "Beta approximation"),
    "skewbeta": ("skewed beta approximation", "Skewed beta approximation"),
}
# method names that are identifiers, not English: never in the text a reader reads
IDENTIFIERS = re.compile(r"\b(montecarlo|skewbeta|tilt)\b", re.I)


def reader_text(page_html: str) -> str:
    """The page's text as a reader reads it: no style, no code, no machine-readable block."""
    t = re.sub(r"<(style|script|pre|code)\b.*?</\1>", " ", page_html, flags=re.S | re.I)
    t = re.sub(r"<[^>]+>", "", t)  # tags (and their attributes: alt text is read, kept below)
    alts = re.findall(r'alt="([^"]*)"', page_html)
    return html.unescape(t + " " + " ".join(alts))


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
        assert row[1] == METHOD_WORDS[rec["method"]][0]
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


def test_report_words_not_identifiers(scored):
    """Every method and every null interval is named in words, in the table and the prose."""
    from pranker import pranker as pk
    from pranker.cli.report import build_report

    _, html_path = scored
    assert not IDENTIFIERS.search(reader_text(html_path.read_text(encoding="utf-8")))
    rng = np.random.default_rng(3)
    n = 24  # small enough that the exact null interval is enumerated
    y = np.arange(n) % 5 == 0
    s = rng.normal(size=n) + 1.5 * y
    methods = list(METHOD_WORDS)
    results = [pk(s, y, method=m, n_draws=2_000, seed=1) for m in methods]
    assert [r.method for r in results] == methods  # every method really ran
    assert {r.null_interval_method for r in results} >= {"exact", "montecarlo"}
    text = build_report(
        title="words",
        columns=[f"col_{m}" for m in methods],
        results=results,
        padj_log10=None,
        label="label",
        source={"name": "x.csv", "size": 1, "sha256": "0" * 64},
        figures=[],
        argv=["score", "x.csv", "--method", "montecarlo"],
    )
    read = reader_text(text)
    found = IDENTIFIERS.findall(read)
    assert found == [], found
    assert "--method montecarlo" in text  # the command line (code) keeps what was typed
    page = Page()
    page.feed(text)
    rows = {r[0]: r for r in page.cells[1:]}
    for m in methods:
        table_name, prose = METHOD_WORDS[m]
        assert rows[f"col_{m}"][1] == table_name
        (dd,) = re.findall(rf"<dt>col_{m}</dt><dd>(.*?)</dd>", text, re.S)
        assert prose in reader_text(dd), (m, dd)


def test_null_interval_named_in_words():
    """The sentence on the null interval says how it was found, in words, for every kind."""
    from types import SimpleNamespace

    from pranker.cli.report import null_words

    expect = {
        "exact": "exactly",
        "montecarlo": "Monte Carlo",
        "saddlepoint": "saddlepoint approximation",
        "beta": "beta approximation",
        "skewbeta": "skewed beta approximation",
    }
    for im, words in expect.items():
        r = SimpleNamespace(
            n=100,
            n_pos=10,
            null_mean=0.1,
            null_var=1e-3,
            conf_level=0.95,
            ties="average",
            null_interval=(0.05, 0.2),
            null_interval_method=im,
        )
        text = null_words(r)
        assert words in text and not IDENTIFIERS.search(text), text
        assert "method" not in text  # not "computed by the montecarlo method"


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


TABLE_PROBE = """<script>
window.addEventListener('load', function () {
  function box(el) {
    var r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width, sw: el.scrollWidth, cw: el.clientWidth};
  }
  var table = document.querySelector('table.results');
  var facts = {
    view: window.innerWidth, page: document.documentElement.scrollWidth,
    table: box(table), wrap: box(table.parentElement),
    heads: Array.from(table.querySelectorAll('th')).map(function (h) {
      var b = box(h); b.text = h.textContent; return b;
    }),
    cells: Array.from(table.querySelectorAll('td')).map(box)
  };
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(facts);
  document.body.appendChild(pre);
});
</script>"""


def test_report_table_fits_a_1024px_window(browser, tmp_path):
    """The widest results table (long score names, three columns, BH) fits a 1024 px
    window: no column is cut off, scrolled out of view or overflowing its cell."""
    rng = np.random.default_rng(11)
    n = 300
    y = rng.random(n) < 0.12
    names = [
        "gradient_boosting_calibrated_v2",
        "logistic_regression_baseline",
        "random_forest_500_trees_depth_12",
    ]
    cols = [rng.normal(size=n) + 2.0 * y, rng.normal(size=n) + 0.4 * y, rng.normal(size=n) + 5 * y]
    f = tmp_path / "long.csv"
    f.write_text(
        "label,"
        + ",".join(names)
        + "\n"
        + "".join(
            f"{int(y[i])}," + ",".join(repr(float(c[i])) for c in cols) + "\n" for i in range(n)
        )
    )
    html_path = tmp_path / "long.html"
    argv = ["score", f, "-s", ",".join(names), "-l", "label", "--report", html_path, "--quiet"]
    assert main([str(a) for a in argv]) == 0
    probe = tmp_path / "probe.html"
    probe.write_text(
        html_path.read_text(encoding="utf-8").replace("</body>", TABLE_PROBE + "</body>"),
        encoding="utf-8",
    )
    proc = _chromium(
        browser,
        tmp_path,
        "--window-size=1024,2000",
        "--virtual-time-budget=5000",
        "--dump-dom",
        probe.as_uri(),
    )
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, proc.stderr[-2000:]
    facts = json.loads(html.unescape(m.group(1)))
    view, table, wrap = facts["view"], facts["table"], facts["wrap"]
    assert 900 < view <= 1024  # the window really was 1024 px wide
    assert facts["page"] <= view  # the page does not scroll sideways
    assert wrap["right"] <= view and table["right"] <= view + 0.5  # the table ends on screen
    assert wrap["sw"] <= wrap["cw"]  # nothing hidden in its scroll container either
    heads = [h["text"] for h in facts["heads"]]
    assert heads == [
        "scores",
        "method",
        "AUPRC",
        "p-value",
        "log10 p",
        "95% interval of the p-value",
        "p (BH)",
        "null mean",
        "null sd",
        "95% null interval",
    ]
    assert len(facts["cells"]) == 3 * len(heads)
    for b in facts["heads"] + facts["cells"]:
        assert 0 <= b["left"] and b["right"] <= wrap["right"] + 0.5, b  # on screen
        assert b["width"] > 20 and b["sw"] <= b["cw"], b  # and its text inside it

"""Every measured figure lives in one place, and no page contradicts it.

A measured figure is a time ("54.8 s", "0.3-2 s", "13 minutes"), a rate
("8.33e+06 rows/s", "1.5e9 placements/min") or a speed ratio ("1.63x a
numpy.sort", "29.8x faster than scikit-learn"). Such figures live in their
source pages: ``docs/benchmarks.md`` (what ``benchmarks/run.py`` and the
``bench_*.py`` scripts print, each run with its date, CPU model and the time
of ``numpy.sort``), and the pages of the two studies whose scripts write them
(``docs/calibration.md`` and its table from ``benchmarks/calibration.py``,
``docs/compare.md`` from ``benchmarks/compare_study.py``).

Every other page (README.md and docs/*.md) links to the source instead of
copying it. A page may still quote a figure, but only in a paragraph that
links to the section of a source that holds it, and only as it stands there:
a quote that differs from its source (a stale copy, a figure re-measured in one
place and not the other) fails here, as does a figure with no source link or a
link to a section that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {
    "docs/benchmarks.md": "benchmarks/run.py and benchmarks/bench_*.py",
    "docs/calibration.md": "benchmarks/calibration.py (the calibration study)",
    "docs/calibration_table.md": "written by benchmarks/calibration.py",
    "docs/calibration_results.md": "includes calibration_table.md",
    "docs/compare.md": "benchmarks/compare_study.py (the comparison study)",
}
PAGES = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    if p.relative_to(ROOT).as_posix() not in SOURCES
)

# A number: 0.31, 1,000, 3.3e6, 8.33e+06, 3.3·10^6, 10⁶; optionally a range "a-b" / "a to b".
_N = r"(?<![\w.^])\d+(?:[.,]\d+)*(?:[eE][-+]?\d+|\s?[·x×]\s?10(?:\^\d+|[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
_RANGE = rf"{_N}(?:\s?(?:-|–|to)\s?{_N})?"
_FIGURES = [
    # a time: "54.8 s", "0.3-2 s", "20 to 40 seconds", "13 minutes", "7.3 ms"
    re.compile(
        rf"(?:{_RANGE}\s(?:s|ms|µs|us|ns|sec|seconds?|minutes?|min|hours?)"
        rf"|{_N}\.\d+(?:s|ms|µs|us|ns))(?![\w/])"
    ),
    # a rate: "8.33e+06 rows/s", "1e6/s", "1.5e9 placements/min"
    re.compile(rf"{_RANGE}\s?(?:[a-zA-Z]+\s?)?/\s?(?:s|min|sec)\b"),
    # a speed ratio: "1.63x a sort", "29.8x faster", "22-27x faster than scikit-learn"
    re.compile(
        rf"{_RANGE}\s?[x×](?![\w])(?=[^\n]{{0,40}}?"
        r"(?:\bsorts?\b|faster|slower|scikit-learn|sklearn|in-memory|in memory|numpy|the bar))"
    ),
]
# Figures on other pages that are not measurements: settings and thresholds of the code.
ALLOWED = {
    ("docs/cli.md", "1 s"),  # the compile notice after a second of compiling (a setting)
}

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(`{3,}).*?^\1[ \t]*$", re.M | re.S)


def slug(heading: str) -> str:
    """The anchor GitHub and MyST (myst_heading_anchors) give a heading."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def sections(text: str) -> dict[str, str]:
    """Each heading's slug -> its section's text (to the next heading of its level or
    above); "" -> the whole page."""
    out = {"": text}
    body = _FENCE.sub(lambda m: re.sub(r"(?m)^#", " #", m.group(0)), text)  # no headings in code
    heads = [
        (m.start(), len(m.group(1)), slug(m.group(2)))
        for m in re.finditer(r"^(#{1,6})\s+(.+?)\s*$", body, re.M)
    ]
    for k, (start, level, name) in enumerate(heads):
        end = next((s for s, lv, _ in heads[k + 1 :] if lv <= level), len(text))
        out.setdefault(name, text[start:end])
    return out


def normalize(figure: str) -> str:
    """One spelling per figure: x for ×, - for the dashes, no space before a unit."""
    f = figure.replace("×", "x").replace("–", "-").replace("−", "-")
    f = re.sub(r"\s+", " ", f.strip())
    f = re.sub(r"(\d) (?=[a-zA-Zµx/])", r"\1", f)
    return f


def figures(text: str) -> list[str]:
    found = []
    for rx in _FIGURES:
        found += [m.group(0) for m in rx.finditer(text)]
    return found


def paragraphs(text: str):
    """(line number, paragraph) of a page: blocks between blank lines, a fenced block
    (with the paragraph before it, its caption) counted as one."""
    lines = text.split("\n")
    start, block, fence = 0, [], None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            block.append(line)
            continue
        if fence is not None:
            block.append(line)
            if stripped == fence:
                fence = None
            continue
        if not stripped:
            if block:
                yield start + 1, "\n".join(block)
            block, start = [], i + 1
        else:
            if not block:
                start = i
            block.append(line)
    if block:
        yield start + 1, "\n".join(block)


def _source_text(target: str, page: str, texts: dict) -> tuple[str, str] | None:
    """(source name, anchor) of a link from ``page``, if it points at a source page."""
    path, _, anchor = target.partition("#")
    if not path:
        return None
    resolved = (ROOT / page).parent.joinpath(path).resolve()
    try:
        name = resolved.relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return (name, anchor) if name in texts else None


def problems(page: str, text: str, texts: dict) -> list[str]:
    """What is wrong with the measured figures of one page (empty: nothing)."""
    out = []
    for line, para in paragraphs(text):
        links = [
            s for s in (_source_text(t, page, texts) for t in _LINK.findall(para)) if s is not None
        ]
        for fig in figures(para):
            if (page, normalize(fig)) in {(p, normalize(f)) for p, f in ALLOWED}:
                continue
            where = f"{page}:{line}: {fig!r}"
            if not links:
                out.append(f"{where} is a measured figure without a link to its source")
                continue
            held = [
                sections(texts[name]).get(anchor)
                for name, anchor in links
                if sections(texts[name]).get(anchor) is not None
            ]
            if not any(normalize(fig) in normalize(h) for h in held):
                linked = ", ".join(f"{n}#{a}" if a else n for n, a in links)
                out.append(f"{where} is not what its source ({linked}) says")
    return out


def _texts() -> dict:
    return {
        name: (ROOT / name).read_text(encoding="utf-8")
        for name in [*SOURCES, *PAGES]
        if (ROOT / name).exists()
    }


@pytest.mark.parametrize("page", PAGES)
def test_pages_link_measured_figures_to_their_source(page):
    texts = _texts()
    assert problems(page, texts[page], texts) == []


@pytest.mark.parametrize("page", [*PAGES, *SOURCES])
def test_links_into_sources_resolve(page):
    """Every link to a section of a source page names a heading that exists."""
    texts = _texts()
    if page not in texts:
        pytest.skip("page not present")
    bad = []
    for target in _LINK.findall(texts[page]):
        src = _source_text(target, page, texts)
        if src is None and target.startswith("#") and page in SOURCES:
            src = (page, target[1:])
        if src is not None and src[1] and src[1] not in sections(texts[src[0]]):
            bad.append(target)
    assert bad == []


def test_benchmarks_say_when_and_where():
    """The benchmark page names the machine, and every section the date of its figures."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    secs = sections(text)
    where = secs.get("where-and-when", "")
    assert re.search(r"CPU|Model name", where) and "numpy.sort" in where, "no machine section"
    for name, body in secs.items():
        level2 = body.startswith("## ")
        if name and level2 and figures(body):
            assert re.search(r"20\d\d-\d\d-\d\d", body), f"section #{name} has figures but no date"


# --- the checker itself: it must catch what it is for ---------------------------------------

_SOURCE = """# Benchmarks

## Dask

| N | dask |
|---|---|
| 2e8 | 54.8 s |

## CLI

read 8.33e+06 rows/s, 10.2x longer than ranking the same data with auprc_ap in-memory
"""


@pytest.mark.parametrize(
    "page_text, n_problems",
    [
        ("Dask on 2e8 scores took 14.2 s ([benchmarks](benchmarks.md#dask)).", 1),  # stale copy
        ("Dask on 2e8 scores took 54.8 s ([benchmarks](benchmarks.md#dask)).", 0),  # faithful
        ("Dask on 2e8 scores took 54.8 s.", 1),  # no source
        ("It reads 3.3·10^6 rows/s ([source](benchmarks.md#cli)).", 1),  # a rate that differs
        ("It reads 8.33e+06 rows/s ([source](benchmarks.md#dask)).", 1),  # the wrong section
        ("The demo takes 20 to 40 seconds, depending on the load.", 1),
        ("ROC AUC, 22-27x faster than scikit-learn.", 1),
        ("Fast: see [benchmarks](benchmarks.md#cli).", 0),  # a link, no copy
        ("8x8 pixels, and AP 0.97 at N = 899.", 0),  # no measured figure at all
    ],
)
def test_checker_catches_copies(page_text, n_problems):
    texts = {"docs/benchmarks.md": _SOURCE, "docs/page.md": page_text}
    assert len(problems("docs/page.md", page_text, texts)) == n_problems


def test_slugs_match_github_and_myst():
    assert slug("The first call") == "the-first-call"
    assert (
        slug("Mean AP over queries (`bench_mean_ap.py`)") == "mean-ap-over-queries-bench_mean_appy"
    )
    assert slug("Dask and data on disk: 2e8 rows") == "dask-and-data-on-disk-2e8-rows"

"""How a result shows itself in Jupyter: a compact HTML table, numbers as the CLI prints them.

Every result type mixes in :class:`ResultDisplay` and says what its table
holds in ``_table()``: a caption, column headers and rows of already
formatted cells (with :mod:`pranker._format`, the formatting of the command
line, so a p-value reads the same in a terminal and in a notebook). The
table is plain HTML with the styles inline: it renders the same in Jupyter,
JupyterLab, VS Code and on GitHub, and parses as XML.

A result's ``plot()`` lives with the tests of significance
(:mod:`pranker.significance.figure`), the one place a result reaches the
figure layer.
"""

from __future__ import annotations

import html

__all__ = ["ResultDisplay", "html_table"]

MAX_ROWS = 20  # rows shown for batch results; the caption says how many there are

# One style block per table, scoped to its class: Jupyter, JupyterLab and VS Code honour it;
# renderers that drop styles (GitHub) still show a plain table.
_STYLE = (
    "<style>"
    ".pranker-result table {border-collapse: collapse; font-variant-numeric: tabular-nums}"
    " .pranker-result th, .pranker-result td {padding: 0.15em 0.6em; text-align: right}"
    " .pranker-result th:first-child, .pranker-result td:first-child {text-align: left}"
    " .pranker-result thead th {border-bottom: 1px solid #999}"
    " .pranker-result caption {text-align: left; font-weight: bold}"
    " .pranker-result p {font-size: 0.85em; margin: 0.2em 0}"
    "</style>"
)


def html_table(caption: str, headers: list[str], rows: list[list[str]], note: str = "") -> str:
    """An HTML table: escaped cells, the first column left-aligned, the others right.

    >>> html_table("t", ["a", "b"], [["x<y", "1"]]).count("<td>")
    2
    """
    esc = html.escape

    def cells(tag: str, values: list[str]) -> str:
        return "".join(f"<{tag}>{esc(str(v))}</{tag}>" for v in values)

    head = f"<thead><tr>{cells('th', headers)}</tr></thead>"
    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    foot = f"<p>{esc(note)}</p>" if note else ""
    return (
        f'<div class="pranker-result">{_STYLE}<table><caption>{esc(caption)}</caption>'
        f"{head}<tbody>{body}</tbody></table>{foot}</div>"
    )


class ResultDisplay:
    """Mixin of the result types: ``_repr_html_`` from ``_table()``."""

    def _table(self) -> tuple[str, list[str], list[list[str]], str]:  # pragma: no cover
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return html_table(*self._table())

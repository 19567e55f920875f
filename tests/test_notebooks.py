"""Execute every research notebook top to bottom; any cell error fails the test.

The notebooks run with their committed (small, ``FAST = True``) default sizes, in
``notebooks/`` as working directory, with the kernel ``python3``. Outputs are not
compared (they contain timings); the notebooks assert their own numerical claims.
Everything the kernel writes (IPython history, connection file, matplotlib cache)
goes to the test's temporary directory. A quick test (not ``slow``) checks that
every notebook keeps asserting in several cells and starts with ``FAST = True``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = [
    "01_null_distribution.ipynb",
    "02_pr_curve_conventions.ipynb",
    "03_hashing_retrieval.ipynb",
    "04_auprc_uncertainty.ipynb",
    "05_compare_models.ipynb",
    "06_results_in_jupyter.ipynb",
]
CELL_TIMEOUT = 300  # seconds per cell (a cold numba cache compiles inside the first cells)


def _kernel_modules():
    """nbformat and nbclient, or skip when they or a ``python3`` kernel are missing."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    kernelspec = pytest.importorskip("jupyter_client.kernelspec")
    if "python3" not in kernelspec.find_kernel_specs():
        pytest.skip("no Jupyter kernel named 'python3' (pip install ipykernel)")
    return nbformat, nbclient


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_checks_its_claims(name):
    """Quick: each notebook asserts something in several code cells (its checks run in the slow test)."""
    nb = json.loads((NOTEBOOK_DIR / name).read_text(encoding="utf-8"))
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    checking = [src for src in code if "assert " in src]
    assert len(checking) >= 3, f"{name}: only {len(checking)} code cells assert anything"
    first = nb["cells"][next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")]
    assert "FAST = True" in "".join(first["source"]), (
        f"{name}: the first code cell sets FAST = True"
    )


@pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name, tmp_path, monkeypatch):
    nbformat, nbclient = _kernel_modules()
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    # the kernel must import this checkout of pranker, and write nothing outside tmp
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT)] + ([old] if old else [])))
    for var in ("MPLCONFIGDIR", "IPYTHONDIR", "JUPYTER_RUNTIME_DIR"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    for cell in nb.cells:  # a figure a cell returns is shown (PNG), a result as a table
        src = "".join(cell.source) if cell.cell_type == "code" else ""
        kinds = {k for o in cell.get("outputs", []) for k in o.get("data", {})}
        if src.rstrip().endswith((".plot()", "plot(alpha=0.05)", "\nfig")):
            assert "image/png" in kinds, src
        elif re.search(r"\n(res|cmp|many|mean|mc)$", src.rstrip()):
            assert "text/html" in kinds, src

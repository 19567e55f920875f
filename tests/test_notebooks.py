"""Execute every research notebook top to bottom; any cell error fails the test.

The notebooks run with their committed (small, ``FAST = True``) default sizes, in
``notebooks/`` as working directory, with the kernel ``python3``. Outputs are not
compared (they contain timings); the notebooks assert their own numerical claims.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")
pytest.importorskip("sklearn")
kernelspec = pytest.importorskip("jupyter_client.kernelspec")
if "python3" not in kernelspec.find_kernel_specs():
    pytest.skip("no Jupyter kernel named 'python3' (pip install ipykernel)", allow_module_level=True)

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = [
    "01_null_distribution.ipynb",
    "02_pr_curve_conventions.ipynb",
    "03_hashing_retrieval.ipynb",
    "04_auprc_uncertainty.ipynb",
]
CELL_TIMEOUT = 300  # seconds per cell (a cold numba cache compiles inside the first cells)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name, tmp_path):
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    env_root = str(NOTEBOOK_DIR.parent)
    # the kernel must import this checkout of pranker, and write nothing outside tmp
    old = {k: os.environ.get(k) for k in ("PYTHONPATH", "MPLCONFIGDIR", "TMPDIR")}
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [env_root] + ([old["PYTHONPATH"]] if old["PYTHONPATH"] else [])
    )
    os.environ["MPLCONFIGDIR"] = str(tmp_path)
    try:
        client = nbclient.NotebookClient(
            nb,
            timeout=CELL_TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
        )
        client.execute()  # raises CellExecutionError on the first failing cell
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

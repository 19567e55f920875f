"""Smoke test of an installed pranker, run from outside the source tree (.ci/install-check).

Checks that the package imports from site-packages (not the checkout), gives a
known exact p-value and a tilt p-value, and that the ``pranker`` command works:
``--version`` and ``score`` on a small CSV file.
"""

import os
import subprocess
import sys
import tempfile
from fractions import Fraction
from itertools import combinations

import pranker

here = os.path.dirname(os.path.abspath(pranker.__file__))
assert "site-packages" in here, f"pranker imported from {here}, not from site-packages"

# the README's example: p = P(AP >= 0.9667) = 2/252, counted here by enumeration
y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
scores = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
res = pranker.pranker(scores, y, ties="stable")
n, p = len(y), sum(y)
obs = Fraction(29, 30)  # ranks 1, 2, 3, 5, 6 by stable ties: AP = (1 + 1 + 1 + 4/5 + 5/6) / 5
assert abs(res.auprc - float(obs)) < 1e-12, res.auprc
hits = sum(
    1
    for r in combinations(range(1, n + 1), p)
    if sum(Fraction(k + 1, rk) for k, rk in enumerate(r)) / p >= obs
)
assert res.method == "exact" and abs(res.pvalue - hits / 252) < 1e-15, (res.pvalue, hits)

tilt = pranker.significance_from_ap(0.5, 5000, 20)  # the tilt estimator, with its error bar
assert tilt.method == "tilt" and 0 < tilt.pvalue_rse <= 0.02 and tilt.log10_pvalue < -10, tilt

exe = os.path.join(os.path.dirname(sys.executable), "pranker")
out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
assert pranker.__version__ in out.stdout + out.stderr, out

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "data.csv")
    with open(path, "w") as fh:
        fh.write("score,label\n")
        fh.writelines(f"{s},{t}\n" for s, t in zip(scores, y, strict=True))
    out = subprocess.run([exe, "score", path, "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"auprc"' in out.stdout, out.stdout
print(
    f"smoke ok: Python {sys.version.split()[0]}, pranker {pranker.__version__}, p = {res.pvalue:.6g}"
)

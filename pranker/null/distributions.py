"""Every null distribution of AP by name: :func:`null_distribution`.

The kinds, by ``method``, each in the module of its engine:

- ``"exact"`` (:class:`pranker.null.exact.ExactNull`): counted placements;
  exact p-values.
- ``"tilt"`` (:class:`pranker.null.tilt_null.TiltNull`): importance sampling from
  the tilted law with exact likelihood ratios: unbiased, to a stated
  relative standard error, at any depth of the tail.
- ``"saddlepoint"`` (:class:`pranker.null.saddlepoint.SaddlepointNull`):
  Lugannani–Rice on the exact cumulant generating function (on an accurate
  compressed one beyond 10^8 recursion cells); deterministic, with the
  measured error bound as its interval where one was measured.
- ``"montecarlo"`` (:class:`pranker.null.montecarlo.MonteCarloNull`): random
  placements; resolves p-values down to about 1 / n_draws.
- ``"beta"`` (:class:`pranker.null.beta.BetaNull`): the two-moment beta of
  Lopes & Bontempi (2014), as in the R package; O(1) but unreliable in the
  tail.
- ``"skewbeta"`` (:class:`pranker.null.skewbeta.SkewBetaNull`): a beta
  matched to three moments.
- ``"auto"``: the plan of :func:`pranker.null.choice.plan`.

All of them answer the interface of :class:`pranker.null.base.NullDistribution`.
"""

from __future__ import annotations

import functools
import inspect

from .._docs import fill_doc
from .._results import renamed_parameters
from .base import NullDistribution, PValue
from .beta import BetaNull
from .choice import auto_method
from .exact import ExactNull
from .montecarlo import MonteCarloNull
from .saddlepoint import SaddlepointNull
from .skewbeta import SkewBetaNull
from .tilt_null import TiltNull

__all__ = [
    "PValue",
    "NullDistribution",
    "ExactNull",
    "TiltNull",
    "SaddlepointNull",
    "MonteCarloNull",
    "BetaNull",
    "SkewBetaNull",
    "null_distribution",
]

NULL_METHODS = ("exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta")


@functools.cache
def _parameters(cls) -> frozenset:
    """The keyword names ``cls`` takes (read once: per-query p-values build thousands of nulls)."""
    return frozenset(inspect.signature(cls).parameters)


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def null_distribution(n: int, n_pos: int, method: str = "auto", **options) -> NullDistribution:
    """The null distribution of AP for N instances and P positives, by name.

    Parameters
    ----------
    n, n_pos : int
        Instances and positives, ``1 <= P <= N``.
    method : {"auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta"}
        See the module docstring. ``"auto"`` (default) is the null every
        test of significance uses by default: :func:`pranker.null.choice.plan`
        picks the method from N, P and ``rtol``, and at each threshold the
        saddlepoint answers where its measured bound holds, the tilt
        elsewhere.
    **options
        Passed to the class: ``rtol``, ``seed``, ``max_draws`` (tilt);
        ``n_draws``, ``seed`` (montecarlo); ``max_nodes`` (exact);
        ``params=(mean, var)`` (beta). With ``"auto"``, options the chosen
        class does not take are ignored (so ``rtol=`` is harmless when the
        rule picks the exact count).

    Returns
    -------
    NullDistribution
        An :class:`ExactNull`, :class:`TiltNull`, ... for ``method``.

    See Also
    --------
    pranker.pranker : The p-value of a ranking, ``method="auto"`` by default.
    pranker.null.choice.plan : The default rule.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> null = null_distribution(1000, 10, "tilt")
    >>> res = null.pvalue(0.5)          # P(AP_null >= 0.5), to 2 % relative error
    >>> res.method, round(res.log10_pvalue, 1), res.pvalue_rse <= 0.02
    ('tilt', -10.2, True)
    >>> lo, hi = null.interval(0.95)    # central 95 % of the null AP
    >>> bool(lo < null.mean < hi)
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    classes = {
        "exact": ExactNull,
        "tilt": TiltNull,
        "saddlepoint": SaddlepointNull,
        "montecarlo": MonteCarloNull,
        "beta": BetaNull,
        "skewbeta": SkewBetaNull,
    }
    if method == "auto":
        method = auto_method(N, P, options.get("rtol"))
        taken = _parameters(classes[method])
        options = {k: v for k, v in options.items() if k in taken}
        if method == "saddlepoint":  # the tilt answers beyond the calibrated region
            options["tilt_beyond"] = True
    elif method not in classes:
        raise ValueError(f"method must be one of {('auto',) + NULL_METHODS}; got {method!r}.")
    return classes[method](N, P, **options)

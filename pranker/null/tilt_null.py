"""The tilt null: the tilted estimator of :mod:`pranker.null.tilt` behind the null interface.

:class:`TiltNull` answers p-values (upper tails: the engine of N's bin where
neighbouring sizes share draws, :func:`pranker.null.choice.tilt_shared_n`),
the CDF (lower tails, N's own engine) and the central interval (plain Monte
Carlo from the fixed seed), with its ``rtol``, ``max_work`` and ``seed``.
"""

from __future__ import annotations

from .._docs import fill_doc
from .._results import renamed_parameters
from .._validation import check_probability
from .base import NULL_DOCS, NullDistribution, PValue, vectorize
from .budget import check_work, warn_capped
from .choice import (
    DEFAULT_MAX_DRAWS,
    DEFAULT_MAX_WORK,
    DEFAULT_RTOL,
    DEFAULT_SEED,
    REL_TOL,
    tilt_shared_n,
)
from .exact import ExactNull
from .logspace import pow10
from .moments import null_quantiles
from .tilt import TiltEngine, tilt_engine

__all__ = ["TiltNull"]


@fill_doc(NULL_DOCS)
class TiltNull(NullDistribution):
    """The tilt null: unbiased tail estimates at any depth, for any N (:mod:`pranker.null.tilt`).

    Importance sampling from the law tilted towards the threshold, each
    draw weighted by its exact likelihood ratio. While the exact layers take
    at most 128 MB (``P (N - P + 1) <= 1.6e7``) the proposal is the exactly
    tilted law; beyond, a compressed proposal on ~2,000 knots per positive
    with state-dependent tilting of the lowest positives
    (:mod:`pranker.null.compressed`): its tables stay below ~130 MB for any
    N and P, and the estimate stays unbiased with the same relative standard
    error target.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    rtol : float
        Target relative standard error of each p-value (default 0.02).
    seed : int
        Seed of the draw streams (default fixed, so the same call gives the
        same number).
    max_draws : int
        Upper bound on draws per p-value (2**20 by default).
    max_work : int
        Budget of work per p-value, in deterministic units (about 1 ns each
        on the reference machine; default 1.8e9, about a stable sort of 10^7
        numbers): the passes of the recursions and the positives each draw
        walks. A p-value that reaches it before ``rtol`` reports the
        relative standard error it reached, with the wider interval that
        goes with it (with no draw in the tail yet, an upper bound), and
        warns with :class:`~pranker.null.choice.WorkBudgetWarning`. The same
        call gives the same number on every machine.
    progress : bool or None
        A progress bar (tqdm) for p-values whose draws are predicted to take
        more than about 2 s: always (True), never (False), or only when
        stderr is a terminal (None, the default).

    Attributes
    ----------
    %(null_attributes)s
    rtol, seed, max_draws, max_work
        As given (``seed``, ``max_work`` filled in with the defaults).

    See Also
    --------
    ExactNull : Counted placements, where they are affordable.
    SaddlepointNull : Deterministic, without an error estimate.

    References
    ----------
    .. [1] D. Siegmund, "Importance sampling in the Monte Carlo study of
       sequential tests", Ann. Statist. 4 (1976) 673-684.
    .. [2] J. Blanchet, K. Leder and P. W. Glynn, "Efficient simulation of
       light-tailed sums: an old-folk song sung to a faster new tune", in
       Monte Carlo and Quasi-Monte Carlo Methods 2008, Springer 2009.

    Examples
    --------
    Against the exact count, the estimate is within a few of its relative
    standard errors:

    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> est = TiltNull(40, 4).pvalue(0.6)
    >>> est.method, est.pvalue_rse <= 0.02
    ('tilt', True)
    >>> bool(abs(est.pvalue / exact - 1) < 4 * est.pvalue_rse)
    True
    """

    method = "tilt"
    interval_method = "montecarlo"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(
        self,
        n: int,
        n_pos: int,
        *,
        rtol: float = DEFAULT_RTOL,
        seed: int | None = None,
        max_draws: int | None = None,
        progress: bool | None = None,
        max_work: int | None = None,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.progress = progress
        self.rtol = check_probability(rtol, "rtol", type(self).__name__) or DEFAULT_RTOL
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.max_draws = DEFAULT_MAX_DRAWS if max_draws is None else int(max_draws)
        if self.max_draws < 1:
            raise ValueError(f"max_draws must be >= 1; got {max_draws!r}.")
        self.max_work = DEFAULT_MAX_WORK if max_work is None else check_work(max_work)

    @property
    def engine(self) -> TiltEngine:
        """The engine of (N, P) itself: its CGF, lower tails, and upper tails where sizes are not shared."""
        return tilt_engine(self.N, self.P, self.seed)

    def upper_engine(self) -> tuple[TiltEngine, int | None]:
        """``(engine, target)`` of the upper tail: the engine of N' and ``target = N`` where the
        sizes of N's bin share draws (:func:`pranker.null.choice.tilt_shared_n`), else
        ``(self.engine, None)``."""
        shared = tilt_shared_n(self.N, self.P)
        if shared is None:
            return self.engine, None
        return tilt_engine(shared, self.P, self.seed), self.N

    def release(self) -> None:
        """Drop the cached draws and layers of the engine that answers the upper tail."""
        self.upper_engine()[0].release()

    def tail_pvalue(
        self, ap: float, *, upper: bool = True, conf_level: float = 0.95, index: int | None = None
    ) -> PValue:
        """The tilted estimate of ``P(AP >= ap)`` (``upper``) or ``P(AP <= ap)``.

        ``index``: the grid point, when the caller already knows it (it is
        a function of ``ap``; see :meth:`TiltEngine.grid_index`, of the
        engine :meth:`upper_engine` names for an upper tail). Where the
        sizes of a bin share draws, the upper tail comes from the engine of
        the bin's top size (:meth:`TiltEngine._contributions`).
        """
        if upper:
            eng, target = self.upper_engine()
        else:
            eng, target = self.engine, None
        est = eng.tail(
            ap * self.P,
            upper=upper,
            rtol=self.rtol,
            max_draws=self.max_draws,
            conf_level=conf_level,
            index=index,
            progress=self.progress,
            max_work=self.max_work,
            target=target,
        )
        if est.capped:
            warn_capped(self.N, self.P, self.rtol, self.max_work, est.rse)
        lo, hi = est.log10_interval
        return PValue(
            pvalue=est.pvalue,
            log10_pvalue=est.log10_pvalue,
            pvalue_interval=(pow10(lo), pow10(hi)),
            log10_pvalue_interval=(lo, hi),
            pvalue_rse=est.rse,
            method="tilt",
            n_draws=est.n_draws,
            seed=self.seed,
        )

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        known = self.known_pvalue(ap)
        if known is not None:
            return known
        return self.tail_pvalue(float(ap), conf_level=conf_level)

    def cdf(self, ap):
        def one(a):
            if self.P == 1 or self.P == self.N:
                return float(ExactNull(self.N, self.P).cdf(a))
            if a >= 1.0:
                return 1.0
            if a * (1.0 + REL_TOL) < self.min_auprc:
                return 0.0
            return self.tail_pvalue(a, upper=False).pvalue

        return vectorize(one, ap)

    def ppf(self, q):
        """Quantiles of the null AP from ``QUANTILE_DRAWS`` seeded random rankings.

        The central interval of the null needs no tail engine; the saddlepoint
        is unreliable there when P is small and N large (the null is very
        skewed), so the quantiles come from plain Monte Carlo with the fixed
        seed: their standard error is ``sqrt(q (1 - q) / n) / density``.
        """
        return null_quantiles(self.N, self.P, self.seed, q)

"""How a p-value is computed: the options every test of significance passes down.

Every entry point (:func:`pranker.pranker`, :func:`pranker.significance_from_ap`,
:func:`pranker.pranker_many`, the out-of-core and Dask versions, the command
line) takes the same keywords, checks them once into a :class:`PValueOptions`
and hands that object down; the null is built from it by
:func:`pranker.null_distribution`, the package's one factory, with the default
rule ``method="auto"`` of :func:`pranker.null.choice.auto_method`. So the same ranking gets
the same p-value everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import (
    check_conf_level,
    check_params,
    check_positive,
    check_probability,
)
from ..null.choice import DEFAULT_MC_DRAWS, DEFAULT_RTOL, auto_method
from ..null.distributions import NULL_METHODS, NullDistribution, null_distribution

__all__ = ["METHODS", "PValueOptions", "check_method"]

METHODS = ("auto", *NULL_METHODS)


def check_method(method, where: str | None = None) -> str:
    """``method`` if it names a method (None means ``"auto"``), else a ValueError."""
    if method is None:
        return "auto"
    if method not in METHODS:
        at = f"{where}: " if where else ""
        raise ValueError(f"{at}method must be one of {METHODS}; got {method!r}.")
    return method


@dataclass(frozen=True)
class PValueOptions:
    """The options of a p-value, checked once at the entry point.

    Attributes
    ----------
    method : str
        ``"auto"`` (default) or a method name of :data:`METHODS`.
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    params : (float, float) or None
        Precomputed null mean and variance (skip their O(1) computation).
    rtol : float or None
        Target relative standard error of tilt p-values (None: 0.02).
    n_draws : int or None
        Monte Carlo draws (None: 100,000).
    seed : int or None
        Seed of the random draws (None: the package's fixed seed).
    alpha : float or None
        Monte Carlo early stopping at this level.
    max_nodes : int or None
        Step budget of the exact tail count.
    progress : bool or None
        A progress bar for long p-values (None: on a terminal only).
    max_work : int or None
        Work budget of each tilt p-value in deterministic units (None: the
        default of :mod:`pranker.null.choice`, about a sort of 10^7 numbers).
    """

    method: str = "auto"
    conf_level: float = 0.95
    params: tuple[float, float] | None = None
    rtol: float | None = None
    n_draws: int | None = None
    seed: int | None = None
    alpha: float | None = None
    max_nodes: int | None = None
    progress: bool | None = None
    max_work: int | None = None

    @classmethod
    def checked(cls, where: str | None = None, **options) -> PValueOptions:
        """The options, each checked (a clear ValueError names the first bad one)."""
        o = dict(options)
        o["method"] = check_method(o.get("method"), where)
        o["conf_level"] = check_conf_level(o.get("conf_level", 0.95), where)
        if o.get("params") is not None:
            o["params"] = check_params(o["params"])
        o["rtol"] = check_probability(o.get("rtol"), "rtol", where)
        o["alpha"] = check_probability(
            o.get("alpha"), "alpha", where, " (the level for early stopping)"
        )
        for name in ("n_draws", "max_nodes", "max_work"):
            o[name] = check_positive(o.get(name), name, where, integer=True)
        return cls(**o)

    @classmethod
    def of(cls, where: str, arguments: dict) -> PValueOptions:
        """The checked options among a call's arguments (``locals()`` at its start).

        Every entry point names its p-value options as the fields of this
        class, so it hands them over in one line: arguments of other names
        (the data, ``ties``, ...) are left out.
        """
        fields = cls.__dataclass_fields__
        return cls.checked(where, **{k: v for k, v in arguments.items() if k in fields})

    def resolved_method(self, n: int, n_pos: int) -> str:
        """The method used for (n, n_pos): ``method``, with ``"auto"`` resolved."""
        return auto_method(n, n_pos, self.rtol) if self.method == "auto" else self.method

    def null(self, n: int, n_pos: int) -> NullDistribution:
        """The null distribution these options name for n instances and n_pos positives.

        ``"auto"`` is built by :func:`pranker.null.distributions.null_distribution`,
        whose plan (:func:`pranker.null.choice.plan`) picks the method.
        """
        rtol = DEFAULT_RTOL if self.rtol is None else self.rtol
        n_draws = DEFAULT_MC_DRAWS if self.n_draws is None else self.n_draws
        every: dict[str, dict] = {
            "exact": {"max_nodes": self.max_nodes},
            "tilt": {
                "rtol": rtol,
                "seed": self.seed,
                "progress": self.progress,
                "max_work": self.max_work,
            },
            "saddlepoint": {
                "seed": self.seed,
                "progress": self.progress,
                "max_work": self.max_work,
            },
            "montecarlo": {
                "n_draws": n_draws,
                "seed": self.seed,
                "alpha": self.alpha,
                "progress": self.progress,
            },
            "beta": {"params": self.params},
            "skewbeta": {},
        }
        method = self.resolved_method(n, n_pos)
        if self.method == "auto":  # the factory keeps the options of the method it picks
            kwargs: dict = {"rtol": rtol, **every[method]}
        else:
            kwargs = every[method]
        null = null_distribution(n, n_pos, self.method, **kwargs)
        if self.params is not None and method != "beta":
            null.set_moments(self.params)
        return null

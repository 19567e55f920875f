"""``pranker map``: mean AUPRC over queries and its p-value against random rankings."""

from __future__ import annotations

import math

import numpy as np

from .columns import default_columns, resolve_column, to_labels, to_scores
from .errors import UserError
from .format import pvalue_text, sig
from .main import library_options
from .read import open_table
from .write import check_writable, emit_results


def _keys(table, name):
    (col,) = table.load([name])
    if hasattr(col, "to_numpy") and not isinstance(col, np.ndarray):
        col = col.to_numpy(zero_copy_only=False)
    arr = np.asarray(col)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        i = int(np.flatnonzero(np.isnan(arr))[0])
        raise UserError(f"column {name!r} has a missing value at {table.where(i)}.")
    if arr.dtype.kind == "O":
        missing = [i for i, v in enumerate(arr) if v is None]
        if missing:
            raise UserError(f"column {name!r} has a missing value at {table.where(missing[0])}.")
        arr = arr.astype(str)
    if arr.dtype.kind in "US":
        blank = np.char.strip(arr) == ("" if arr.dtype.kind == "U" else b"")
        if blank.any():
            i = int(np.flatnonzero(blank)[0])
            raise UserError(
                f"column {name!r} has a missing value at {table.where(i)}; every row "
                "needs a query (and group) name."
            )
    return arr


def run(args) -> int:
    if args.output:
        if not args.output.lower().endswith(".json"):
            raise UserError(f"-o {args.output}: the result is written as .json; name the file so.")
        check_writable(args.output, args.force)
    table = open_table(args.file, sep=args.sep, header=args.header, progress=args.progress)
    qcol = resolve_column(table, args.query, "query")
    gcol = resolve_column(table, args.group, "group") if args.group else None
    cols, label = default_columns(table, [args.score] if args.score else None, args.label)
    if qcol in (label, cols[0]) or (gcol is not None and gcol in (label, cols[0], qcol)):
        raise UserError("the query, group, score and label columns must be different columns.")
    table.load([label, cols[0], qcol] + ([gcol] if gcol else []))
    y = to_labels(table, label, args.positive)
    s = to_scores(table, cols[0])
    q = _keys(table, qcol)
    qids, inv = np.unique(q, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(inv, minlength=qids.size))]
    s_list = [s[order[a:b]] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    y_list = [y[order[a:b]] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    empty = [str(qids[i]) for i, yy in enumerate(y_list) if not yy.any()]
    if empty:
        raise UserError(
            f"{len(empty)} quer{'y has' if len(empty) == 1 else 'ies have'} no "
            f"positive label (AP is undefined), e.g. query {empty[0]!r}; remove "
            "them or check --label/--positive."
        )
    groups = None
    if gcol is not None:
        g = _keys(table, gcol)
        first = np.array([g[order[a]] for a in bounds[:-1]])
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
            if np.any(g[order[a:b]] != first[i]):
                raise UserError(
                    f"query {qids[i]!r} has more than one value in --group column "
                    f"{gcol!r}; a query belongs to one group."
                )
        groups = first
    from ..null.choice import DEFAULT_RTOL
    from ..significance.mean_ap import map_significance

    rtol = DEFAULT_RTOL if args.rtol is None else args.rtol
    try:
        res = map_significance(
            s_list,
            y_list,
            groups,
            rtol=rtol,
            query_method="auto" if args.query_pvalues else None,
            **library_options(args),
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    d = res.to_dict()  # JSON-ready; emit_results turns infinities into null as well
    d["queries"] = qids.tolist()
    d.update(score_column=cols[0], label_column=label, query_column=qcol, file=table.path)
    return emit_results(args, d, lambda: _summary(res, rtol, args.query_pvalues))


def _summary(res, rtol: float, query_pvalues: bool) -> None:
    print(
        f"mean AUPRC {res.statistic:.4f} over {_queries(res.n_queries)} "
        f"(null mean {res.null_mean:.4f}); p = {_pvalue(res, rtol)}"
    )
    if query_pvalues:
        k = int(np.sum(res.query_pvalue_bh <= 0.05))
        print(f"{k} of {_queries(res.n_queries)} significant at 5% FDR (Benjamini-Hochberg)")
    for row in res.groups or ():
        print(
            f"  group {row.group}: mean AUPRC {row.statistic:.4f} over "
            f"{_queries(row.n_queries)}, p = {_pvalue(row, rtol)}, "
            f"BH {row.pvalue_bh:.3g}"
        )


def _queries(n: int) -> str:
    return f"{n} query" if n == 1 else f"{n} queries"


def _pvalue(res, rtol: float) -> str:
    """The p-value with how it was obtained and how uncertain it is."""
    text = pvalue_text(res)
    text = (
        text.replace(" (±", f" ({res.method}, ±", 1) if " (±" in text else f"{text} ({res.method})"
    )
    err = getattr(res, "pvalue_error", None)
    if res.method == "saddlepoint" and err is not None and math.isfinite(err):
        text = f"{pvalue_text(res)} (saddlepoint, estimated error ±{sig(100.0 * err, 2)} %)"
    rse = getattr(res, "pvalue_rse", None)
    if res.method == "tilt" and rse is not None and rse > rtol:
        text += (
            f" [draw cap reached: relative standard error {sig(100.0 * rse, 2)} % "
            f"above the {sig(100.0 * rtol, 2)} % asked for]"
        )
    return text

"""``pranker compare``: paired test of two score columns' AUPRC on the same instances."""

from __future__ import annotations

import math

from .columns import default_columns, to_labels, to_scores
from .errors import UserError
from .main import library_options
from .read import open_table
from .write import check_writable, emit_results


def run(args) -> int:
    specs = [c.strip() for spec in (args.score or []) for c in spec.split(",") if c.strip()]
    if len(specs) != 2:
        raise UserError(f"give exactly two score columns (--score A --score B); got {len(specs)}.")
    if args.output:
        if not args.output.lower().endswith(".json"):
            raise UserError(
                f"-o {args.output}: the comparison is written as .json; name the file so."
            )
        check_writable(args.output, args.force)
    table = open_table(args.file, sep=args.sep, header=args.header, progress=args.progress)
    cols, label = default_columns(table, specs, args.label)
    if cols[0] == cols[1]:
        raise UserError(f"--score names the same column twice ({cols[0]!r}); give two columns.")
    table.load([label, *cols])
    y = to_labels(table, label, args.positive)
    sa, sb = (to_scores(table, c) for c in cols)
    from ..significance.compare import compare

    try:
        res = compare(
            sa, sb, y, alternative=args.alternative, n_draws=args.resamples, **library_options(args)
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    d = res.to_dict()
    d.update(score_a=cols[0], score_b=cols[1], label_column=label, file=table.path)
    return emit_results(args, d, lambda: _summary(res, cols))


def _summary(res, cols) -> None:
    from ..significance.compare import draws_text

    ci = res.confidence_interval()
    lg = res.log10_pvalue
    p = f"{res.pvalue:.3g}" if res.pvalue > 0 else f"1e{lg:.1f}"
    print(
        f"{cols[0]}: AUPRC {res.auprc_a:.4f}   {cols[1]}: AUPRC {res.auprc_b:.4f}   "
        f"(N = {res.n}, P = {res.n_pos})"
    )
    how = f"{res.alternative}, {res.method}"
    if res.n_draws is not None:
        how += f", {draws_text(res)}"
    print(
        f"difference {res.statistic:+.4f}, {100 * res.conf_level:g}% CI "
        f"[{_num(ci.low)}, {_num(ci.high)}], p = {p} ({how})"
    )


def _num(x: float) -> str:
    return f"{x:+.4f}" if math.isfinite(x) else ("-inf" if x < 0 else "inf")

"""``pranker table``: null AUPRC mean and variance over (N, P) grids."""

from __future__ import annotations

import sys

import numpy as np

from .errors import UserError
from .write import check_writable, writing


def parse_ranges(text: str, name: str) -> np.ndarray:
    """``--N``/``--P`` text -> sorted distinct ints >= 1 (:func:`pranker.null.tables.parse_int_ranges`)."""
    from ..null.tables import parse_int_ranges

    try:
        values = parse_int_ranges(text)
    except (ValueError, TypeError) as exc:
        raise UserError(f"--{name}: {exc}") from None
    if values[0] < 1:
        raise UserError(f"--{name} values must be >= 1; got {int(values[0])}.")
    return values


def write_csv(fh, table, columns) -> None:
    """The table as CSV text (same layout as ``NullTable.save``): header, then rows."""
    fh.write(",".join(columns) + "\n")
    cols = [getattr(table, c) for c in columns]
    block = 100_000
    for a in range(0, len(table), block):
        rows = zip(*(c[a : a + block].tolist() for c in cols), strict=True)
        fh.write("".join(",".join(repr(v) for v in r) + "\n" for r in rows))


def run(args) -> int:
    from ..null.tables import COLUMNS, null_params_table

    Ns = parse_ranges(args.N, "N")
    Ps = parse_ranges(args.P, "P")
    out = args.output
    if out is not None:
        check_writable(out, args.force)
        if not out.lower().endswith((".csv", ".npz")):
            raise UserError(f"-o {out}: the table is written as .csv or .npz; name it so.")
    n_pairs = int(np.searchsorted(Ps, Ns, side="right").sum())
    if n_pairs == 0:
        raise UserError(f"no (N, P) pair with P <= N (smallest N {Ns[0]}, smallest P {Ps[0]}).")
    if n_pairs > args.max_rows:
        raise UserError(
            f"the grid has {n_pairs:,} (N, P) rows, more than --max-rows {args.max_rows:,}; "
            "use a coarser step or raise --max-rows."
        )
    table = null_params_table(Ns, Ps, progress=args.progress)
    if out is None:
        write_csv(sys.stdout, table, COLUMNS)
        return 0
    with writing(out):  # a file that appeared since the check, a full disk: nothing is left
        table.save(out, overwrite=args.force)
    if not args.quiet:
        print(f"wrote {len(table):,} rows ({', '.join(COLUMNS)}) to {out}", file=sys.stderr)
    return 0

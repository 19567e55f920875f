"""The ``pranker`` command line: score a file, compare two models, a mean AP, null tables, a demo.

Modules, imports flowing one way (``main`` imports the others only inside
the command it runs, so ``pranker --help`` loads neither numba nor scipy)::

    main    the table of commands, argument parsing, dispatch, exit codes
    score   ``pranker score``      -> read, columns, write, format
    compare ``pranker compare``    -> read, columns, write, format
    map     ``pranker map``        -> read, columns, write, format
    table   ``pranker table``      -> write
    demo    ``pranker demo``       -> score, write, format
    report  the HTML report of ``pranker score --report``
    read    opening data files (CSV/TSV, gzip, stdin, .npy, .npz, Parquet) -> errors
    columns choosing columns; scores and labels from them -> errors
    write   atomic outputs (nothing half-written, nothing overwritten) -> errors
    format  the score table, JSON and CSV (numbers: pranker._format)
    errors  UserError

The entry point is :func:`pranker.cli.main.main` (``main(argv) -> exit status``).
It is not re-exported here: a function named ``main`` in this package would
hide the submodule ``pranker.cli.main``.
"""

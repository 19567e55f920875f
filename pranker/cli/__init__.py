"""The ``pranker`` command line: score a file, compare two models, a mean AP, null tables, a demo.

Modules, imports flowing one way (``main`` imports the others only inside
the command it runs, so ``pranker --help`` loads neither numba nor scipy)::

    main    the table of commands, argument parsing, dispatch, exit codes
    score   ``pranker score``      -> io, format
    compare ``pranker compare``    -> io, format
    map     ``pranker map``        -> io, format
    table   ``pranker table``      -> io
    demo    ``pranker demo``       -> score, io, format
    report  the HTML report of ``pranker score --report``
    io      readers, atomic writes -> errors
    format  numbers and tables as text and JSON
    errors  UserError

The entry point is :func:`pranker.cli.main.main` (``main(argv) -> exit status``).
It is not re-exported here: a function named ``main`` in this package would
hide the submodule ``pranker.cli.main``.
"""

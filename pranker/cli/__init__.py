"""The ``pranker`` command line: score a file, write null tables, run a demo.

Modules, imports flowing one way (``main`` imports the others only inside
the command it runs, so ``pranker --help`` loads neither numba nor scipy)::

    main    argument parsing, dispatch, exit codes
    score   ``pranker score``      -> io, format
    table   ``pranker table``      -> io
    demo    ``pranker demo``       -> score, io, format
    io      readers, atomic writes -> errors
    format  numbers and tables as text and JSON
    errors  UserError
"""

from .main import main

__all__ = ["main"]

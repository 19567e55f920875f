"""Writing the command line's outputs: never a partial file, never an unasked overwrite.

:func:`check_writable` refuses a bad output path before any work is done;
:func:`writing` turns a failed write into a one-line error; :func:`write_output`
writes atomically (a temporary file in the destination
folder, renamed into place: :func:`pranker._files.atomic_write`);
:func:`emit_json` and :func:`emit_results` send a command's results to
``--output``, ``--json`` and the human summary.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from .._files import atomic_write, write_text
from .._results import jsonable
from .errors import UserError


def check_writable(path: str, force: bool) -> None:
    """Refuse an output path that is a folder, exists (without ``force``) or has no folder."""
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory; give a file name.")
    if os.path.exists(path) and not force:
        raise UserError(f"{path} exists; refusing to overwrite it (use --force).")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"folder {folder} does not exist.")


@contextlib.contextmanager
def writing(path: str):
    """Report a failure to write ``path`` in the block (a file that appeared since
    :func:`check_writable`, a full disk) as a one-line UserError."""
    try:
        yield
    except FileExistsError:
        raise UserError(f"{path} exists; refusing to overwrite it (use --force).") from None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}.") from None


def write_output(path: str, text: str, force: bool) -> None:
    """Write ``text`` atomically; without ``force`` never replace a file, even one that
    appeared after :func:`check_writable` ran."""
    with writing(path):
        atomic_write(path, lambda tmp: write_text(tmp, text), overwrite=force)


def emit_json(args, d: dict) -> bool:
    """Write the results ``d`` as JSON to ``--output`` and/or stdout (``--json``).

    Returns whether the human summary should be printed (neither ``--json``
    nor ``--quiet``).
    """
    text = json.dumps(jsonable(d), indent=2, allow_nan=False) + "\n"
    if args.output:
        write_output(args.output, text, args.force)
    if args.json:
        sys.stdout.write(text)
        return False
    return not args.quiet


def emit_results(args, d: dict, summary) -> int:
    """Emit ``d`` as :func:`emit_json` does; else print ``summary()`` and where it went.

    ``summary`` is called only when the human summary is wanted; the line naming
    ``--output`` follows it. Returns the exit status 0.
    """
    if emit_json(args, d):
        summary()
        if args.output:
            print(f"results written to {args.output}")
    return 0

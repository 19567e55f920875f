"""Atomic file writing shared by every layer that writes files (tables, figures, the CLI)."""

from __future__ import annotations

import os
import tempfile


def atomic_write(
    path, write, *, overwrite: bool = True, prefix: str | None = None, suffix: str = ".tmp"
) -> None:
    """Call ``write(tmp_path)`` on a temporary file next to ``path``, then move it onto ``path``.

    No partial file is ever left behind. The file gets the usual mode (``0666``
    less the umask; ``mkstemp`` creates ``0600``). With ``overwrite=False`` an
    existing ``path`` is never clobbered, even one that appears meanwhile
    (:class:`FileExistsError`).
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if prefix is None:
        prefix = f".{os.path.basename(path)}."
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_no_clobber(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _link_no_clobber(tmp: str, path: str) -> None:
    try:
        os.link(tmp, path)  # fails if path appeared meanwhile: never clobbers
    except FileExistsError:
        raise FileExistsError(
            f"{path} already exists; pass overwrite=True to replace it."
        ) from None
    except OSError:  # no hard links here (some network file systems)
        if os.path.exists(path):
            raise FileExistsError(f"{path} already exists.") from None
        os.replace(tmp, path)


def write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` as it is: the ``write`` of a text file."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def atomic_write_text(path, text: str) -> None:
    """:func:`atomic_write` of a UTF-8 text."""
    atomic_write(path, lambda tmp: write_text(tmp, text))

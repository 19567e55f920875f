"""Former home of the command line's readers and writers, now in :mod:`.read`,
:mod:`.columns` and :mod:`.write`; these names are re-exported for the modules
that still import them from here."""

from .._files import atomic_write_text, write_text  # noqa: F401
from .columns import default_columns, resolve_column, to_labels, to_scores  # noqa: F401
from .errors import UserError  # noqa: F401
from .read import BAR_BYTES, open_table  # noqa: F401
from .write import check_writable, emit_results  # noqa: F401

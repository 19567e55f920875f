"""Former home of the command line's readers and writers, now :mod:`.read`,
:mod:`.columns` and :mod:`.write`. Kept only while ``map`` (as committed) and
a test of ``compare`` still import these names from here; nothing new should."""

from .._files import write_text  # noqa: F401
from .columns import default_columns, resolve_column, to_labels, to_scores  # noqa: F401
from .errors import UserError  # noqa: F401
from .read import open_table  # noqa: F401
from .write import check_writable, emit_results  # noqa: F401

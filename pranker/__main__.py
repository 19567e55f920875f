"""``python -m pranker`` runs the command line (same as the ``pranker`` script)."""

import sys

from .cli.main import main

sys.exit(main())

"""``python -m hearth``: the same as the ``hearth`` command (and the frozen app's entry)."""

import sys

from hearth.launcher import main

sys.exit(main())

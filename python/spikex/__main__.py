"""``python -m spikex``: the same as the ``spikex`` command."""

import sys

from .cli import main

sys.exit(main())

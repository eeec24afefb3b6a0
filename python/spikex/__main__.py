"""``python -m spikex``: the same as the ``spikex`` command."""

import sys

from .launch.cli import main

sys.exit(main())

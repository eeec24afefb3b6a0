"""``python -m spikex.config --markdown``: print the registry as Markdown."""

import sys

from .markdown import main

sys.exit(main())

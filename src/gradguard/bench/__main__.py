"""``python -m gradguard.bench``: the same as ``gradguard bench``."""

import sys

from gradguard.bench.cli import main

sys.exit(main())

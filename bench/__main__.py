"""``python -m bench``: the benchmark report (see :mod:`bench.run`)."""

import sys

from bench.run import main

sys.exit(main())

"""``python -m dprelease ...``: the ``dprelease`` command, for an environment whose scripts folder is not on PATH."""

import sys

from dprelease.cli import main

sys.exit(main())

"""``python -m lab``: the command line of :mod:`lab.cli`."""

from .cli import main

raise SystemExit(main())

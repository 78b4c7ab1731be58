"""``python -m lab``: the command line of :mod:`lab.cli`."""

from .cli import main

if __name__ == "__main__":  # not when a Dask worker process re-imports the main module
    raise SystemExit(main())

"""The app side of Chunking Lab: the shared sidebar (``state``), every cached engine call
(``cache``) and shared drawing helpers (``draw``). The engine itself lives in ``lab``."""

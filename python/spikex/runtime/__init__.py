"""What a running rank needs, below the Python API and above the core: cores and memory
of this host (``allocation``), the stall watchdog (``watchdog``), reductions over ranks
(``collective``). Nothing here imports ``api``, ``launch`` or the command line."""

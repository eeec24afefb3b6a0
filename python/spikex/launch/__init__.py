"""How spikex runs jobs: the layer between the Python API and the command line.

``run`` (the parent side of ``spikex run``: validate, launch, watch, report), ``worker``
(one rank of ``spikex run``), ``launcher`` (the one place that builds an ``mpiexec``
command line), ``job`` (a launched job and how it is stopped), ``failures`` (the one-line
report naming rank and host), ``progress`` and ``spike_output``. What a running rank
needs whatever started it is in ``spikex.runtime``; the commands are in ``spikex.cli``.
"""

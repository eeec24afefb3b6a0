"""The ``spikex`` command and how it runs jobs.

``cli`` (the commands), ``run`` (the parent side of ``spikex run``: validate, launch,
watch, report), ``worker`` (one rank of ``spikex run``), ``launcher`` (the one place that
builds an ``mpiexec`` command line), ``progress`` (the run's progress bar) and ``demo``
(``spikex demo``).
"""

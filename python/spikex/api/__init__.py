"""The Python API behind ``import spikex as sx``: ``Network``, ``Population``, ``Result``.

``network`` builds and simulates (SPMD: every rank runs the same calls), ``summary``
reduces a run's numbers over ranks into the ``summary.json`` fields, and ``collective``
holds the reductions over ranks they are built on. The package exports these names at
top level (``sx.Network``); this subpackage is where they live.
"""

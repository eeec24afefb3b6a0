"""``python -m spikex.results`` (``make results``): the papers' experiments, measured here.

Reads the experiment manifest (``examples/papers/experiments.toml``, see
``spikex.results.experiments``), runs every sweep with ``spikex compare`` (``runner``), plots it
with ``spikex plot`` and writes ``docs/results.md`` (``report``) with the figures under
``docs/results/``, next to the papers' published numbers (``published``).
"""

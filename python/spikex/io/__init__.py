"""Result files: ``summary.json``, SONATA ``spikes.h5`` and the canonical spike hash
(``output``), and the per-interval ``timeline.h5`` (``timeline``)."""

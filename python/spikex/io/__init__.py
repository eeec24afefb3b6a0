"""Result files: ``summary.json``, SONATA ``spikes.h5`` and the canonical spike hash
(``output``), the spike file written chunk by chunk during a run (``spike_stream``) and
the per-interval ``timeline.h5`` (``timeline``)."""

"""``spikex compare``: one network run under many (method, ranks, repeat), same spikes?

``comparison`` (plan, run and record a sweep), ``method_variants`` (``--methods``
parsing), ``spike_agreement`` (which runs must agree, and whether they do),
``run_metrics`` (the numbers read from each run), ``table`` (the terminal table),
``sweep_progress`` (the sweep's progress bar) and ``spike_perturbation`` (test only).
"""

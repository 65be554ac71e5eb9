"""BIB observers: shortcuts that audit the data, Bayesian inverse planning, learned models.

They register by name in :mod:`socialbench.voe.registry`; build one with
``make_observer("bib", name)``. Read :mod:`socialbench.observers.bib.evaluation` for the
evaluation glue and ``docs/bib_observers.md`` for what each observer assumes.
"""

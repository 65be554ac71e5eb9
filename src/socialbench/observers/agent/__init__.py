"""AGENT observers: controls that audit the data for answer-bearing cues (``controls``).

They register by name in :mod:`socialbench.voe.registry`; build one with
``make_observer("agent", name)``. ``socialbench agent audit DATA`` rates a dataset with every
control (:mod:`socialbench.observers.agent.audit`).
"""

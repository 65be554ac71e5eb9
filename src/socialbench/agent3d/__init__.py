"""AGENT: procedurally generated 3D physical trials (PyBullet), the benchmark's data and I/O.

Named ``agent3d`` so the benchmark is never confused with "the agent" entity every benchmark has.
"""

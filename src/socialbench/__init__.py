"""socialbench: benchmarks of social and intuitive-psychology reasoning in one package.

* ``socialbench.talkitout``: SocialAI 0.1's TalkItOut, a Gymnasium environment (importing this
  package registers ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``).
* ``socialbench.bib``: the Baby Intuitions Benchmark: generator, reader, validator.
* ``socialbench.agent3d``: the AGENT benchmark's 3D physical trials, generated in PyBullet.
* ``socialbench.voe`` and ``socialbench.observers``: the violation-of-expectation protocol shared
  by BIB and AGENT, its metrics, and the observers that are evaluated with it.
"""

__version__ = "0.1.0"

from socialbench.talkitout import registration as _registration  # noqa: E402

_registration.register_envs()

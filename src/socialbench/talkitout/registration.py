"""Gymnasium registration of the TalkItOut environments (cheap: entry points are strings)."""

from __future__ import annotations

import gymnasium

ENV_IDS = {"original": "socialbench/TalkItOut-v0", "no-liar": "socialbench/TalkItOutNoLiar-v0"}
_ENTRY_POINT = "socialbench.talkitout.env:TalkItOutEnv"
# gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point", **kwargs)
_VECTOR_ENTRY_POINT = "socialbench.talkitout.vector_env:TalkItOutVectorEnv"


def register_envs() -> None:
    """Register ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``, each with
    the batched :class:`~socialbench.talkitout.vector_env.TalkItOutVectorEnv` as its vector
    entry point."""
    for variant, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_ENTRY_POINT,
                               vector_entry_point=_VECTOR_ENTRY_POINT,
                               kwargs={"liar": variant == "original"})

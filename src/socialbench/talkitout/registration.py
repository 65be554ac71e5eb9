"""Gymnasium registration of the TalkItOut environments (cheap: entry points are strings)."""

from __future__ import annotations

import gymnasium

ENV_IDS = {"original": "socialbench/TalkItOut-v0", "no-liar": "socialbench/TalkItOutNoLiar-v0"}
_ENTRY_POINT = "socialbench.talkitout.env:TalkItOutEnv"


def register_envs() -> None:
    """Register ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``."""
    for variant, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_ENTRY_POINT,
                               kwargs={"liar": variant == "original"})

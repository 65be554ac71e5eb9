"""Gymnasium registration of the TalkItOut environments (filled in by the TalkItOut module)."""


def register_envs() -> None:
    """Register ``socialbench/TalkItOut-v0`` and ``socialbench/TalkItOutNoLiar-v0``."""

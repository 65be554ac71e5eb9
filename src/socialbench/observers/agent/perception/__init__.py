"""Perception for AGENT observers: RGB-D frames and the camera in, per-entity 3D boxes tracked
over frames out, as the states an observer reads (``--from-frames``).

What a TDW user has: each video's ``frames.npz`` (RGB and depth) and the camera in its
``scene_config.json``. Never ``state_info.json`` or ``_meta/``: :mod:`.frames` reads only the
camera and frame rate from the config, and :mod:`.episodes` builds episodes from frames alone.
The renderer's ground-truth segmentation is used only by the upper-bound mode
(``segmentation="truth"``).
"""

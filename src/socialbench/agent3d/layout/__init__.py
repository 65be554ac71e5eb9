"""AGENT scene layouts: what a video's scene holds, in metres, before any physics.

A :class:`~socialbench.agent3d.layout.geometry.Layout` is one video's physical scene in planner
terms (the agent's lane, goals, walls, chasms, platforms, an occluder); ``Layout.config()``
turns it into the ``SceneConfig`` the simulation, the files and the renderer use
(:mod:`socialbench.agent3d.bodies` then builds its PyBullet bodies). Scenario recipes only
choose layouts; planning reads their geometry; nothing here simulates. One module per job:

* :mod:`~socialbench.agent3d.layout.constants`: sizes, slots, cameras, colours, the room and
  entity ids, each with its source (agent spec or ours);
* :mod:`~socialbench.agent3d.layout.geometry`: the scene's parts (``Wall``, ``Chasm``,
  ``Platform``, ``Occluder``, ``Goal``) and the ``Layout`` that holds them;
* :mod:`~socialbench.agent3d.layout.cameras`: the fixed camera (ours or the released one);
* :mod:`~socialbench.agent3d.layout.placement`: drawing looks, rooms and layouts, and placing
  an obstacle of a difficulty level on the lane.

Geometry (PyBullet, z up): the agent walks along a *lane*, the x axis at ``y = row``; the camera
looks from -y, so the motion runs left-right in the image. One-goal scenes put the agent, the
obstacle and the goal in three slots along the lane; two-goal scenes put the agent in the middle,
an obstacle on each side and the goals beyond (agent spec, "Layout and camera"). A chasm raises
the walkable floor on boxes with a gap across the lane; the camera rises with it.
"""

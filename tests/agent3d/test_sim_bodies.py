"""The simulation builds its bodies without visual shapes (never drawn): the same ids and the
same physics as with them."""

from __future__ import annotations

from socialbench.agent3d.bodies import build_scene, physics_client
from socialbench.agent3d.physics import p
from socialbench.agent3d.samples import sample_entities
from socialbench.agent3d.schema import EntitySpec


def _run(entities: list[EntitySpec], visual: bool) -> tuple[dict[int, int], list]:
    with physics_client() as client:
        ids = build_scene(entities, client, visual=visual)
        agent = next(ids[e.id] for e in entities if e.kind == "agent")
        p.resetBaseVelocity(agent, linearVelocity=[1.0, 0.3, 2.0], physicsClientId=client)
        for _ in range(60):
            p.stepSimulation(physicsClientId=client)
        return ids, [p.getBasePositionAndOrientation(b, physicsClientId=client)
                     for b in ids.values()]


def test_bodies_without_visual_shapes_move_the_same():
    entities = [*sample_entities(),
                EntitySpec(id=9, name="cone", kind="obstacle", shape="cone", size=(0.3, 0.3, 0.4),
                           position=(0.5, 0.5, 0.2)),
                EntitySpec(id=10, name="bowl", kind="goal", shape="bowl", size=(0.3, 0.3, 0.15),
                           position=(-0.5, 0.5, 0.075))]
    assert _run(entities, True) == _run(entities, False)  # ids and poses, bit for bit


def test_a_client_emptied_body_by_body_is_handed_to_rendering_reset():
    """A simulation's client keeps its collision shapes for the next simulation; handed to
    anything else (rendering: visual shapes too) it is reset first, so nothing is reused."""
    from socialbench.agent3d import bodies

    entities = sample_entities()
    with physics_client(keep_shapes=True) as client:
        build_scene(entities, client, visual=False)
    assert client in bodies._KEPT_SHAPES and p.getNumBodies(physicsClientId=client) == 0
    with physics_client() as again:
        assert again == client and client not in bodies._KEPT_SHAPES
        build_scene(entities, again, visual=True)
        assert p.getNumBodies(physicsClientId=again) == len(entities)


def test_shapes_kept_under_a_client_number_are_not_used_by_a_new_client(monkeypatch):
    """PyBullet gives a new client the number of one disconnected (or of a forked parent's
    client): shapes kept under that number are another world's and must not be used."""
    from socialbench.agent3d import bodies

    monkeypatch.setattr(bodies, "_IDLE_CLIENTS", [])
    monkeypatch.setattr(bodies, "_KEPT_SHAPES", {})
    gone = p.connect(p.DIRECT)
    p.disconnect(gone)
    box = EntitySpec(id=1, name="box", kind="obstacle", shape="box", size=(0.4, 0.4, 0.4),
                     position=(0.0, 0.0, 0.2), static=True)
    bodies._KEPT_SHAPES[gone] = {("box", (0.4, 0.4, 0.4)): 7}  # no such shape in a new client
    with physics_client(keep_shapes=True) as client:
        assert client == gone  # the number is reused
        body = build_scene([box], client, visual=False)[1]
        assert p.getCollisionShapeData(body, -1, physicsClientId=client)[0][3] == (0.4, 0.4, 0.4)

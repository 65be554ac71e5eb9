"""Observers by name, for the command line: ``--observer shortcut-nearest``.

Observer modules register themselves with :func:`register_observer`; :func:`make_observer` imports
the modules listed in ``_MODULES`` lazily (so PyTorch loads only when a learned observer is asked
for) and builds the observer.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from socialbench.core.errors import UserError
from socialbench.voe.observer import Observer

# benchmark -> observer name -> module that registers it
_MODULES: dict[str, dict[str, str]] = {
    "bib": {
        "shortcut-nearest": "socialbench.observers.bib.shortcuts",
        "shortcut-location": "socialbench.observers.bib.shortcuts",
        "shortcut-path": "socialbench.observers.bib.shortcuts",
        "shortcut-direct": "socialbench.observers.bib.shortcuts",
        "shortcut-key": "socialbench.observers.bib.shortcuts",
        "control-novelty": "socialbench.observers.bib.controls",
        "control-duration": "socialbench.observers.bib.controls",
        "control-speed": "socialbench.observers.bib.controls",
        "control-contrast": "socialbench.observers.bib.controls",
        "control-path-shape": "socialbench.observers.bib.controls",
        "inverse-planning": "socialbench.observers.bib.inverse_planning",
        "mask": "socialbench.observers.bib.mask",
        "video": "socialbench.observers.bib.video_model.observer",
        "learned-planner": "socialbench.observers.bib.learned_planner.observer",
    },
    "agent": {
        "control-first-goal": "socialbench.observers.agent.controls",
        "control-lowest-id": "socialbench.observers.agent.controls",
        "control-left-goal": "socialbench.observers.agent.controls",
        "control-colour": "socialbench.observers.agent.controls",
        "control-shape": "socialbench.observers.agent.controls",
        "control-familiar-side": "socialbench.observers.agent.controls",
        "control-first-video": "socialbench.observers.agent.controls",
        "control-camera-side": "socialbench.observers.agent.controls",
        "bipack": "socialbench.observers.agent.bipack.observer",
        "tomnet-g": "socialbench.observers.agent.tomnet_g.observer",
    },
}

_FACTORIES: dict[tuple[str, str], Callable[..., Observer]] = {}


def register_observer(benchmark: str, name: str) -> Callable[[Callable[..., Observer]],
                                                              Callable[..., Observer]]:
    """Class or factory decorator: make ``name`` buildable by :func:`make_observer`."""

    def decorate(factory: Callable[..., Observer]) -> Callable[..., Observer]:
        _FACTORIES[(benchmark, name)] = factory
        return factory

    return decorate


def observer_names(benchmark: str) -> list[str]:
    return sorted(_MODULES.get(benchmark, {}))


def make_observer(benchmark: str, name: str, **options: Any) -> Observer:
    """Build the observer called ``name`` for ``benchmark``; a UserError lists the valid names."""
    module = _MODULES.get(benchmark, {}).get(name)
    if module is None:
        valid = ", ".join(observer_names(benchmark)) or "none yet"
        raise UserError(f"unknown {benchmark} observer {name!r}; choose one of: {valid}")
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in {"torch", "pybullet"}:
            raise UserError(f"observer {name!r} needs {exc.name}: pip install torch==2.13.0 && "
                            f"pip install -e '.[torch]'") from None
        raise
    factory = _FACTORIES.get((benchmark, name))
    if factory is None:
        raise UserError(f"observer {name!r} is listed but {module} did not register it")
    return factory(**options)

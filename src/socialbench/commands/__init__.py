"""The command line's layer: click commands that join a benchmark with its observers and models.

The top of the import layers (see ``[tool.importlinter]`` in ``pyproject.toml``): modules here
may import anything below; nothing below imports them. Each benchmark's command group is its own
module, imported by ``socialbench.cli`` only when that group is used.
"""

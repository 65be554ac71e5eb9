"""One module per `socialbench agent` sub-command; `agent3d/cli.py` assembles them."""

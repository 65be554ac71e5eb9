"""One module per `socialbench bib` sub-command; `bib/cli.py` assembles them."""

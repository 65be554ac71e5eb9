"""``socialbench serve``, ``report`` and ``study``: a web app over a dataset folder and evaluation
results, and a human rating study whose answers are kept in a SQL database.

The pages are views over the library calls the command line makes (dataset readers, observers,
the published numbers); this package adds only what the web needs: media served from inside a
dataset root, a rating study (its design, database and analysis) and the HTML around them.
Imported only by the web commands: Starlette, SQLAlchemy and Jinja2 come from the ``web`` extra.
"""

"""The user-facing errors, re-exported from :mod:`socialbench.core.errors` where they live (the
bottom layer: every package may raise them). Kept so ``from socialbench.errors import
UserError`` goes on working for code and scripts written against it."""

from socialbench.core.errors import DataFileError, UserError

__all__ = ["DataFileError", "UserError"]

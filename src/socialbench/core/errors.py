"""User-facing errors: the command line prints these as one line, without a traceback."""


class UserError(Exception):
    """Something the user can fix (bad option, unknown name, corrupt file).

    The message must say what is wrong and how to fix it, in one line.
    """


class DataFileError(UserError):
    """A data file that cannot be read: corrupt, truncated or of the wrong shape."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem

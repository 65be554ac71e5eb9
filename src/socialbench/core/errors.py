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


def first_line(exc: BaseException, limit: int = 120) -> str:
    """An exception's first line, at most ``limit`` characters (its type's name when it has no
    text): for a one-line error about a library's many-line message (PyTorch's state-dict
    errors list every key)."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[:limit - 3] + "..."

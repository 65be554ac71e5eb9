"""What keeps a served study safe on the internet: the admin password, sessions, CSRF tokens
for admin forms and the headers every response carries.

Rater forms are signed per rater and trial (``study.session.form_token``); admin pages need a
login whose session cookie is signed (itsdangerous, via Starlette's SessionMiddleware) and
whose forms carry a per-session CSRF token.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import threading
import time
from collections import defaultdict, deque
from pathlib import Path

from socialbench.core.errors import UserError

PASSWORD_ENV = "SOCIALBENCH_ADMIN_PASSWORD"
MIN_PASSWORD = 12
MAX_FAILURES = 5  # wrong admin passwords from one address per LOCKOUT_S before it is refused
LOCKOUT_S = 15 * 60

HEADERS = {
    # no inline scripts, no other origins; SVG plots use attributes, not style tags
    "content-security-policy": "default-src 'self'; img-src 'self' data:; media-src 'self'; "
                               "style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
                               "form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",  # rater links carry their token: never leak it
    "cache-control": "no-store",
}


def admin_password(password_file: Path | None) -> str | None:
    """The admin password: from a file (first line) or ``$SOCIALBENCH_ADMIN_PASSWORD``."""
    if password_file is not None:
        try:
            text = password_file.read_text().splitlines()
        except OSError as exc:
            raise UserError(f"--password-file {password_file}: {exc.strerror}") from exc
        password = text[0].strip() if text else ""
    else:
        password = os.environ.get(PASSWORD_ENV, "")
    if password and len(password) < MIN_PASSWORD:
        raise UserError(f"the admin password must have at least {MIN_PASSWORD} characters")
    return password or None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, password: str | None) -> None:
    """Serving beyond this machine needs an admin password."""
    if password is None and not is_loopback(host):
        raise UserError(f"--host {host} exposes the app: set ${PASSWORD_ENV} or --password-file "
                        f"(at least {MIN_PASSWORD} characters) to protect the admin pages")


def same_secret(given: str | None, expected: str) -> bool:
    return hmac.compare_digest((given or "").encode(), expected.encode())


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


class LoginThrottle:
    """Refuses logins from an address after ``MAX_FAILURES`` wrong passwords in ``LOCKOUT_S``
    (kept in memory: one server process)."""

    def __init__(self, failures: int = MAX_FAILURES, window_s: float = LOCKOUT_S) -> None:
        self.failures, self.window_s = failures, window_s
        self._seen: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, client: str) -> deque[float]:
        times = self._seen[client]
        while times and time.monotonic() - times[0] > self.window_s:
            times.popleft()
        return times

    def blocked(self, client: str) -> bool:
        with self._lock:
            return len(self._recent(client)) >= self.failures

    def failed(self, client: str) -> None:
        with self._lock:
            self._recent(client).append(time.monotonic())

"""Passwords: Argon2id hashes (argon2-cffi's ``PasswordHasher``, its default parameters),
made and checked off the event loop on a small pool of their own (``Passwords``), never on
the database thread: each takes about a tenth of a second and 64 MiB, so a few at once
and a bounded queue, beyond which a sign-in is refused as ``busy`` (503).

A check for an account that does not exist verifies the password against a hash of a
random one, so that a refusal takes the same time whether the name exists or not.
"""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from regalia.server.refusal import Refusal

PASSWORD_MIN, PASSWORD_MAX = 8, 128
PASSWORD_RULE = f"password: {PASSWORD_MIN} to {PASSWORD_MAX} characters"


def password_problem(password: str) -> str | None:
    """Why ``password`` may not be an account's (``PASSWORD_RULE``), or ``None``."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return PASSWORD_RULE
    try:
        password.encode("utf-8")
    except UnicodeEncodeError:
        return "password: text (valid Unicode)"
    return None


class Passwords:
    """Hashing and checking of passwords on ``workers`` threads, at most ``queue`` waiting
    (``hasher``: an argon2-cffi ``PasswordHasher``; tests may hand a cheaper one)."""

    def __init__(self, hasher: PasswordHasher | None = None, workers: int = 2,
                 queue: int = 16) -> None:
        self.hasher = hasher or PasswordHasher()
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="regalia-hash")
        self.queue = queue
        self.waiting = 0
        self._dummy: str | None = None

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the pool; raises ``Refusal("busy")`` when ``queue`` are waiting."""
        if self.waiting >= self.queue:
            raise Refusal("busy", "the server is busy checking passwords: try again in a few "
                                  "seconds")
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        finally:
            self.waiting -= 1

    async def hash(self, password: str) -> str:
        """A new hash of ``password`` (encoded: algorithm, parameters, salt, hash)."""
        return await self._run(self.hasher.hash, password)

    async def check(self, stored: str | None, password: str) -> tuple[bool, str | None]:
        """Whether ``password`` matches ``stored`` (an account's hash; ``None``: no such
        account, or none set, checked against a dummy hash all the same), and a new hash to
        store when ``stored`` was made with other parameters than the hasher's now."""
        return await self._run(self._check, stored, password)

    def _check(self, stored: str | None, password: str) -> tuple[bool, str | None]:
        if stored is None:
            if self._dummy is None:
                self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
            self._verify(self._dummy, password)
            return False, None
        if not self._verify(stored, password):
            return False, None
        try:
            stale = self.hasher.check_needs_rehash(stored)
        except InvalidHashError:  # pragma: no cover - verified already
            stale = False
        return True, self.hasher.hash(password) if stale else None

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

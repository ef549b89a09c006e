"""``njit``: numba's compiler when numba is installed, otherwise a do-nothing decorator.

The fast path is written so that it also runs (slowly) as plain Python, which keeps the
package importable without numba; the benchmarks and the bots' rollouts use numba.
"""

from __future__ import annotations

try:  # pragma: no cover - depends on the environment
    from numba import njit as _njit

    HAVE_NUMBA = True

    def njit(*args, **kwargs):
        kwargs.setdefault("cache", True)
        kwargs.setdefault("nogil", True)
        if args and callable(args[0]):
            return _njit(**kwargs)(args[0])
        return _njit(*args, **kwargs)

except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


def _trailing_zeros_loop(m):
    """The number of zero bits below the lowest set bit of ``m`` (``m`` > 0)."""
    n = 0
    while (m >> n) & 1 == 0:
        n += 1
    return n


try:  # one instruction (tzcnt) in compiled code; an internal of numba's
    from numba import config as _config
    from numba.cpython.unsafe.numbers import trailing_zeros

    if _config.DISABLE_JIT:  # an intrinsic cannot run as plain Python
        raise ImportError
except ImportError:  # pragma: no cover - without numba, or a numba without it
    trailing_zeros = njit(_trailing_zeros_loop)


def refresh_cache_if_changed(module_file: str, *dependencies: str) -> None:
    """Drop numba's on-disk cache of ``module_file`` when a module it calls into changed.

    numba checks only the cached module's own source file, not the modules its functions
    call, so the policy module's cache must be dropped when the fast path's source changes.
    """
    import hashlib
    from pathlib import Path

    here = Path(module_file)
    cache = here.parent / "__pycache__"
    digest = hashlib.sha256(b"".join(Path(d).read_bytes() for d in dependencies)).hexdigest()
    stamp = cache / f"{here.stem}.deps"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for f in cache.glob(f"{here.stem}.*.nb[ic]"):
            f.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # pragma: no cover - a read-only install keeps its cache
        pass


def cached(module_file: str) -> bool:
    """Whether numba's on-disk cache holds compiled functions of ``module_file`` (so they
    load at once instead of compiling, which takes up to a minute the first time).
    ``True`` without numba: nothing is compiled."""
    from pathlib import Path

    here = Path(module_file)
    return not HAVE_NUMBA or any((here.parent / "__pycache__").glob(f"{here.stem}.*.nbi"))

"""The published benchmark deal sets (``deals/regicide.json``, ``deals/ribauds.json``).

A deal is a seed: ``Match(game, {"players": n}, seed)`` deals the game and draws every
chance event from ``random.Random(seed)``, so the same seed and the same decisions replay
the same game. Each file holds 1,000 seeds per player count, drawn once from a fixed master
seed by ``python -m regalia.lab.deals`` and committed; evaluations use the first ``N``.

File format::

    {"format": "regalia-deals/1", "game": "regicide", "master_seed": 20260501,
     "deals": {"1": [seed, ...], "2": [...], "3": [...], "4": [...]}}
"""

from __future__ import annotations

import json
import random
from pathlib import Path

DEALS_DIR = Path(__file__).with_name("deals")
FORMAT = "regalia-deals/1"
MASTER_SEED = 20260501
PER_COUNT = 1000
PLAYER_COUNTS = {"regicide": (1, 2, 3, 4), "ribauds": (2,)}


def generate(game: str, master_seed: int = MASTER_SEED, per_count: int = PER_COUNT) -> dict:
    """The deal-set object of ``game`` (distinct 32-bit seeds per player count)."""
    rng = random.Random(f"{game}:{master_seed}")
    deals = {}
    for n in PLAYER_COUNTS[game]:
        seeds: list[int] = []
        seen: set[int] = set()
        while len(seeds) < per_count:
            s = rng.getrandbits(32)
            if s not in seen:
                seen.add(s)
                seeds.append(s)
        deals[str(n)] = seeds
    return {"format": FORMAT, "game": game, "master_seed": master_seed, "deals": deals}


def load_deals(game: str, players: int, path: str | Path | None = None) -> list[int]:
    """The benchmark seeds of ``game`` for ``players``; raises ``KeyError`` naming what is
    missing, ``OSError`` when the file cannot be read."""
    p = Path(path) if path else DEALS_DIR / f"{game}.json"
    obj = json.loads(p.read_text())
    if obj.get("format") != FORMAT or obj.get("game") != game:
        raise KeyError(f"{p}: not a {game} deal set ({FORMAT})")
    try:
        return list(obj["deals"][str(players)])
    except KeyError:
        raise KeyError(f"{p}: no deals for {players} players; it has "
                       f"{', '.join(sorted(obj['deals']))}") from None


def main() -> None:  # pragma: no cover - run once to write the files
    DEALS_DIR.mkdir(exist_ok=True)
    for game in PLAYER_COUNTS:
        path = DEALS_DIR / f"{game}.json"
        obj = generate(game)
        path.write_text(json.dumps(obj, separators=(",", ":")) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

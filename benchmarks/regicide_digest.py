"""A digest of everything the Regicide engine does on random games, to check that a faster
engine plays exactly the same games (states, events, logs, legal action lists in order, the
random generator's state after each game).

Run it under two versions and compare the printed digests (one per player count), e.g.

    PYTHONPATH=/tmp/base/src python benchmarks/regicide_digest.py
    python benchmarks/regicide_digest.py

It also checks that no state changes after it was made (apply never changes its input,
nor a state it returned earlier).
"""

from __future__ import annotations

import argparse
import hashlib
import random

from regalia.core.game import log_events
from regalia.games.regicide import REGICIDE as G


def digest(players: int, games: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    h = hashlib.sha256()
    for g in range(games):
        config: dict = {"players": players}
        if g % 3 == 1:
            config["minimal_discard"] = True
        if g % 5 == 2 and players == 1:
            config["solo_yield"] = True
        s = G.new_game(config, rng)
        h.update(repr(G.to_json(s)).encode())
        history = [(s, G.to_json(s))]
        while not G.is_terminal(s):
            legal = G.legal_actions(s)
            h.update(repr(list(legal)).encode())
            side = G.side_actions(s)
            action = side[0] if side and rng.random() < 0.3 else legal[rng.randrange(len(legal))]
            s, events = G.apply(s, action, rng)
            h.update(repr(events).encode())
            h.update(repr(G.to_json(s)).encode())
            history.append((s, G.to_json(s)))
        for old, seen in history:
            assert G.to_json(old) == seen, "a state changed after it was made"
        h.update(repr(log_events(s.log)).encode())
        h.update(repr(rng.getstate()).encode())
    return h.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per player count")
    args = parser.parse_args()
    print(" ".join(digest(p, args.games) for p in (1, 2, 3, 4)))


if __name__ == "__main__":
    main()

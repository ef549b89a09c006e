"""Regicide's fixed sayings (rules 1.15) count as the board shows: "N enemies are left in
the Castle" says the number on the Castle pile, which does not hold the enemy being fought
(``gamekit.say``)."""

from __future__ import annotations

import random

from regalia.games import get_game
from regalia.server.tables import gamekit

REGICIDE = get_game("regicide")


def positions(seed: int, players: int, games: int):
    rng = random.Random(seed)
    for _ in range(games):
        s = REGICIDE.new_game({"players": players}, rng)
        while not REGICIDE.is_terminal(s):
            yield s
            legal = list(REGICIDE.legal_actions(s))
            s, _ = REGICIDE.apply(s, legal[rng.randrange(len(legal))], rng)


def test_the_castle_saying_counts_the_castle_pile_the_board_shows():
    seen = set()
    for s in positions(3, 2, 4):
        public = REGICIDE.view(s, None)
        said = gamekit.say(REGICIDE, s, 0, "castle_size")
        assert said["params"] == {"castle": public["castle"]}
        assert said["text"] == f"{public['castle']} enemies are left in the Castle."
        seen.add(public["castle"])
    assert 11 in seen  # the first enemy is fought while 11 wait in the Castle


def test_the_other_sayings_keep_their_counts():
    s = REGICIDE.new_game({"players": 2}, random.Random(1))
    public = REGICIDE.view(s, None)
    assert gamekit.say(REGICIDE, s, 1, "hand_size")["params"] == {"hand": public["hand_sizes"][1]}
    assert gamekit.say(REGICIDE, s, 0, "tavern_size")["params"] == {"tavern": public["tavern"]}

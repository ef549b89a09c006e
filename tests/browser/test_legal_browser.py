"""The page writes out the compact Step 4 discards of a ``state`` message
exactly as the server's ``gamekit.expand_discards`` does: ``legal.js`` run in Chromium
on the compact forms of random games' positions (options and player counts mixed, hands
with two Jesters included) gives the same texts in the same order."""

from __future__ import annotations

import random

import pytest

from regalia.games import get_game
from regalia.server.tables import gamekit

pytestmark = pytest.mark.slow

EXPAND = """async (forms) => {
  const m = await import('/static/js/legal.js');
  return forms.map((d) => m.expandDiscards(d));
}"""


def compact_forms(count: int) -> list[dict]:
    g, rng, out = get_game("regicide"), random.Random(8), []
    while len(out) < count:
        config = {"players": rng.randint(1, 4), "minimal_discard": rng.random() < 0.5}
        s = g.new_game(config, rng)
        while not g.is_terminal(s):
            _, discards = gamekit.legal_message(g, s)
            if discards:
                out.append(discards)
            legal = list(g.legal_actions(s))
            s, _ = g.apply(s, legal[rng.randrange(len(legal))], rng)
    return out


def test_the_page_writes_out_the_discards_as_the_server_does(server, chromium):
    forms = compact_forms(400)
    forms.append({"from": ["5C", "9H", "X", "X"], "at_least": 5, "minimal": False})
    assert any(d["minimal"] for d in forms) and any(not d["minimal"] for d in forms)
    page = chromium.new_context().new_page()
    page.goto(server.url + "/")
    written = page.evaluate(EXPAND, forms)
    assert written == [gamekit.expand_discards(d) for d in forms]
    assert max(map(len, written)) > 50  # hands with many ways to discard were among them

"""Log sentences for people: the engines' describe modules (terminal)
and the browser log's texts in English, Portuguese (Brazil) and Spanish."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from regalia.bots import make_bot
from regalia.core.records import Match
from regalia.games.regicide import REGICIDE
from regalia.games.regicide.describe import describe as regicide_describe
from regalia.games.ribauds.describe import describe as ribauds_describe

I18N = Path(__file__).resolve().parents[1] / "src" / "regalia" / "server" / "static" / "i18n"
LANGS = ("en", "pt-BR", "es")


def texts(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def test_ribauds_card_names_take_an_article_that_fits():
    """No "a Assassin": the placed and the discarded card are named with "the"."""
    said = ribauds_describe({"kind": "replace", "seat": 0, "slot": 1, "card": "A", "up": True,
                             "discarded": "K"})
    assert said == "Player 1 places the Assassin face up in C2; the Roi there is discarded."
    hidden = ribauds_describe({"kind": "replace", "seat": 1, "slot": 3, "up": False})
    assert hidden == "Player 2 places a card face down in C4 and takes the old card into hand."
    for key, value in texts("en").items():
        assert not re.search(r"\b[aA] \{card\}", value), (key, value)


@pytest.mark.parametrize("event, said", [
    ({"kind": "reshuffle", "seat": None, "count": 1}, "(1 card)"),
    ({"kind": "reshuffle", "seat": None, "count": 5}, "(5 cards)"),
    ({"kind": "draw", "seat": 0, "count": 1}, "draws 1 card."),
    ({"kind": "draw", "seat": 0, "count": 2}, "draws 2 cards."),
    ({"kind": "inspect", "seat": 0, "count": 1, "target": 1, "discarded": ["Q"]},
     "inspects 1 card of Player 2's hand; 1 Reine discarded."),
])
def test_ribauds_counts_agree_with_their_noun(event, said):
    assert said in ribauds_describe(event)
    assert "(s)" not in ribauds_describe(event)


@pytest.mark.parametrize("event, said", [
    ({"kind": "heal", "seat": 0, "count": 1}, "Hearts: 1 card from the discard pile goes under"),
    ({"kind": "heal", "seat": 0, "count": 3}, "Hearts: 3 cards from the discard pile go under"),
    ({"kind": "refresh", "seat": 0, "discarded": ["5C"], "counts": {"0": 8}, "jesters": 1},
     "discards 1 card and draws 8 (1 Jester left)."),
    ({"kind": "setup", "seat": None, "players": 1, "first": 0, "enemy": "JS"},
     "Solo game: Player 1 starts against J♠."),
    ({"kind": "setup", "seat": None, "players": 3, "first": 2, "enemy": "JS"},
     "New game for 3 players: Player 3 starts against J♠."),
])
def test_regicide_counts_agree_with_their_noun(event, said):
    assert said in regicide_describe(event)


def test_the_browser_log_has_a_singular_for_every_counted_plural():
    """Where a count ``{n}`` is followed by a plural noun, ``KEY_one`` (which ``t()`` takes
    when n is 1) exists in every language and is singular."""
    en = texts("en")
    counted = [k for k, v in en.items()
               if re.search(r"\{n\} (cards|players|Reines)\b", v) and not k.endswith("_other")]
    assert {"log.b.draw", "log.b.reshuffle", "log.r.heal", "log.r.setup"} <= set(counted)
    for lang in LANGS:
        d = texts(lang)
        for key in counted:
            one = d.get(key + "_one")
            assert one, (lang, key)
            assert not re.search(r"\{n\} (cards|cartas|players|jogadores|jugadores|Reines|"
                                 r"Rainhas|Reinas)\b", one), (lang, key, one)
    for lang in LANGS:
        assert not [v for k, v in texts(lang).items() if k.startswith("log.") and "{n} card(s)" in v]


def test_a_solo_game_is_not_called_the_players():
    """The end of a solo game is a Victory or a Defeat, in the terminal and in the browser's
    three languages; never "the players"."""
    bot = make_bot("regicide", "heuristic")
    rng = random.Random(0)
    endings = set()
    for seed in range(40):
        match = Match(REGICIDE, {"players": 1}, seed)
        while not REGICIDE.is_terminal(match.state):
            view = REGICIDE.view(match.state, 0)
            match.play(bot.act(view, REGICIDE.legal_actions(match.state), rng))
        last = regicide_describe(REGICIDE.view(match.state, 0)["log"][-1])
        assert "players" not in last, last
        endings.add(last.split(":")[0])
        if endings == {"Victory", "Defeat"}:
            break
    assert endings == {"Victory", "Defeat"}
    words = {"en": "players", "pt-BR": "jogadores", "es": "jugadores"}
    for lang in LANGS:
        d = texts(lang)
        for key in ("log.r.won", "log.r.lost_attack", "log.r.lost_stuck"):
            assert words[lang] not in d[key], (lang, key)


def test_the_solo_prompt_offers_no_yield():
    """The prompt when yield is not legal mentions no yielding in solo
    (``regicide.prompt_play_no_yield``, rules 1.11, 3.R3), and says why at 2-4 players
    (``..._all``: every other player yielded); the browser tests check which one shows."""
    for lang, word in (("en", "yield"), ("pt-BR", "pass"), ("es", "cede")):
        d = texts(lang)
        assert word in d["regicide.prompt_play"] and word not in d["regicide.prompt_play_no_yield"]
        assert word in d["regicide.prompt_play_no_yield_all"], lang


def test_the_castle_saying_has_a_singular_in_every_language():
    """"1 enemy is left in the Castle": the saying counts the Castle pile the board shows
    (``gamekit.say``), which is 1 before the last enemy is turned up."""
    for lang in LANGS:
        d = texts(lang)
        one = d["say.castle_size_one"]
        assert "{castle}" in one and not re.search(r"enemies|inimigos|enemigos", one), (lang, one)


def test_the_terminal_and_the_browser_say_a_ribauds_win_alike():
    """"wins by the Murder" in the terminal's log and end screen, as on the web page."""
    from regalia.cli.screens.ribauds import result

    said = ribauds_describe({"kind": "win", "seat": 1, "conspiracy": "murder"})
    assert said.startswith("Player 2 wins by the Murder")
    assert texts("en")["log.b.win"] == "{who} wins by the {c}!"
    end = result({"winner": 0, "seat": None, "conspiracy": "coronation"}).plain
    assert end.startswith("Player 1 wins by the Coronation")


# Every kind of event of both games, once for seat 0 and once for seat 1 (the other one).
SEAT_EVENTS = {
    "regicide": [
        {"kind": "setup", "seat": None, "players": 2, "first": 0, "enemy": "JS"},
        {"kind": "play", "seat": 0, "cards": ["5S"], "value": 5, "powers": ["S"], "blocked": [],
         "damage": 5, "idle": []},
        {"kind": "jester", "seat": 0},
        {"kind": "refresh", "seat": 0, "discarded": ["5C"], "counts": {"0": 8}, "jesters": 1,
         "known": {"0": ["KS"]}},
        {"kind": "draw", "seat": 0, "counts": {"0": 2, "1": 1}},
        {"kind": "yield", "seat": 0},
        {"kind": "shielded", "seat": 0},
        {"kind": "discard", "seat": 0, "cards": ["9D"], "total": 9, "attack": 8},
        {"kind": "choose", "seat": 0, "next": 1},
        {"kind": "choose", "seat": 1, "next": 0},
        {"kind": "prefer", "seat": 0, "wish": "yes"},
        {"kind": "lost", "seat": 0, "reason": "attack", "attack": 20},
        {"kind": "lost", "seat": 0, "reason": "stuck"},
    ],
    "ribauds": [
        {"kind": "redeal", "seat": 0},
        {"kind": "start", "seat": 0},
        {"kind": "reveal", "seat": 0, "slot": 1, "card": "K"},
        {"kind": "king_reveal", "seat": 0, "slot": 1, "card": "K"},
        {"kind": "replace", "seat": 0, "slot": 1, "card": "A", "up": True, "taken": "K"},
        {"kind": "replace", "seat": 0, "slot": 1, "up": False},
        {"kind": "swap", "seat": 0, "slots": [0, 1]},
        {"kind": "flip", "seat": 0, "slot": 1, "up": True, "card": "Q"},
        {"kind": "draw", "seat": 0, "count": 2, "cards": ["K", "Q"]},
        {"kind": "discard", "seat": 0, "cards": ["K", "Q"]},
        {"kind": "peek", "seat": 0, "slots": [0, 1], "cards": ["K", "Q"]},
        {"kind": "inspect", "seat": 0, "count": 2, "target": 1, "cards": ["Q"], "discarded": ["Q"]},
        {"kind": "inspect", "seat": 1, "count": 2, "target": 0, "cards": ["Q"], "discarded": ["Q"]},
        {"kind": "win", "seat": 0, "conspiracy": "murder"},
    ],
}
# Third-person verbs the sentences use: after "you" each must lose its s.
THIRD_PERSON = re.compile(r"\b[Yy]ou (plays|starts|flips|discards|draws|yields|chooses|reveals|"
                          r"uses|places|takes|wins|has|does|is)\b|\b[Yy]ou's\b|\band takes\b")


@pytest.mark.parametrize("game", ["regicide", "ribauds"])
def test_the_log_says_you_with_verbs_that_agree(game):
    """With seat 0 named "You" (the terminal's one human), every sentence of both games
    agrees with it ("You play", "you draw 2", "Your Chevalier", "of your hand"); without a
    name argument the sentences say "Player N" as before."""
    from regalia.games.regicide.describe import seat_name

    describe = regicide_describe if game == "regicide" else ribauds_describe
    you = lambda s: "Nobody" if s is None else "You" if s == 0 else "Bot (heuristic)"  # noqa: E731
    for event in SEAT_EVENTS[game]:
        said = describe(event, you)
        assert "Player 1" not in said and not THIRD_PERSON.search(said), said
        assert ("You" in said or "you" in said), said
        assert describe(event) == describe(event, seat_name), event
        assert "Player 1" in describe(event) or "Player 2" in describe(event), event
    assert describe(SEAT_EVENTS[game][1], you).startswith(
        "You play 5♠" if game == "regicide" else "You play first")


def test_every_hint_reason_is_said_in_the_three_languages():
    """Each reason kind a hint gives (``games.regicide.hints.REASONS``) has its text
    ``hints.why.KIND`` in every language (``_one``/``_other`` for a count ``n``), naming no
    parameter the reason lacks; the English text names them all; no text is left for a kind
    that no longer exists. The hint's line and its chances are translated too."""
    from regalia.games.regicide.hints import REASONS

    for lang in LANGS:
        d = texts(lang)
        for kind, params in REASONS.items():
            base = f"hints.why.{kind}"
            keys = [base + "_one", base + "_other"] if "n" in params and base not in d else [base]
            for key in keys:
                assert key in d, (lang, key)
                named = set(re.findall(r"\{(\w+)\}", d[key]))
                assert named <= set(params), (lang, key, named)
                if lang == "en":
                    assert named == set(params), (key, named)
        stale = {k.split(".")[2].removesuffix("_one").removesuffix("_other")
                 for k in d if k.startswith("hints.why.")} - set(REASONS)
        assert not stale, (lang, stale)
        assert set(re.findall(r"\{(\w+)\}", d["hints.line"])) == {"move", "why"}, lang
        assert set(re.findall(r"\{(\w+)\}", d["hints.odds"])) == {"p"}, lang
        assert set(re.findall(r"\{(\w+)\}", d["hints.odds_next"])) == {"p", "move", "q"}, lang
    assert texts("es")["hints.why.exact_kill"].count("Taberna") == 1
    assert "Taverna" in texts("pt-BR")["hints.why.exact_kill"]


def test_every_tutorial_text_is_said_in_the_three_languages():
    """Every coach text key of the tutorials' scripts (each step's words, what its move
    shows, the summary, the words of its move) exists in English, Portuguese (Brazil) and
    Spanish, and each step's words use exactly the parameters the script gives them."""
    from regalia.server.tutorials import script

    for game in ("regicide", "ribauds"):
        sc = script(game)
        for lang in LANGS:
            d = texts(lang)
            assert d.get(sc.summary), (lang, sc.summary)
            for step in sc.steps:
                mine = step.move is None or step.by == sc.seat
                keys = (step.coach, step.shows) if step.move else (step.coach,)
                for key in keys if mine else ():
                    assert key and d.get(key), (lang, game, step)
                if mine:
                    used = set(re.findall(r"\{(\w+)\}", d[step.coach]))
                    assert used == set(step.say), (lang, step.coach, used, sorted(step.say))
                if step.move and mine:
                    verb, *args = step.move.split()
                    move = f"tutorial.move.{verb}" + (f"_{args[2]}" if verb == "replace" else "")
                    assert d.get(move), (lang, move)
    en = texts("en")
    for lang in LANGS:
        d = texts(lang)
        for key, value in en.items():
            if key.startswith("tutorial."):
                said = set(re.findall(r"\{(\w+)\}", d[key]))
                assert said == set(re.findall(r"\{(\w+)\}", value)), (lang, key)
def test_the_friends_panel_is_said_in_the_three_languages():
    """Every text the lobby's Friends panel names (``"friends.*"`` in ``static/js/friends.js``
    and the lobby's page, a count's ``_one`` and ``_other`` forms included) exists in the
    three languages with the same placeholders, and no friends text is left unused."""
    static = I18N.parent
    named = set()
    for source in (static / "js" / "friends.js", static / "index.html"):
        named |= set(re.findall(r'"(friends\.[a-z_]+)"', source.read_text(encoding="utf-8")))
    assert len(named) > 30
    en = texts("en")
    keys = {k for k in en if k.startswith("friends.")}
    assert {k.removesuffix("_one").removesuffix("_other") for k in keys} == named
    for lang in LANGS:
        d = texts(lang)
        assert {k for k in d if k.startswith("friends.")} == keys, lang
        for key in keys:
            assert set(re.findall(r"\{(\w+)\}", d[key])) == set(re.findall(r"\{(\w+)\}", en[key])), (
                lang, key)
        assert not re.search(r"\b(seats|lugares|asientos|players|jogadores|jugadores)\b",
                             d["friends.free_seats_one"].split(" de ")[0].split(" of ")[0])

"""Terminal play end to end with scripted input."""

from __future__ import annotations

import io
import json
import random
import re

from rich.console import Console
from typer.testing import CliRunner

from regalia.bots import make_bot
from regalia.cli.app import app
from regalia.cli.terminal import TerminalTable
from regalia.core.records import GameRecord, Match
from regalia.games.regicide import REGICIDE


def scripted(lines):
    it = iter(lines)

    def read(prompt: str) -> str:
        return next(it)

    return read


def test_solo_game_played_to_the_end_by_typing(tmp_path):
    """A person choosing menu item 1 every time plays a whole solo game."""
    save = tmp_path / "game.json"
    r = CliRunner().invoke(app, ["play", "regicide", "--seed", "11", "--save", str(save)],
                           input="1\n" * 400)
    assert r.exit_code == 0, r.output
    assert "Victory" in r.output or "Defeat" in r.output
    assert "Traceback" not in r.output
    record = GameRecord.load(save)
    assert record.actions, "the record holds the moves"
    replayed = Match.from_record(REGICIDE, record)
    assert REGICIDE.is_terminal(replayed.state)
    shown = CliRunner().invoke(app, ["replay", str(save)])
    assert shown.exit_code == 0 and record.actions[0].split()[0] in shown.output


def test_bad_input_gets_a_message_and_a_new_prompt():
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False)
    match = Match(REGICIDE, {"players": 1}, 3)
    lines = ["", "banana", "99", "play KS KH", "help", "log", "quit"]
    TerminalTable(match, {}, console=console, read=scripted(lines)).run()
    text = out.getvalue()
    assert text.count("Refused:") == 2
    assert "Not understood: 'banana'" in text
    assert "not on the menu" in text
    assert "Game left unfinished" in text
    assert match.actions == [], "refused input changed nothing"


def test_regicide_refusals_write_cards_as_the_menu_does():
    """A refusal names cards with suit symbols (K♠, as the menu and the hand show them), never
    in notation (KS), and players numbered from 1."""
    from regalia.cli.screens import regicide as screen

    message = ("play KS 2C is refused: seat 0 does not hold KS 2C; seat 0 may: jester, play; "
               "e.g. play AC, play TD, play X")
    assert screen.refusal(message) == ("Refused: Player 1 does not hold K♠ 2♣; Player 1 may: "
                                       "jester, play; e.g. play A♣, play 10♦, play Jester")
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 1}, 3)
    TerminalTable(match, {}, console=Console(file=out, width=200, force_terminal=False),
                  read=scripted(["play KS KH", "quit"])).run()
    refused = next(ln for ln in out.getvalue().splitlines() if "Refused" in ln)
    assert "K♠" in refused and "K♥" in refused and "KS" not in refused, refused
    assert match.actions == []


def test_a_card_typed_wrong_gets_the_notation_with_the_jester_named():
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 1}, 3)
    TerminalTable(match, {}, console=Console(file=out, width=200),
                  read=scripted(["play 5X", "quit"])).run()
    assert ("'5X' is not a card: write rank A 2-9 T(or 10) J Q K then suit C D H S, "
            "or X for a Jester") in out.getvalue()
    assert match.actions == []


def test_typed_cards_are_played_in_notation():
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 1}, 5)
    card = REGICIDE.view(match.state, 0)["hand"][0]
    TerminalTable(match, {}, console=Console(file=out, width=100),
                  read=scripted([card.lower(), "quit"])).run()
    assert match.actions == [f"play {card}"]


def test_hot_seat_hands_stay_hidden():
    """Two humans: a hand-over screen comes between them, and the hand drawn for a seat is
    always that seat's own."""
    from regalia.games.regicide.cards import parse_card, pretty

    out = io.StringIO()
    console = Console(file=out, width=160)
    match = Match(REGICIDE, {"players": 2, "first_player": 0}, 8)
    checked = set()
    handovers = []

    def read(prompt: str) -> str:
        screen = out.getvalue()
        out.seek(0)
        out.truncate()
        if "Press Enter" in prompt:
            handovers.append(prompt)
            return ""
        if "your move" in prompt:
            seat = int(prompt.split()[1].rstrip(",")) - 1
            hand_lines = [ln for ln in screen.splitlines() if "Your hand:" in ln]
            if hand_lines:
                shown = hand_lines[-1].split("Your hand:")[1].split("(total")[0].split()
                own = [pretty(parse_card(t)) for t in REGICIDE.view(match.state, seat)["hand"]]
                assert sorted(shown) == sorted(own)
                checked.add(seat)
        return "quit" if len(checked) == 2 and len(handovers) >= 2 else "1"

    TerminalTable(match, {}, console=console, read=read).run()
    assert checked == {0, 1}
    assert len(handovers) >= 2


def test_bots_play_a_four_player_game_with_jester_wishes():
    out = io.StringIO()
    bots = {s: make_bot("regicide", "heuristic") for s in range(4)}
    for seed in range(30):
        match = Match(REGICIDE, {"players": 4}, seed)
        TerminalTable(match, bots, console=Console(file=out, width=100)).run()
        assert REGICIDE.is_terminal(match.state)
        if any(a.startswith("prefer") for a in match.actions):
            break
    else:
        raise AssertionError("no Jester window with wishes in 30 bot games")
    assert any(a.startswith("choose") for a in match.actions)
    assert "would" in out.getvalue() or "wants" in out.getvalue()


def test_play_command_refuses_bad_seats():
    r = CliRunner().invoke(app, ["play", "regicide", "--players", "2", "--bots", "5"])
    assert r.exit_code == 2 and "--bots" in r.stderr


def test_ribauds_game_against_a_bot_to_the_end():
    """`regalia play ribauds`: a person choosing item 1 plays a whole game; the winner and
    the conspiracy are announced; face-down cards the seat does not know are never named."""
    r = CliRunner().invoke(app, ["play", "ribauds", "--bot", "random", "--seed", "4"],
                           input="1\n" * 300)
    assert r.exit_code == 0, r.output
    assert " wins by the " in r.output or "You win by the " in r.output
    assert "Traceback" not in r.output


def test_ribauds_screen_shows_only_known_face_down_cards():
    from regalia.cli.screens import ribauds as screen
    from regalia.games.ribauds import RIBAUDS

    state = RIBAUDS.from_json({
        "game": "ribauds", "current": 0, "phase": "act",
        "court": ["K-", "A+", "Q-", "N-"], "hands": [["N", "K", "Q"], ["A", "A", "K"]],
        "deck": ["K", "N"], "discard": [], "winner": None, "conspiracy": None, "options": {}})
    out = io.StringIO()
    Console(file=out, width=120).print(screen.render(RIBAUDS.view(state, 0)))
    court_line = out.getvalue().splitlines()[2]
    assert "Assassin" in court_line and court_line.count("[ ? ]") == 3


def test_ribauds_a_remembered_card_says_face_down_once():
    """A face-down Court card the seat has seen is named, with "face down" said once, on
    the side line under it."""
    from regalia.cli.screens import ribauds as screen
    from regalia.games.ribauds import RIBAUDS

    state = RIBAUDS.from_json({
        "game": "ribauds", "current": 0, "phase": "act",
        "court": ["K-", "A+", "Q-", "N-"], "hands": [["N", "K", "Q"], ["A", "A", "K"]],
        "deck": ["K", "N"], "discard": [], "winner": None, "conspiracy": None, "options": {}})
    state, _ = RIBAUDS.apply(state, RIBAUDS.action_from_text(state, "replace 2 N down"),
                             random.Random(0))  # Player 1 knows the Chevalier put in C3
    out = io.StringIO()
    Console(file=out, width=120).print(screen.render(RIBAUDS.view(state, 0)))
    cards, sides = out.getvalue().splitlines()[2:4]
    assert "Chevalier (you remember)" in cards and "face down" not in cards
    assert sides.split() == ["│", "face", "down", "face", "up", "face", "down", "face", "down", "│"]


def test_ribauds_typed_as_on_screen():
    """Slots C1-C4 and card names, as the screen shows them, are understood."""
    from regalia.cli.screens import ribauds as screen

    assert screen.complete("replace C3 Roi up", {}) == "replace 2 K up"
    assert screen.complete("reveal c1", {}) == "reveal 0"
    # a bare slot number after a verb counts from 1 as on the screen
    assert screen.complete("reveal 2", {}) == "reveal 1"
    assert screen.complete("replace 3 Roi up", {}) == "replace 2 K up"
    assert screen.complete("swap 1 4", {}) == "swap 0 3"
    assert screen.complete("look at 1 and 3", {}) == "peek 0 2"
    assert screen.complete("blah blah", {}) is None
    assert screen.refusal("reveal 0 is refused: seat 0 may: reveal 1") == \
        "Refused: Player 1 may: reveal C2"


def test_replay_seat_is_checked(tmp_path):
    save = tmp_path / "g.json"
    CliRunner().invoke(app, ["play", "regicide", "--players", "2", "--bots", "1,2", "--bot",
                             "heuristic", "--seed", "2", "--save", str(save)])
    bad = CliRunner().invoke(app, ["replay", str(save), "--seat", "3"])
    assert bad.exit_code == 2 and "--seat" in bad.stderr
    good = CliRunner().invoke(app, ["replay", str(save), "--seat", "2"])
    assert good.exit_code == 0 and "You (bot)" in good.output and "Bot 1 (heuristic)  " in good.output


# ---------------------------------------------------------------- wording

ASSASSIN_PHASE = {
    "game": "ribauds", "current": 0, "phase": "assassin",
    "court": ["K-", "A+", "Q-", "N-"], "hands": [["N", "K", "Q"], ["A", "A", "K"]],
    "deck": ["K", "N"], "discard": [], "winner": None, "conspiracy": None, "options": {}}


def _ribauds_match(position: dict) -> Match:
    from regalia.games.ribauds import RIBAUDS

    match = Match(RIBAUDS, {"players": 2}, 1)
    match.state = RIBAUDS.from_json(position)
    return match


def test_ribauds_menu_words_are_understood():
    """What the menu shows ("look at C1 and C2") can be typed as it is, and shorter."""
    for typed in ("look at C1 and C3", "Look at c1 and c3", "look at C1, C3", "peek 1 3"):
        match = _ribauds_match(ASSASSIN_PHASE)
        out = io.StringIO()
        TerminalTable(match, {1: make_bot("ribauds", "random")}, console=Console(file=out, width=100),
                      read=scripted([typed, "quit"])).run()
        assert match.actions[0] == "peek 0 2", (typed, out.getvalue())
        assert "Refused" not in out.getvalue()


def test_ribauds_refusals_show_slots_as_on_screen():
    """A refusal names C1-C4 and the moves as the menu writes them, never slots 0-3."""
    out = io.StringIO()
    match = _ribauds_match(ASSASSIN_PHASE)
    TerminalTable(match, {1: make_bot("ribauds", "random")}, console=Console(file=out, width=200),
                  read=scripted(["look at C2", "look at C1 and C1", "reveal C5", "quit"])).run()
    refusals = [ln for ln in out.getvalue().splitlines() if "Refused" in ln]
    assert len(refusals) == 3 and match.actions == []
    assert "C2 is face up" in refusals[0]
    assert "you may: look at C1 and C3, look at C1 and C4, look at C3 and C4" in refusals[0]
    assert "a slot is named twice" in refusals[1]
    assert "slots are C1 to C4" in refusals[2]
    for line in refusals:
        assert "slot 0" not in line and "peek" not in line and "0 to 3" not in line, line


def test_help_is_the_games_own():
    """`help` at a Ribauds prompt explains Ribauds moves, not Regicide's."""
    from regalia.games.ribauds import RIBAUDS

    out = io.StringIO()
    match = Match(RIBAUDS, {"players": 2}, 3)
    TerminalTable(match, {1: make_bot("ribauds", "random")}, console=Console(file=out, width=200),
                  read=scripted(["help", "quit"])).run()
    text = out.getvalue()
    assert "look at C1 and C2" in text and "replace C3 with your Roi face up" in text
    assert "play 5C" not in text and "yield" not in text
    out = io.StringIO()
    TerminalTable(Match(REGICIDE, {"players": 1}, 3), {}, console=Console(file=out, width=200),
                  read=scripted(["help", "quit"])).run()
    assert "play 5C 5D" in out.getvalue()


def test_help_sums_up_the_rules_of_the_decision_at_hand():
    """`help` (or `rules`) also says what the rules allow now, with the table's numbers:
    Regicide's Step 1 and Step 4 (rules 1.5, 1.8), Le Roy des Ribauds' actions and
    conspiracies (rules 2.3, 2.5)."""
    from regalia.cli.screens import regicide as screen

    m = Match(REGICIDE, {"players": 1}, 3)
    view = REGICIDE.view(m.state, 0)
    out = io.StringIO()
    TerminalTable(m, {}, console=Console(file=out, width=400),
                  read=scripted(["rules", "quit"])).run()
    left = view["health"] - view["damage"]
    assert "Step 1: play one card" in out.getvalue() and f"{left} more damage defeats it" in out.getvalue()
    assert "Jester alone" not in out.getvalue()  # solo: no Jester in hand to play
    rng = random.Random(2)
    s = m.state
    while s.phase != "suffer":  # a Step 4 of a random game
        legal = list(REGICIDE.legal_actions(s))
        s, _ = REGICIDE.apply(s, legal[0] if s.phase != "play" else legal[-1], rng)
    v = REGICIDE.view(s, s.current)
    text = screen.rules_now(v)
    assert text.startswith(f"Step 4: the enemy attacks for {v['attack_to_absorb']}")
    assert "K=20, Jester 0" in text and "minimal_discard" not in text
    from regalia.games.ribauds import RIBAUDS

    out = io.StringIO()
    TerminalTable(Match(RIBAUDS, {"players": 2}, 3), {1: make_bot("ribauds", "random")},
                  console=Console(file=out, width=400), read=scripted(["help", "quit"])).run()
    assert "(Coronation)" in out.getvalue() and "(Marriage)" in out.getvalue()


def _frames(text: str) -> list[list[str]]:
    """The frames (panels) printed in ``text``, as lists of lines."""
    frames, current = [], None
    for line in text.splitlines():
        if line.startswith("╭"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.startswith("╰"):
                frames.append(current)
                current = None
    return frames


def test_the_frame_keeps_its_width_and_log_lines_their_indent():
    """From turn to turn the frame has one width, and a log line too long for it wraps
    under its own indentation (both in the frame and below it)."""
    from regalia.games.ribauds import RIBAUDS

    for game, players, lines in ((REGICIDE, 1, ["1"] * 40), (RIBAUDS, 2, ["1"] * 40)):
        out = io.StringIO()
        bots = {1: make_bot("ribauds", "random")} if game is RIBAUDS else {}
        match = Match(game, {"players": players}, 11)
        TerminalTable(match, bots, console=Console(file=out, width=100),
                      read=scripted(lines + ["quit"]), bot_seed=1).run()
        frames = _frames(out.getvalue())
        assert len(frames) > 5
        widths = {len(line) for frame in frames for line in frame}
        assert len(widths) == 1, (game.name, widths)
        text = out.getvalue()
        wrapped = [b for a, b in zip(text.splitlines(), text.splitlines()[1:])
                   if a.startswith("│   ") and len(a.rstrip(" │")) > 70 and b.startswith("│ ")
                   and not b.startswith("│   ") and b.strip("│ ") and "Last moves" not in a]
        assert not [w for w in wrapped if w[2].islower() or w[2] in "0123456789"], wrapped


def test_long_log_lines_wrap_under_their_indent():
    from regalia.cli.screens import indented

    out = io.StringIO()
    Console(file=out, width=40).print(indented("word " * 30))
    lines = out.getvalue().splitlines()
    assert len(lines) > 2 and all(ln.startswith("  word") for ln in lines)


def test_one_card_is_not_1_cards():
    from regalia.cli.screens import regicide as rscreen
    from regalia.cli.screens import ribauds as bscreen
    from regalia.games.ribauds import RIBAUDS

    view = REGICIDE.view(REGICIDE.new_game({"players": 2}, random.Random(1)), 0)
    view["hand_sizes"] = [1, 2]
    out = io.StringIO()
    Console(file=out, width=120).print(rscreen.render(view))
    assert "Player 1 (you)  1 card " in out.getvalue() and "1 cards" not in out.getvalue()
    assert "2 cards" in out.getvalue()
    bview = RIBAUDS.view(_ribauds_match(ASSASSIN_PHASE).state, 0)
    bview["hand_sizes"] = [1, 3]
    out = io.StringIO()
    Console(file=out, width=120).print(bscreen.render(bview))
    assert "Player 1 (you): 1 card" in out.getvalue() and "1 cards" not in out.getvalue()


def test_terminal_bots_random_source_is_not_derived_from_the_game_seed():
    sources = {TerminalTable(Match(REGICIDE, {"players": 2}, 5), {1: None}, read=lambda _p: "quit")
               .bot_rng.random() for _ in range(3)}
    assert len(sources) == 3
    assert random.Random(6).random() not in sources


# ------------------------------------------------ a new player's report (slots, refusals, quit)

ACT_PHASE = {
    "game": "ribauds", "current": 0, "phase": "act",
    "court": ["K-", "Q-", "A+", "N-"], "hands": [["N", "Q", "A"], ["A", "A", "K"]],
    "deck": ["K", "N"], "discard": [], "winner": None, "conspiracy": None, "options": {}}


def _play_ribauds(position: dict, lines: list[str], save=None) -> tuple[Match, str]:
    out = io.StringIO()
    match = _ribauds_match(position)
    TerminalTable(match, {1: make_bot("ribauds", "random")}, console=Console(file=out, width=400),
                  read=scripted(lines + ["quit"]), bot_seed=1, save=save).run()
    return match, out.getvalue()


def test_ribauds_bare_slot_number_counts_from_1_like_the_screen():
    """`reveal 2` reveals C2, the card the screen and the menu call C2 (C3, the 0-based slot
    2, is face up: read so, it would be refused); a number that is no Court card (0, 5) is
    refused and changes nothing."""
    match, text = _play_ribauds(ACT_PHASE, ["reveal 2"])
    assert match.actions[0] == "reveal 1"
    assert "You reveal C2" in text
    match, text = _play_ribauds(ACT_PHASE, ["reveal 0", "swap 1 5"])
    assert match.actions == []
    refusals = [ln for ln in text.splitlines() if "Refused" in ln]
    assert len(refusals) == 2
    assert all("there is no Court card" in r and "C1 to C4" in r for r in refusals), refusals
    _, text = _play_ribauds(ACT_PHASE, ["help"])
    assert "'reveal 2' reveals C2" in text and "0 to 3" in text  # help says so


def test_ribauds_refusal_in_the_games_words_and_short():
    """A refused move is explained with the game's words (no phase names, card names as on
    the screen), and the 27 legal moves are shortened to their kinds and a few examples."""
    match, text = _play_ribauds(ACT_PHASE, ["swap C1 and C2", "replace C1 Roi up", "discard Q A"])
    assert match.actions == []
    refusals = [ln for ln in text.splitlines() if "Refused" in ln]
    assert len(refusals) == 3
    assert refusals[0].startswith("Refused: you can swap two Court cards only as the first step "
                                  "of a Chevalier's effect (rules 2.4); now it is your turn to act")
    assert refusals[1].startswith("Refused: you hold no Roi; your hand is Reine, Chevalier, "
                                  "Assassin (rules 2.3)")
    assert refusals[2].startswith("Refused: you can discard 2 cards only after drawing 2 with "
                                  "the Roi's option (b) (rules 2.4); now it is your turn to act")
    for line in refusals:
        assert "you may: reveal, replace (27 moves, all on the menu); e.g. reveal C1, " in line
        assert line.count("replace C") <= 6 and line.endswith(", ...")
        for internal in ("knight_swap", "phase", " K ", "(Roi)", "seat", "slot"):
            assert internal not in line, (internal, line)


def test_ribauds_discard_refusal_names_the_missing_card():
    """The Roi's discard of a card held once or not at all says so in the game's words."""
    position = {**ACT_PHASE, "phase": "king_discard", "court": ["K+", "Q-", "A+", "N-"],
                "hands": [["Q", "A", "K", "Q", "A"], ["A", "N", "K"]], "deck": []}
    match, text = _play_ribauds(position, ["discard K K", "discard N A"])
    refusals = [ln for ln in text.splitlines() if "Refused" in ln]
    assert len(refusals) == 2 and match.actions == []
    assert refusals[0].startswith("Refused: you hold only one Roi; your hand is Roi, Reine, "
                                  "Reine, Assassin, Assassin (rules 2.4)")
    assert refusals[1].startswith("Refused: you hold no Chevalier; your hand is Roi, Reine, "
                                  "Reine, Assassin, Assassin (rules 2.4)")


def test_free_text_is_not_understood_in_both_games():
    """Text that is no move says so and points to `help` and the menu, without echoing a
    verb that was never typed."""
    _, text = _play_ribauds(ACT_PHASE, ["blah blah"])
    assert "Not understood: 'blah blah'. Type a number from the menu (1 to 27)" in text
    assert "'help'" in text and "Refused" not in text
    out = io.StringIO()
    TerminalTable(Match(REGICIDE, {"players": 1}, 3), {}, console=Console(file=out, width=400),
                  read=scripted(["blah blah", "[bold]x", "quit"])).run()
    text = out.getvalue()
    assert "Not understood: 'blah blah'" in text and "Not understood: '[bold]x'" in text
    assert "play blah" not in text and "'help'" in text


def test_quit_without_save_tells_how_to_keep_a_game(tmp_path):
    _, text = _play_ribauds(ACT_PHASE, [])
    assert "Game left unfinished" in text and "--save FILE" in text
    assert "regalia play --load FILE" in text
    _, text = _play_ribauds(ACT_PHASE, [], save=tmp_path / "g.json")
    assert "--save FILE" not in text and "resume it with:\n  regalia play --load " in text


def test_regicide_header_shows_the_attack_left_after_the_shield():
    """After Spades the header gives the attack that will be suffered (the engine's
    effective attack, rules 1.8, 1.9) next to the printed one; without a shield, or against
    a Spade enemy whose immunity blocks it, the printed attack alone."""
    from regalia.cli.screens import regicide as screen

    def header(enemy: str, table: list[list[str]]) -> str:
        castle = [r + s for r in "JQK" for s in "CDHS" if r + s != enemy]
        state = REGICIDE.from_json({
            "game": "regicide", "players": 1, "current": 0, "phase": "play", "enemy": enemy,
            "damage": 0, "immunity_cancelled": False, "table": table, "castle": castle,
            "tavern": [], "discard": [], "hands": [["5H"]], "yielded": [False], "jesters": 2,
            "preferences": [None], "options": {}})
        out = io.StringIO()
        Console(file=out, width=120).print(screen.render(REGICIDE.view(state, 0)))
        return " ".join(out.getvalue().splitlines()[1:3])

    shielded = header("JH", [["8S"]])
    assert "attack 10 (2 after the shield)" in shielded and "shield 8" in shielded
    assert "immune to Hearts" in shielded, "the immunity still shown, on the next line"
    assert "attack 10 (0 after the shield)" in header("JH", [["7S"], ["9S"]])
    for enemy, table in (("JH", [["4C"]]), ("JS", [["8S"]])):
        line = header(enemy, table)
        assert "attack 10   health 20" in line and "after the shield" not in line


def test_regicide_cards_typed_as_the_screen_writes_them():
    """A card typed with its suit symbol (3♣, as the hand shows it) or named Jester is the
    card in notation, alone or after a verb; in a game of several players 'jester' alone is
    the Jester card (the refresh is solo)."""
    from regalia.cli.screens import regicide as screen

    play, suffer = {"phase": "play", "players": 1}, {"phase": "suffer", "players": 1}
    assert screen.complete("3♣", play) == "play 3C"
    assert screen.complete("4♦ 3♧", suffer) == "discard 4D 3C"
    assert screen.complete("play 10♥ 10♠", play) == "play 10H 10S"
    assert screen.complete("jester", play) == "jester"
    assert screen.complete("Jester", {"phase": "play", "players": 3}) == "play X"
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 1}, 5)
    card = REGICIDE.view(match.state, 0)["hand"][0]
    shown = screen.label(f"play {card}").split()[1]  # e.g. 10♦
    TerminalTable(match, {}, console=Console(file=out, width=100),
                  read=scripted([shown, "quit"])).run()
    assert match.actions == [f"play {card}"], out.getvalue()


def test_regicide_choose_counts_players_from_1_and_prefer_is_asked():
    """`choose 2` names Player 2 (seat 1), as the screen numbers players; a number that is no
    player, or no number, is refused saying which numbers there are; a typed `prefer` says
    that wishes are asked after a Jester."""
    from regalia.cli.screens import regicide as screen
    from regalia.core.errors import RegaliaError

    view = {"phase": "choose", "players": 2}
    assert screen.complete("choose 2", view) == "choose 1"
    assert screen.complete("choose player 1", view) == "choose 0"
    for typed, said in (("choose 3", "there is no Player 3: the players are 1 to 2"),
                        ("choose", "a player's number from 1 to 2"),
                        ("choose x", "a player's number from 1 to 2"),
                        ("prefer 1 yes", "asked of each player after a Jester")):
        try:
            screen.complete(typed, view)
        except RegaliaError as e:
            assert said in str(e), (typed, e)
        else:
            raise AssertionError(f"{typed!r} was not refused")


def test_a_negative_number_is_off_the_menu_and_bots_are_marked():
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 2}, 3)
    bots = {1: make_bot("regicide", "heuristic")}
    TerminalTable(match, bots, console=Console(file=out, width=120),
                  read=scripted(["-1", "quit"])).run()
    text = out.getvalue()
    assert "-1 is not on the menu: choose 1 to" in text and "Not understood" not in text
    assert "Bot (heuristic)  " in text and "You  " in text  # the table's seat rows


def test_the_enemy_line_wraps_between_its_facts():
    """With a shield and the immunity, the enemy's facts take two lines, cut between two
    facts (never "shield" on one line and its number on the next)."""
    from regalia.cli.screens import regicide as screen

    castle = [r + s for r in "JQK" for s in "CDHS" if r + s != "JD"]
    state = REGICIDE.from_json({
        "game": "regicide", "players": 2, "current": 0, "phase": "play", "enemy": "JD",
        "damage": 8, "immunity_cancelled": False, "table": [["8S"]], "castle": castle,
        "tavern": [], "discard": [], "hands": [["5H"], ["6H"]], "yielded": [False, False],
        "jesters": 0, "preferences": [None, None], "options": {}})
    out = io.StringIO()
    Console(file=out, width=120).print(screen.render(REGICIDE.view(state, 0)))
    lines = [ln.strip("│ ") for ln in out.getvalue().splitlines()[1:3]]
    assert lines[0].endswith("damage 8/20   shield 8"), lines
    assert lines[1] == "immune to Diamonds", lines


def test_replaying_a_position_file_says_what_it_is(tmp_path):
    pos = tmp_path / "pos.json"
    r = CliRunner().invoke(app, ["new", "regicide", "--seed", "3"])
    pos.write_text(r.output)
    r = CliRunner().invoke(app, ["replay", str(pos)])
    assert r.exit_code == 2
    assert "this is a position (one moment of a game), not a game record" in r.stderr
    assert "regalia play --save" in r.stderr


def test_the_step_4_menu_numbers_the_cheapest_discards_first_and_the_solo_jester_last():
    """Typing 1 out of habit in Step 4 (rules 1.8) discards, never spends a solo Jester."""
    from regalia.cli.screens import regicide as screen
    from regalia.games.regicide.rules import discard_cost

    checked = 0
    for seed in range(30):
        m = Match(REGICIDE, {"players": 1}, seed)
        for _ in range(40):
            st = m.state
            if REGICIDE.is_terminal(st):
                break
            view = REGICIDE.view(st, 0)
            legal = list(REGICIDE.legal_actions(st))
            texts = [REGICIDE.action_to_text(st, a) for a in legal]
            if view["phase"] == "suffer" and "jester" in texts:
                menu = screen.menu(view, legal)
                costs = [discard_cost(a) for a in menu[:-1]]
                assert REGICIDE.action_to_text(st, menu[-1]) == "jester"
                assert costs == sorted(costs) and all(c[0] >= 0 for c in costs)
                assert len(menu) == min(len(legal) - 1, screen.MENU_LIMIT) + 1
                checked += 1
            plays = [a for a, t in zip(legal, texts) if t.startswith("play")]
            m.play(random.Random(seed).choice(plays or legal))
    assert checked >= 5


def test_the_ribauds_result_line_tells_the_player_who_lost():
    from regalia.cli.screens import ribauds as screen

    line = {seat: screen.result({"winner": 1, "seat": seat, "conspiracy": "murder"}).plain
            for seat in (0, 1, None)}
    assert line[0].startswith("Player 2 wins by the") and line[0].endswith("you lose.")
    assert line[1].endswith("you win!")
    assert "you" not in line[None]  # a hot-seat screen for both


def test_the_game_opens_with_who_sits_where_and_who_starts(tmp_path):
    """A bot that starts moves before the player sees the table: a line first says the
    game, the seats and who is to act (a resumed game: after how many moves)."""
    r = CliRunner().invoke(app, ["play", "ribauds", "--bot", "random", "--seed", "2"],
                           input="quit\n")
    first = r.output.splitlines()[0]
    assert first == "Le Roy des Ribauds: You, Bot (random). Bot (random) starts."
    named = CliRunner().invoke(app, ["play", "ribauds", "--bot", "random", "--seed", "2",
                                     "--name", "Ann", "--save", str(tmp_path / "g.json")],
                             input="quit\n")
    assert named.output.splitlines()[0].startswith("Le Roy des Ribauds: Ann (you), Bot (random).")
    r = CliRunner().invoke(app, ["play", "--players", "2", "--bots", "2", "--bot",
                                 "montecarlo-medal", "--seed", "2"], input="quit\n")
    # (after the line that mentions the game above, kept since it was left unfinished)
    assert r.output.splitlines()[0].startswith("An unfinished Le Roy des Ribauds game is kept "
                                               "from before")
    assert "Bot (montecarlo-medal)" in r.output.splitlines()[2]  # as asked for
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 2}, 3)
    match.play(REGICIDE.legal_actions(match.state)[0])
    table = TerminalTable(match, {}, Console(file=out, width=100), scripted(["", "quit"]))
    table.run()
    assert out.getvalue().splitlines()[0] == ("Regicide: Player 1 (human), Player 2 (human). "
                                              "Resumed after 1 move; Player 2 is to act.")


def test_printed_commands_start_as_the_user_typed_the_program(monkeypatch):
    """A newcomer runs `.venv/bin/regalia` (not on the PATH): the commands the game prints
    to resume or replay it start the same way."""
    from regalia.cli.terminal import program

    monkeypatch.setattr("sys.argv", [".venv/bin/regalia", "play"])
    assert program() == ".venv/bin/regalia"
    out = io.StringIO()
    TerminalTable(Match(REGICIDE, {"players": 1}, 3), {}, Console(file=out, width=100),
                  scripted(["quit"])).run()
    assert ".venv/bin/regalia play regicide --save game.json" in " ".join(out.getvalue().split())
    monkeypatch.setattr("sys.argv", ["/usr/lib/python3/pytest"])
    assert program() == "regalia"


def test_a_game_left_without_save_is_kept_and_resumes(tmp_path, monkeypatch):
    """Quitting a game started without --save keeps it in the user's data directory
    ($XDG_DATA_HOME/regalia/unfinished) and says how to resume it; `play` mentions it the
    next time; resumed and played to the end, it is no longer kept."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    r = CliRunner().invoke(app, ["play", "regicide", "--seed", "11"], input="1\n1\nquit\n")
    assert r.exit_code == 0, r.output
    kept = list((tmp_path / "regalia" / "unfinished").glob("regicide-*.json"))
    assert len(kept) == 1, r.output
    text = " ".join(r.output.split())
    assert "Game left unfinished" in text and "--save FILE" not in text
    assert f"It is kept in {kept[0]}; resume it with: regalia play --load {kept[0]}" in text
    record = GameRecord.load(kept[0])
    assert len(record.actions) == 2 and record.seed == 11
    again = CliRunner().invoke(app, ["play", "ribauds", "--seed", "3"], input="quit\n")
    assert again.output.startswith("An unfinished Regicide game is kept from before; resume it "
                                   f"with:\n  regalia play --load {kept[0]}\n"), again.output
    ribauds = list(kept[0].parent.glob("ribauds-*.json"))
    assert len(ribauds) == 1  # the Ribauds game left too
    # Starting a game: the hint points to a kept game of that game first, then the others.
    third = CliRunner().invoke(app, ["play", "ribauds", "--seed", "4"], input="quit\n")
    assert third.output.startswith("An unfinished Le Roy des Ribauds game is kept from before; "
                                   f"resume it with:\n  regalia play --load {ribauds[0]}\n"
                                   "An unfinished Regicide game is kept too; resume it with:\n"
                                   f"  regalia play --load {kept[0]}\n"), third.output
    fourth = CliRunner().invoke(app, ["play", "regicide", "--seed", "4"], input="quit\n")
    assert fourth.output.startswith("An unfinished Regicide game is kept from before; resume it "
                                    f"with:\n  regalia play --load {kept[0]}\n"
                                    "An unfinished Le Roy des Ribauds game is kept too (2 of "
                                    "them kept)"), fourth.output
    for extra in kept[0].parent.glob("*.json"):
        if extra != kept[0]:
            extra.unlink()
    resumed = CliRunner().invoke(app, ["play", "--load", str(kept[0])], input="1\n" * 400)
    assert resumed.exit_code == 0, resumed.output
    assert "Resuming the Regicide game" in resumed.output and "after 2 moves" in resumed.output
    assert "Victory" in resumed.output or "Defeat" in resumed.output
    assert not kept[0].exists()  # over: nothing left to resume


def test_an_unfinished_game_is_kept_after_every_move(tmp_path, monkeypatch):
    """A game whose terminal closes (no 'quit' typed) is kept as of its last move."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    r = CliRunner().invoke(app, ["play", "ribauds", "--seed", "5"], input="1\n")  # then EOF
    assert r.exit_code == 0, r.output
    kept = list((tmp_path / "regalia" / "unfinished").glob("ribauds-*.json"))
    assert len(kept) == 1
    record = GameRecord.load(kept[0])
    assert record.actions and record.bots == {1: record.bots[1]}
    assert "play --load" in r.output


# ------------------------------------------------ seats named as at the tables in the browser

def test_a_solo_game_says_you():
    """The one person of a solo game is "You" in the log, the table and the prompt (no
    "Player 1 plays"), and the verbs agree ("You play", "you start")."""
    out = io.StringIO()
    prompts = []
    match = Match(REGICIDE, {"players": 1}, 11)
    lines = iter(["1", "1", "quit"])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(lines)

    TerminalTable(match, {}, console=Console(file=out, width=120), read=read).run()
    text = out.getvalue()
    assert "You play " in text and "Solo game: you start against" in text
    assert "Player 1" not in text.split("\n", 1)[1], "only the opening line numbers the seat"
    assert prompts[0] == "Your move: "


def test_a_game_against_bots_names_them():
    """A bot is "Bot (KIND)" in the opening line, while it thinks and in the log; two bots of
    one kind are numbered by their seats, as the browser does."""
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 2, "first_player": 1}, 3)
    TerminalTable(match, {1: make_bot("regicide", "heuristic")}, bot_seed=1,
                  console=Console(file=out, width=120), read=scripted(["quit"])).run()
    text = out.getvalue()
    assert text.splitlines()[0] == ("Regicide: You, Bot (heuristic). "
                                    "Bot (heuristic) starts.")
    assert "Bot (heuristic) thinks..." in text
    assert re.search(r"^  Bot \(heuristic\) (plays|yields)", text, re.M), text
    assert "Player 2" not in text
    out = io.StringIO()
    match = Match(REGICIDE, {"players": 3, "first_player": 0}, 3)
    bots = {1: make_bot("regicide", "heuristic"), 2: make_bot("regicide", "heuristic")}
    TerminalTable(match, bots, console=Console(file=out, width=120),
                  read=scripted(["quit"])).run()
    assert out.getvalue().splitlines()[0] == ("Regicide: You, Bot 2 (heuristic), "
                                              "Bot 3 (heuristic). You start.")


def test_hot_seat_names_survive_save_load_and_replay(tmp_path):
    """`--name Ann --name Bea` names the two human seats in the hand-over, the prompt and the
    log; the record keeps them, and `play --load` and `replay` name them so again (`replay
    --seat 2` says "You" for Bea)."""
    save = tmp_path / "g.json"
    r = CliRunner().invoke(app, ["play", "regicide", "--players", "2", "--name", "Ann",
                                 "--name", "Bea", "--seed", "8", "--option", "first_player=0",
                                 "--save", str(save)], input="\n1\nquit\n")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "Regicide: Ann (human), Bea (human). Ann starts."
    assert "Pass the keyboard to Ann." in r.output and "Ann, your move:" in r.output
    assert re.search(r"  Ann (plays|yields) ", r.output), r.output
    assert "Player 1" not in r.output and "Player 2" not in r.output
    record = json.loads(save.read_text())
    assert record["names"] == {"0": "Ann", "1": "Bea"}
    again = CliRunner().invoke(app, ["play", "--load", str(save)], input="\nquit\n")
    assert again.exit_code == 0, again.output
    assert "Regicide: Ann (human), Bea (human). Resumed after" in " ".join(again.output.split())
    assert GameRecord.load(save).names == {0: "Ann", 1: "Bea"}, "saved back with the names"
    shown = CliRunner().invoke(app, ["replay", str(save), "--all"])
    assert shown.exit_code == 0 and "Ann's hand:" in shown.output and "Bea's hand:" in shown.output
    assert re.search(r"^  Ann (plays|yields)", shown.output, re.M)
    as_bea = CliRunner().invoke(app, ["replay", str(save), "--all", "--seat", "2"])
    assert as_bea.exit_code == 0 and "New game for 2 players: Ann starts" in as_bea.output
    assert re.search(r"^│ You +\d+ cards", as_bea.output, re.M), as_bea.output
    assert "Bea" not in as_bea.output


def test_bad_names_are_refused():
    for args, said in ((["--name", "Ann", "--name", "ann"], "given twice"),
                       (["--name", "Player 2"], "a seat's label"),
                       (["--name", "you"], "a seat's label"),
                       (["--name", "   "], "1 to 24 characters"),
                       (["--name", "A", "--name", "B", "--name", "C"], "3 names for 2 human seats")):
        r = CliRunner().invoke(app, ["play", "regicide", "--players", "2", *args])
        assert r.exit_code == 2 and said in r.stderr, (args, r.stderr)


def test_old_records_without_names_load_as_before():
    record = GameRecord.from_json({"format": "regalia-record/1", "game": "regicide",
                                   "config": {"players": 1}, "seed": 3, "actions": []})
    assert record.names == {} and "names" not in record.to_json()
    named = GameRecord.from_json({**record.to_json(), "names": {"0": "Ann"}})
    assert named.names == {0: "Ann"} and named.to_json()["names"] == {"0": "Ann"}
    for bad in ({"0": 3}, ["Ann"], {"x": "Ann"}, {"0": " "}):
        try:
            GameRecord.from_json({**record.to_json(), "names": bad})
        except Exception as e:  # InvalidPosition
            assert "names:" in str(e)
        else:
            raise AssertionError(bad)


def test_refusals_and_the_choose_menu_name_the_seats():
    """A refusal says "you" for the one human ("you do not hold K♠; you may: ..."), and
    `choose N` still counts from 1, the menu and the refusals saying whose number it is."""
    from regalia.cli.names import SeatNames
    from regalia.cli.screens import regicide as screen
    from regalia.core.errors import RegaliaError

    out = io.StringIO()
    TerminalTable(Match(REGICIDE, {"players": 1}, 3), {}, read=scripted(["play KS KH", "quit"]),
                  console=Console(file=out, width=200, force_terminal=False)).run()
    refused = next(ln for ln in out.getvalue().splitlines() if "Refused" in ln)
    assert "Refused: you do not hold K♥ K♠; you may: play " in refused, refused
    assert "Player 1" not in refused
    _, text = _play_ribauds(ASSASSIN_PHASE, ["look at C2"])
    refused = next(ln for ln in text.splitlines() if "Refused" in ln)
    assert "; you may: look at C1 and C3" in refused and "Player 1" not in refused

    names = SeatNames(2, {1: "heuristic"}, you=0)
    assert screen.label("choose 1", names) == "choose 2 to go next: Bot (heuristic)"
    assert screen.label("choose 0", names) == "choose 1 to go next: you"
    assert screen.label("choose 1") == "choose Player 2 to go next"  # the default as before
    assert screen.complete("choose 2", {"phase": "choose", "players": 2}, names) == "choose 1"
    try:
        screen.complete("choose 3", {"phase": "choose", "players": 2}, names)
    except RegaliaError as e:
        assert str(e) == ("there is no Player 3: the players are 1 to 2; 1 is you, "
                          "2 is Bot (heuristic)")
    else:
        raise AssertionError("choose 3 was not refused")


def test_ribauds_concede_ends_the_game_and_the_bot_wins(tmp_path):
    """`concede` at a Ribauds prompt, once confirmed, ends the game: the bot wins, the record
    says who conceded and replays as such; a 'no' to the question changes nothing; in
    Regicide nobody concedes."""
    from regalia.core.records import CONCEDED, Ending
    from regalia.games.ribauds import RIBAUDS

    save = tmp_path / "game.json"
    out = io.StringIO()
    match = Match(RIBAUDS, {"players": 2}, 3)
    table = TerminalTable(match, {1: make_bot("ribauds", "random")},
                          console=Console(file=out, width=200), save=save, bot_seed=1,
                          read=scripted(["concede", "n", "concede", "y"]))
    table.run()
    text = out.getvalue()
    assert "Not conceded: the game goes on." in text
    assert "You conceded." in text and "Bot (random) wins: you conceded" in text
    assert "Game left unfinished" not in text and "replay it with" in text
    record = GameRecord.load(save)
    assert record.ending == Ending(CONCEDED, 0) and record.actions == match.actions
    assert not RIBAUDS.is_terminal(Match.from_record(RIBAUDS, record).state)
    shown = CliRunner().invoke(app, ["replay", str(save)])
    assert shown.exit_code == 0 and "Bot (random) wins: you conceded" in shown.output
    again = CliRunner().invoke(app, ["play", "--load", str(save)])
    assert again.exit_code == 2 and "this game is over" in again.stderr
    out = io.StringIO()
    solo = Match(REGICIDE, {"players": 1}, 3)
    TerminalTable(solo, {}, console=Console(file=out, width=200),
                  read=scripted(["concede", "quit"])).run()
    assert "Nobody concedes in this cooperative game" in out.getvalue()
    assert "Game left unfinished" in out.getvalue()


def test_the_enemy_line_fits_the_terminal_and_wraps_between_facts():
    """With two-digit damage the enemy's facts are longer than an 80-column frame holds:
    they wrap between two facts, never inside one ("immune to │ Spades"), at the width the
    terminal gives the frame."""
    from regalia.cli.screens import regicide as rscreen

    view = REGICIDE.view(REGICIDE.new_game({"players": 2}, random.Random(1)), 0)
    for extra in ({}, {"shield": 4, "attack_after_shield": view["attack"] - 4}):
        view.update({"damage": 15, "shield": 0, "attack_after_shield": view["attack"],
                     "immune": True, "enemy_suit": "S", **extra})
        for width in (60, 80, 84, 120):
            out = io.StringIO()
            Console(file=out, width=width).print(rscreen.render(view))
            lines = out.getvalue().splitlines()
            assert all(len(line) <= width for line in lines)
            inner = [line.strip("│ ") for line in lines]
            for fact in ("immune to Spades", f"damage 15/{view['health']}",
                         f"shield {view['shield']}"):
                assert any(fact in line for line in inner), (fact, width, out.getvalue())

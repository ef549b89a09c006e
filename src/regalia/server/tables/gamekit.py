"""What the server needs to know about each game beyond the Game protocol: lobby metadata
and the communication its rules allow. No rule of play lives here.

* ``games_info()``: names, player counts, rule options (for the lobby form), bots and
  their levels for people.
* ``options_problem(game, options)``: why a new table may not have these rule options by
  their names (``first_player``, or one the server does not offer); the engine checks values.
* Legal actions on the wire: ``legal_message(game, state)`` writes them out, except
  Regicide's Step 4 discards (up to 255 sets of a hand), sent as the hand and the total to
  reach; ``expand_discards`` (and the page's ``legal.js``) writes those out again: the one
  rule that a client repeats (rules 1.8, 3.R10), tested against the engine's list.
* Side actions: Regicide's ``prefer SEAT yes|no`` (rules 1.10) are taken by seats other
  than the one to act; ``side_texts(game, state, seat)`` lists those of ``seat``.
* Talk: Regicide has no free chat (rules 1.15): a seat may only send one of ``SAYINGS``,
  whose parameters the server computes from the **public** view (``view(state, None)``),
  never from the sender's hand. Le Roy des Ribauds allows free chat between its players.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from confusable_homoglyphs import confusables

from regalia.bots import bot_names, default_level, level_descriptions
from regalia.bots import default_bot as table_bot
from regalia.core.errors import RegaliaError
from regalia.core.game import Game
from regalia.core.records import CONCEDED, STOPPED, Ending, Match
from regalia.games import GAME_NAMES, TITLES, get_game
from regalia.games.regicide import actions as R_ACTIONS
from regalia.games.regicide import cards as R_CARDS
from regalia.games.regicide import rules as R_RULES
from regalia.games.regicide.state import SUFFER as R_SUFFER


# Lobby form of each game's rule options (rules pages, "Rule options"); the engine checks
# the values. ``first_player`` is left to the seed.
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "regicide": [
        {"key": "solo_yield", "type": "bool", "default": False, "players": [1]},
        {"key": "jester_choose_self", "type": "bool", "default": True, "players": [3, 4]},
        {"key": "minimal_discard", "type": "bool", "default": False},
    ],
    "ribauds": [
        {"key": "replaced_card", "type": "choice", "default": "hand",
         "choices": ["hand", "discard"]},
    ],
}


def options_problem(game: str, options: dict[str, Any]) -> str | None:
    """Why a new ``game`` table may not be created with the rule ``options`` (an object),
    judged by their names only, or ``None``: ``first_player`` is refused (the server draws
    who starts) and the other names must be among ``OPTIONS``, the ones the lobby offers
    (which the message lists). The engine then checks the values."""
    if "first_player" in options:
        return "options.first_player: the server draws who starts"
    names = sorted(o["key"] for o in OPTIONS.get(game, []))
    for key in options:
        if key not in names:
            return (f"options.{str(key)[:40]}: unknown option; the options are "
                    + (", ".join(names) or "none"))
    return None


# Regicide's public-information messages (rules 1.15): id -> English template. The
# parameters come from the public view only.
SAYINGS: dict[str, str] = {
    "hello": "Hello!",
    "hand_size": "I have {hand} card(s) in hand.",
    "tavern_size": "The Tavern has {tavern} card(s) left.",
    "discard_size": "The discard pile holds {discard} card(s).",
    "castle_size": "{castle} enemies are left in the Castle.",
    "enemy_left": "The enemy needs {left} more damage.",
    "thinking": "Let me think a moment.",
    "well_played": "Well played!",
    "thanks": "Thanks!",
    "good_game": "Good game!",
}

CHAT_MAX = 300
NAME_MAX = 24  # characters of a player's nickname


def games_info() -> list[dict[str, Any]]:
    """The lobby's view of every game: its names, player counts, rule options, talk, its
    ``bots`` by name with ``default_bot`` (the one a bot seat created without a name
    gets), and its ``levels`` for people (``regalia.bots.levels``: name and description,
    weakest first) with ``default_level``, the one the lobby's form offers first."""
    out = []
    for name in GAME_NAMES:
        try:
            g = get_game(name)
        except Exception:  # pragma: no cover - a game being written may fail to import
            continue
        bots = bot_names(name)
        out.append({
            "name": name,
            "title": TITLES.get(name, name),
            "min_players": g.min_players,
            "max_players": g.max_players,
            "bots": bots,
            "default_bot": default_bot(name),
            "levels": [{"name": n, "description": d}
                       for n, d in level_descriptions(name).items()],
            "default_level": default_level(name),
            "options": OPTIONS.get(name, []),
            "talk": g.talk,
            "sayings": sayings(g),
        })
    return out


def default_bot(game: str) -> str:
    """The bot that takes a bot seat created without a name, a seat a human hands over,
    and the lobby's first choice: ``regalia.bots.default_bot`` (the strongest by the
    README's measurements), or the first other bot when that one is not installed."""
    names = bot_names(game)
    best = table_bot(game)
    if best in names:
        return best
    strong = [n for n in names if n != "random"]
    return strong[0] if strong else "random"


def legal_message(game: Game, state: Any) -> tuple[list[str], dict[str, Any] | None]:
    """The legal actions of the seat to act as a ``state`` message sends them:
    ``(texts, discards)``.

    ``texts`` holds every legal action in notation (formats.md 1.3) except Regicide's Step 4
    discards. ``discards`` is ``None``, or in Regicide's Step 4 (rules 1.8, 3.R10) the
    discards in compact form ``{"from": [card, ...], "at_least": N, "minimal": bool}``:
    every non-empty set of the ``from`` cards (the hand, canonical order) whose total value
    is at least ``N`` is legal; with ``minimal`` (option ``minimal_discard``) only the sets
    in which every card is needed (the total less its smallest card is below ``N``).
    ``expand_discards`` turns it back into the texts.
    """
    legal = game.legal_actions(state)
    if game.name != "regicide" or state.phase != R_SUFFER:
        return [game.action_to_text(state, a) for a in list(legal)], None
    texts = [game.action_to_text(state, a) for a in legal if R_ACTIONS.kind(a) != R_ACTIONS.DISCARD]
    if len(legal) == len(texts):
        return texts, None
    hand = state.hands[state.current]
    return texts, {"from": R_CARDS.mask_texts(hand), "at_least": R_RULES.effective_attack(state),
                   "minimal": bool(state.options.minimal_discard)}


def expand_discards(discards: dict[str, Any] | None) -> list[str]:
    """The discard texts of the compact form of ``legal_message`` (``None``: none), each set
    once (two Jesters are the same ``X``), cards in the order of ``from``."""
    if not discards:
        return []
    cards, need, minimal = discards["from"], discards["at_least"], discards["minimal"]
    values = [R_CARDS.VALUE[R_CARDS.parse_card(c)] for c in cards]
    out: dict[str, None] = {}
    for m in range(1, 1 << len(cards)):
        chosen = [i for i in range(len(cards)) if m >> i & 1]
        total = sum(values[i] for i in chosen)
        if total >= need and not (minimal and total - min(values[i] for i in chosen) >= need):
            out["discard " + " ".join(cards[i] for i in chosen)] = None
    return list(out)


def legal_texts(msg: dict[str, Any]) -> list[str]:
    """Every legal action of a ``state`` message in notation (its ``legal`` and its
    ``discards`` written out), as a client reads them."""
    return list(msg["legal"]) + expand_discards(msg.get("discards"))


def side_texts(game: Game, state: Any, seat: int) -> list[str]:
    """Side actions ``seat`` may take now, as text (Regicide's ``prefer``; else none)."""
    side = getattr(game, "side_actions", None)
    if side is None:
        return []
    out = []
    for a in side(state):
        text = game.action_to_text(state, a)
        if side_owner(text) == seat:
            out.append(text)
    return out


def side_owner(text: str) -> int | None:
    """The seat a side action belongs to (``prefer SEAT ...``), or ``None``."""
    words = text.split()
    if len(words) == 3 and words[0] == "prefer" and words[1].isdigit():
        return int(words[1])
    return None


def wish_said(state: Any, seat: int) -> bool:
    """Whether ``seat`` shows a wish in Regicide's Jester window (rules 1.10); ``False`` in
    a game without wishes."""
    wishes = getattr(state, "preferences", None)
    return bool(wishes) and wishes[seat] is not None


def wish_text(game: str, seat: int, value: str) -> str | None:
    """The side action that sets ``seat``'s Jester-window wish, or ``None`` (no such thing
    in this game)."""
    if game != "regicide" or value not in ("yes", "no"):
        return None
    return f"prefer {seat} {value}"


def say(game: Game, state: Any, seat: int, message_id: str) -> dict[str, Any] | None:
    """The message ``seat`` says, with parameters from the public view; ``None`` when the
    id is not an allowed saying of this game."""
    if game.talk != "say" or message_id not in SAYINGS:
        return None
    public = game.view(state, None)
    params = {
        "hand": public["hand_sizes"][seat],
        "tavern": public["tavern"],
        "discard": public["discard"],
        # the Castle pile as the board shows it: the enemy being fought has left it
        "castle": public["castle"],
        "left": max(0, public["health"] - public["damage"]),
    }
    template = SAYINGS[message_id]
    used = {k: v for k, v in params.items() if "{" + k + "}" in template}
    return {"message_id": message_id, "params": used, "text": template.format(**used)}


def sayings(game: Game) -> list[str]:
    """The ids of the fixed messages a seat may send in ``game`` (none with free talk)."""
    return list(SAYINGS) if game.talk == "say" else []


def chat_allowed(game: str) -> bool:
    """``game`` (a name) allows free chat between its players (``Game.talk``)."""
    return get_game(game).talk == "chat"


def clean_chat(text: Any) -> str | None:
    """A chat line made safe: a string of valid Unicode, control and invisible formatting
    characters (``_invisible``) removed, trimmed, at most ``CHAT_MAX`` characters; ``None``
    when nothing visible is left or it is not text."""
    if not isinstance(text, str) or not _encodable(text):
        return None
    text = "".join(ch for ch in text if (ch >= " " or ch == "\t") and not _invisible(ch)).strip()
    if not _visible(text) or len(text) > CHAT_MAX:
        return None
    return text


NAME_RULE = (f"name: 1 to {NAME_MAX} characters of text, not a bot's or a seat's label "
             "(Bot..., Player N)")
"""What a nickname may be, in the refusals' words."""

# Labels the pages give to seats and bots (in the site's languages), which a person's name
# must not pass for: "Bot", "Bot (search)", "Bot 2 (...)", "Player 2", "Jogador 2", "Nobody".
_LABELS = re.compile(r"bot\b|(player|jogador|jugador|seat|assento|asiento)\s*\d+\b"
                     r"|(nobody|ningu[eé]m|nadie)$")


def clean_name(name: Any) -> str | None:
    """A nickname made safe: valid Unicode, control characters (C0, DEL and C1) made
    spaces, invisible formatting characters removed (``_invisible``), runs of spaces made
    one, trimmed, 1 to ``NAME_MAX`` characters with something visible, and not read as a
    bot's or a seat's label in any case or width (``_LABELS``: a person called "Bot
    (ismcts)" would pass for a bot in the lobby); ``None`` otherwise (``NAME_RULE`` says
    why). (The pages show it as text, never as HTML.)"""
    if not isinstance(name, str) or not _encodable(name):
        return None
    name = " ".join("".join(" " if unicodedata.category(ch) == "Cc" else ch
                            for ch in name if not _invisible(ch)).split())
    if not _visible(name) or len(name) > NAME_MAX:
        return None
    if _LABELS.match(unicodedata.normalize("NFKC", name).casefold()):
        return None
    return name


ACCOUNT_NAME_MIN, ACCOUNT_NAME_MAX = 3, 20
ACCOUNT_NAME_RULE = (f"name: {ACCOUNT_NAME_MIN} to {ACCOUNT_NAME_MAX} letters, digits, spaces, "
                     "'-', '_' or '.', starting with a letter or a digit, no letters of two "
                     "scripts that look alike (a Cyrillic 'а' among Latin letters); not a "
                     "bot's, a bot level's or a seat's label (Bot..., Player N, strong...)")
"""What an account's name may be, in the refusals' words."""

DELETED_PLAYER = "deleted player"
"""The name a deleted account's seats keep (their games stay, anonymised)."""

# The bots' levels as the pages name them (static/i18n, "botlevel.*", in the three
# languages), the bots' kinds and labels ("bot.*"), and the other labels of seats: an
# account's name must not read as one of them, whatever its case, accents, spaces,
# punctuation or digits written for letters ("Str0ng", "Médio", "IS-MCTS").
_RESERVED_WORDS = (
    "strongest", "strong", "medium", "weak", "máximo", "fuerte", "medio", "débil",
    "o mais forte", "forte", "médio", "fraco", "easy", "hard", "fácil", "difícil", "tutorial",
    "random", "simple", "heuristic", "tactical", "search", "medal",
    "aleatorio", "aleatório", "simples", "heurístico", "táctico", "tático", "busca",
    "búsqueda", "solver", "solucionador",  # the daily deal's solver, seated in its line
    "bot", "robot", "you", "nobody", "spectator", "player", "admin", "regalia",
    DELETED_PLAYER)
_LEET = str.maketrans("013457", "oleast")
_SKELETON_LABELS = re.compile(r"(bot|player|jogador|jugador|seat|assento|asiento)\d*$"
                             r"|.*(montecarlo|ismcts)")  # a search bot's label, in any words


def fold_name(name: str) -> str:
    """An account name's unique key: NFKC (full-width and compatibility forms made
    plain), then case folding ("ÅSA" and "åsa" are one name, and so are "Ａｎｎ" and
    "ann")."""
    return unicodedata.normalize("NFKC", name).casefold()


def _skeleton(name: str, leet: bool = True) -> str:
    """What a name reads as: folded, accents and every character but letters and digits
    dropped, and (``leet``) digits that pass for letters made those letters."""
    plain = unicodedata.normalize("NFKD", fold_name(name))
    kept = "".join(ch for ch in plain if ch.isalnum())
    return kept.translate(_LEET) if leet else kept


_RESERVED = frozenset(_skeleton(w) for w in _RESERVED_WORDS) | frozenset(
    _skeleton(b) for g in GAME_NAMES for b in (*bot_names(g), *level_descriptions(g)))


def clean_account_name(name: Any) -> str | None:
    """An account's name: a nickname (``clean_name``: the same cleaning, the same labels
    refused) that is also ``ACCOUNT_NAME_MIN`` to ``ACCOUNT_NAME_MAX`` characters of
    letters, digits, spaces, '-', '_' and '.' (a name reads the same in a link to its
    profile), starts with a letter or a digit, mixes no look-alike letters of two scripts
    (Unicode's confusables, UTS #39: "Аlice" with a Cyrillic А would pass for "Alice"),
    and does not read as a bot's kind, a bot level's name or a seat's label
    (``_RESERVED``); ``None`` otherwise (``ACCOUNT_NAME_RULE`` says why)."""
    name = clean_name(name)
    if name is None or not ACCOUNT_NAME_MIN <= len(name) <= ACCOUNT_NAME_MAX:
        return None
    if not name[0].isalnum() or not all(
            ch.isalnum() or ch in " -_." or unicodedata.category(ch)[0] == "M" for ch in name):
        return None
    if confusables.is_dangerous(name):
        return None
    keys = (_skeleton(name), _skeleton(name, leet=False))
    if any(k in _RESERVED or _SKELETON_LABELS.match(k) for k in keys):
        return None
    return name


def seat_results(game: str, config: dict[str, Any], seed: int, moves: list[str]) -> list[bool]:
    """Which seats won a finished game, worked out again from its record (config, seed and
    move log: design.md, "records"): ``[won by seat 0, ...]`` (Regicide: every seat or
    none; Le Roy des Ribauds: the winner). Raises ``RegaliaError`` for a record that the
    rules refuse."""
    from regalia.core.records import Match

    m = Match(get_game(game), config, seed)
    for action in moves:
        m.play(action)
    return [r > 0 for r in m.game.returns(m.state)]


def record_outcome(record: dict[str, Any]) -> dict[str, Any]:
    """The public result of a finished game (``outcome``, with its ``returns`` per seat)
    worked out again from its record: ``{"game", "config", "seed", "moves": [action, ...],
    "ending", "players"}`` (``storage.accounts.table_record``'s keys; ``ending``: the
    players' ``Ending`` or ``None``). Raises ``RegaliaError`` for a record the rules refuse
    or a game that is not over."""
    m = Match(get_game(record["game"]), record["config"], record["seed"])
    for action in record["moves"]:
        m.play(action)
    out = outcome(m.game, m.state, record.get("ending"), record.get("players"))
    if out is None:
        raise RegaliaError("the record's game is not over")
    return out


# Joiners that shape scripts and emoji (zero-width non-joiner, zero-width joiner): kept.
_JOINERS = frozenset("\u200c\u200d")


def _invisible(ch: str) -> bool:
    """An invisible formatting character (Unicode category Cf: direction overrides and
    isolates, zero-width spaces, the byte-order mark...), which could make a name look like
    another or blank; the two joiners excepted."""
    return unicodedata.category(ch) == "Cf" and ch not in _JOINERS


# Letters and symbols drawn as blank space (Hangul fillers, the Braille blank).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text: str) -> bool:
    """``text`` shows something: a character other than a space, a separator, a control or
    formatting character, a mark standing alone (combining accents, variation selectors) or
    a blank-looking letter (``_BLANKS``)."""
    return any(unicodedata.category(ch)[0] not in "CZM" and ch not in _BLANKS
               and not ch.isspace() for ch in text)


def _encodable(text: str) -> bool:
    """``text`` is valid Unicode (no lone surrogate, which JSON allows and UTF-8 does not)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def outcome(game: Game, state: Any, ending: Ending | None = None,
            players: int | None = None) -> dict[str, Any] | None:
    """A finished game's public result (the game's ``outcome`` when it has one), with its
    ``returns`` (per seat: 1 win, 0 loss). A game its ``players`` ended (``ending``, a table's
    event and no rule's) has ``{"ending": {"how", "seat"}, "returns"}``, and besides:
    conceded at two players, the ``winner`` (the other seat); stopped by agreement (a
    cooperative game), ``"result": "lost"`` and no ``medal``."""
    if ending is not None:
        n = players if players is not None else len(game.returns(state))
        out: dict[str, Any] = {"ending": ending.to_json(), "returns": ending.returns(n)}
        if ending.how == CONCEDED and n == 2:
            out["winner"] = 1 - ending.seat
        if ending.how == STOPPED:
            out.update(result="lost", medal=None)
        return out
    if not game.is_terminal(state):
        return None
    fn = getattr(game, "outcome", None)
    out = dict(fn(state)) if fn else {}
    out["returns"] = list(game.returns(state))
    return out

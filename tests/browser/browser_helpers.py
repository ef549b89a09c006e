"""Helpers of the browser tests: the server subprocess, and playing a table by clicking
what a person would click (cards, Court slots, the phase's buttons)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from serve_process import ServeProcess, free_port  # noqa: F401 - free_port for the tests

CHROMIUM = os.environ.get("REGALIA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


class Server(ServeProcess):
    """``regalia serve`` on a SQLite file ``db`` in a subprocess (bots act at once unless
    ``bot_delay``, and choose after a Jester without waiting for wishes; ``extra``: more
    ``regalia serve`` options), its log beside the file."""

    def __init__(self, db: Path, port: int, bot_delay: float = 0.0, extra: tuple[str, ...] = ()) -> None:
        self.db = Path(db)
        super().__init__(port, f"sqlite:///{self.db}", self.db.with_suffix(".log"),
                         ("--bot-delay", str(bot_delay), "--wish-wait", "0", *extra))


# ---------------------------------------------------------------- the page

def page_state(page) -> dict | None:
    """The page's last ``state`` message, its view completed with the whole log it holds."""
    return page.evaluate("""() => {
        const M = window.regalia && window.regalia.M;
        if (!M || !M.state) return null;
        return {...M.state, view: {...M.state.view, log: M.log}};
    }""")


def wait_ply(page, ply: int, timeout: float = 15000) -> None:
    page.wait_for_function("n => window.regalia && window.regalia.M.state && window.regalia.M.state.ply >= n",
                           arg=ply, timeout=timeout)


def wait_state(page, timeout: float = 15000) -> dict:
    page.wait_for_function("() => window.regalia && window.regalia.M.state", timeout=timeout)
    return page_state(page)


def regicide_choice(view: dict, legal: list[str], rng: random.Random) -> str:
    """The heuristic bot's choice, from what the page shows (its view and legal texts)."""
    from regalia.bots import make_bot
    from regalia.bots.regicide.heuristic import hand_mask
    from regalia.games.regicide import actions as A

    mask = hand_mask(view)
    codes = {A.from_text(t, lambda _s: mask): t for t in legal}
    code = make_bot("regicide", "heuristic").act(view, list(codes), rng)
    return codes[code]


def click_regicide(page, action: str) -> None:
    """Click the cards and the button of ``action`` as a person would."""
    words = action.split()
    verb, args = words[0], words[1:]
    if verb in ("play", "discard"):
        hand = page_state(page)["view"]["hand"]
        used: set[int] = set()
        for card in args:
            i = next(i for i, c in enumerate(hand) if c == card and i not in used)
            used.add(i)
            page.locator(".hand .card.in-hand").nth(i).click()
        button = page.locator("#act-play" if verb == "play" else "#act-discard")
    elif verb == "yield":
        button = page.locator("#act-yield")
    elif verb == "jester":
        button = page.locator("#act-jester")
    elif verb == "choose":
        button = page.locator(f"#act-choose-{args[0]}")
    else:
        raise ValueError(action)
    assert button.is_enabled(), f"{action}: the button is not enabled"
    if verb != "jester":
        button.click()
        return
    accept = lambda dialog: dialog.accept()  # noqa: E731 - the refresh is asked first
    page.on("dialog", accept)
    try:
        button.click()
    finally:
        page.remove_listener("dialog", accept)


def click_ribauds(page, action: str) -> None:
    words = action.split()
    verb, args = words[0], words[1:]
    st = page_state(page)
    phase = st["view"]["phase"]

    def slot(i):
        page.locator(f'.court-slot[data-slot="{i}"] .card').click()

    def hand_card(letter, used):
        hand = page_state(page)["view"]["hand"]
        i = next(i for i, c in enumerate(hand) if c == letter and i not in used)
        used.add(i)
        page.locator(".hand-zone .hand .card.in-hand").nth(i).click()

    if verb == "reveal":
        slot(args[0])
        button = "#act-king-reveal" if phase == "king" else "#act-reveal"
    elif verb == "replace":
        slot(args[0])
        hand_card(args[1], set())
        button = "#act-replace-up" if args[2] == "up" else "#act-replace-down"
    elif verb == "swap":
        slot(args[0])
        slot(args[1])
        button = "#act-swap"
    elif verb == "flip":
        slot(args[0])
        button = "#act-flip"
    elif verb == "draw":
        button = "#act-draw"
    elif verb == "discard":
        used: set[int] = set()
        hand_card(args[0], used)
        hand_card(args[1], used)
        button = "#act-discard"
    elif verb == "peek":
        for s in args:
            slot(s)
        button = "#act-peek"
    else:
        raise ValueError(action)
    b = page.locator(button)
    assert b.is_enabled(), f"{action}: {button} is not enabled"
    b.click()


CARD_TOKEN = __import__("re").compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS])(?![A-Za-z0-9])")


def card_tokens(text: str) -> set[str]:
    return set(CARD_TOKEN.findall(text))


# ---------------------------------------------------------------- controls in view

CONTROLS_IN_VIEW = """async () => {
    // The hand, the phase's buttons and (Le Roy des Ribauds) the Court cards to select:
    // each inside the viewport and on top at a point of it (near its top-left corner, which
    // stays visible when cards overlap), without scrolling; measured once the cards that
    // moved in have landed (an entering card starts 22 px lower).
    // (an animation cancelled by a new render rejects its promise: its card is gone)
    for (let i = 0; i < 5 && document.getAnimations().length; i++) {
        await Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)));
    }
    const W = window.innerWidth, H = window.innerHeight;
    const items = [...document.querySelectorAll(
        ".dock .hand .card.in-hand, .dock .actions button, .court .card.selectable")];
    const bad = [];
    for (const e of items) {
        const r = e.getBoundingClientRect();
        const x = r.left + Math.min(10, r.width / 2), y = r.top + Math.min(14, r.height / 2);
        const hit = document.elementFromPoint(x, y);
        const inside = r.top >= 0 && r.left >= 0 && r.bottom <= H + 0.5 && r.right <= W + 0.5;
        if (!inside || !hit || !(hit === e || e.contains(hit))) {
            bad.push((e.id || e.className) + " at " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(","));
        }
    }
    // Regicide's row of the cards played against the enemy: all of it in view, its corners
    // not covered (by the dock)
    const row = document.querySelector(".played");
    let played = null;
    if (row) {
        const r = row.getBoundingClientRect();
        played = r.top >= 0 && r.bottom <= H + 0.5 && [[r.left + 4, r.top + 4], [r.right - 4, r.bottom - 4]]
            .every(([x, y]) => row.contains(document.elementFromPoint(x, y)));
    }
    return {scrollY: window.scrollY, cards: document.querySelectorAll(".dock .hand .card.in-hand").length,
            buttons: [...document.querySelectorAll(".dock .actions button")].map(b => b.id), bad, played,
            wide: document.documentElement.scrollWidth > W};
}"""


def controls_in_view(page) -> dict:
    """Where the hand and the buttons are: ``{"cards", "buttons" (ids), "bad" (those out of
    view or covered), "scrollY", "played", "wide"}`` (``wide``: the page is wider than the
    screen; ``played``: whether Regicide's row of the cards played against the enemy is all
    in view and not covered, None on a Ribauds page)."""
    return page.evaluate(CONTROLS_IN_VIEW)


def state_message(game, st, seat: int, table_id: str, ply: int) -> dict:
    """The ``state`` message the server would send ``seat`` in ``st`` (as in
    ``Table.state_message``), to show a position of the engine on a page."""
    from regalia.server.tables import gamekit

    view = dict(game.view(st, seat))
    log = view.pop("log", []) or []
    current = game.current_seat(st)
    finished = game.is_terminal(st)
    legal, discards = (gamekit.legal_message(game, st) if current == seat and not finished
                       else ([], None))
    return {"type": "state", "table": table_id, "game": game.name, "ply": ply, "seat": seat,
            "current": current, "finished": finished, "outcome": gamekit.outcome(game, st),
            "view": view, "legal": legal, "discards": discards, "side": [] if finished else gamekit.side_texts(game, st, seat),
            "log_start": 0, "log": log}


def open_seat(chromium, server, table: dict, seat: int = 0, **options):
    """Seat ``seat``'s page of ``table`` (as ``server.create`` returns it) in a new browser
    context, 1280x720 in English unless ``options`` say otherwise, once its first state has
    arrived; close it with ``page.context.close()``."""
    ctx = chromium.new_context(**({"viewport": {"width": 1280, "height": 720}, "locale": "en-US"} | options))
    page = ctx.new_page()
    page.goto(server.url + table["seats"][seat]["link"])
    wait_state(page)
    return page


def show_state(page, msg: dict) -> None:
    """Hand ``msg`` to the page as if the server had sent it (the seats as the page knows)."""
    page.evaluate("""msg => {
        const R = window.regalia;
        R.socket.onMessage({...msg, seats: R.M.state.seats});
    }""", msg)

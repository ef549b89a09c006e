"""What one Regicide seat knows, and full positions sampled from it (determinization).

``Knowledge.from_view(view)`` reads a seat's view (rules 1.15: its own hand, the public
table, enemy, pile sizes, hand sizes and the log with that seat's private draws) and works
out where every card can be:

* the **Tavern** is tracked slot by slot, bottom to top. A slot is a known card (an
  exact-kill royal, rules 1.7) or an unknown card of a *segment*: segment 0 is the Tavern as
  dealt (cards the seat has never seen), segment ``k`` is the ``k``-th Hearts heal (rules 1.6:
  a random subset of the discard pile at that moment, put at the bottom);
* the **discard pile**: each card that went to it face up opens an *episode*; it stays there
  until a heal takes it, and the seat sees it again only when it draws it or a partner plays
  or discards it;
* each **partner's hand**: cards publicly known to be there (a known royal it drew) and
  unknown cards, each labelled with the segment it came from.

``sample(rng)`` draws one full ``State`` consistent with all of it: heals are re-drawn in
order, each a uniform subset of the sampled discard pile at that moment that contains the
cards later seen coming out of that heal and none of the cards seen staying behind; then
every segment's cards are dealt at random to its Tavern slots and partner-hand slots; the
Castle keeps its public rank order with the suits shuffled. For solo play this is the exact
posterior; in 2-4 players the assignment of a partner's replayed card to one heal (the
earliest it can have come from) is a simplification. The Jesters (one at 3 players, two alike
at 4) are tracked by count: where the log cannot say which Jester a partner showed, each
hypothesis is tried in turn until one fits the whole view (``from_view``). Partners' stated
Jester-window wishes (rules 1.10) condition their hands when ``wish_rule`` is given: plain
draws, then card swaps toward matching hands, never a rejected sample (``_wished_hands``).

Only the view is read: two states that differ in cards hidden from the seat give the same
view, hence the same samples for the same ``rng``.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from regalia.games.regicide.cards import (
    JACK,
    KING,
    QUEEN,
    RANK,
    SPADES,
    SUIT,
    VALUE,
    parse_card,
)
from regalia.games.regicide.state import JESTERS_IN_TAVERN, MAX_HAND, Options, State

MAX_READINGS = 64  # readings of one log, one per hypothesis on the Jesters' identities
WISH_SWAPS = 400  # card swaps that look for partners' hands matching their stated wishes


class _Episode:
    """A card's stay in the discard pile: from ``t_in`` until seen again (``seg``: the heal
    that took it, when known)."""

    __slots__ = ("card", "t_in", "closed", "seg")

    def __init__(self, card: int, t_in: int) -> None:
        self.card = card
        self.t_in = t_in
        self.closed = False
        self.seg: int | None = None


class Knowledge:
    """A seat's knowledge of a Regicide game (see the module doc); build with ``from_view``."""

    def __init__(self) -> None:
        self.seat = 0
        self.players = 1
        self.view: dict[str, Any] = {}
        self.hand = 0
        self.tavern: list[tuple[str, int]] = []  # bottom first: ("k", card) | ("s", segment)
        self.heals: list[tuple[int, int]] = []  # (time, count); segment k is heals[k - 1]
        self.episodes: list[_Episode] = []
        self.open_ep: dict[int, _Episode] = {}
        self.partner_known: list[set[int]] = []
        self.partner_slots: list[list[int]] = []
        self.seen: set[int] = set()
        self.my_draws: dict[int, set[int]] = {}  # segment -> cards the seat drew from it
        self.partner_from: dict[int, set[int]] = {}  # segment -> partner-replayed cards
        self.shown: dict[int, list[int]] = {}  # log index -> card ids of a play or discard
        self.consistent = True
        self.problem = 0
        self.simple_samples = 0  # samples that fell back on ``_sample_simple``
        self.unmet_wishes = 0  # partners' wishes no hand of theirs could match (humans')
        self._choices: list[int] = []
        self._branch: list[tuple[int, int]] = []  # (hypothesis taken, hypotheses) per choice
        self._jester_ids: list[int] = []

    # ------------------------------------------------------------------ reading the view

    def _bad(self, where: int) -> None:
        """The log could not be followed exactly (``where``: the first failed check)."""
        if self.consistent:
            self.problem = where
        self.consistent = False

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> "Knowledge":
        """The knowledge of ``view``'s seat (a view dict of ``REGICIDE.view``).

        The two Jesters of a 4-player game look alike (and in 3 players the one Jester may
        come back from a heal unnoticed), so when a partner shows a Jester the log may not
        say which one it was: the one never seen, or one that lay in the discard pile and
        came back through a heal. The log is then read once per hypothesis, depth first in
        the order of ``_choose``, and the first reading consistent with the whole view is
        kept (at most ``MAX_READINGS`` readings; ``consistent`` is False when none fits).
        """
        first = None
        choices: list[int] = []
        for _ in range(MAX_READINGS):
            k = cls()
            k._choices = choices
            k._read(view)
            if k.consistent:
                return k
            first = first or k
            branch = k._branch
            while branch and branch[-1][0] + 1 >= branch[-1][1]:
                branch = branch[:-1]
            if not branch:
                break
            choices = [i for i, _ in branch[:-1]] + [branch[-1][0] + 1]
        return first

    def _choose(self, options: list[int]) -> int:
        """One of several hypotheses the log leaves open (see ``from_view``)."""
        if len(options) == 1:
            return options[0]
        at = len(self._branch)
        i = self._choices[at] if at < len(self._choices) else 0
        self._branch.append((i, len(options)))
        return options[i]

    def _unseen_jesters(self) -> list[int]:
        """Ids of the Jesters of this player count the seat has never seen."""
        return [j for j in self._jester_ids if j not in self.seen]

    def _jester_id(self) -> int:
        """An id for a Jester that appears from a place the seat could not see (or, with no
        log to follow, one not yet placed)."""
        unseen = self._unseen_jesters()
        if unseen:
            return unseen[0]
        placed = {c for c in self._table + self._mine if c >= 52} | set(self.open_ep)
        free = [j for j in self._jester_ids if j not in placed]
        return free[0] if free else 52

    def _heal_slot(self, ep: _Episode, t: int, slots: list[int]) -> int | None:
        """The earliest heal among a partner's ``slots`` that can have taken the card of
        ``ep`` (a heal after it went to the pile, before time ``t``); ``None`` if none."""
        for k in range(1, len(self.heals) + 1):
            if ep.t_in < self.heals[k - 1][0] < t and k in slots:
                return k
        return None

    def _read(self, view: dict[str, Any]) -> None:
        self.view = view
        seat = self.seat = view["seat"]
        players = self.players = view["players"]
        max_hand = MAX_HAND[players]
        self._jester_ids = [52, 53][:JESTERS_IN_TAVERN[players]]
        self._table: list[int] = []
        self._mine: list[int] = []
        sizes = [max_hand] * players
        self.partner_known = [set() for _ in range(players)]
        self.partner_slots = [[0] * max_hand if q != seat else [] for q in range(players)]
        n_tavern = 40 + JESTERS_IN_TAVERN[players] - players * max_hand
        self.tavern = [("s", 0)] * n_tavern
        mine = self._mine  # cards the seat holds as far as the log says (ids)
        table = self._table
        last_player = None
        for t, e in enumerate(view["log"]):
            kind = e["kind"]
            who = e.get("seat")
            if kind in ("play", "jester"):
                last_player = who
                cards = [self._leave_hand(who, x, t, mine) for x in e["cards"]]
                sizes[who] -= len(cards)
                table.extend(cards)
                self.shown[t] = cards
            elif kind == "discard":
                cards = [self._leave_hand(who, x, t, mine) for x in e["cards"]]
                sizes[who] -= len(cards)
                self.shown[t] = cards
                for c in cards:
                    self._to_discard(c, t)
            elif kind == "defeat":
                enemy = parse_card(e["enemy"])
                self.seen.add(enemy)
                if e["exact"]:
                    self.tavern.append(("k", enemy))
                else:
                    self._to_discard(enemy, t)
                for c in table:
                    self._to_discard(c, t)
                table.clear()
            elif kind in ("enemy", "setup"):
                if e.get("enemy"):
                    self.seen.add(parse_card(e["enemy"]))
            elif kind == "heal":
                n = e["count"]
                self.heals.append((t, n))
                self.tavern[0:0] = [("s", len(self.heals))] * n
            elif kind == "refresh":
                for x in e.get("discarded", []):
                    c = self._leave_hand(who, x, t, mine)
                    self._to_discard(c, t)
                sizes[who] = 0
                self._draws(e, [who] * _count(e, who), t, sizes, mine)
            elif kind == "draw":
                order = _draw_order(e, last_player, sizes, players, max_hand)
                if order is None:
                    self._bad(1)
                    order = [int(q) for q, n in e["counts"].items() for _ in range(n)]
                self._draws(e, order, t, sizes, mine)
        # The seat's hand is given by the view; its Jesters keep the ids the log gave them.
        self.hand = 0
        own_j = [c for c in mine if c >= 52]
        for x in view.get("hand", []):
            c = parse_card(x)
            if c == 52:
                c = own_j.pop(0) if own_j else self._jester_id()
                self._mine.append(c)
            self.hand |= 1 << c
            self.seen.add(c)
        if sizes != list(view["hand_sizes"]):
            self._bad(2)
        for q in range(players):
            if q != seat and len(self.partner_slots[q]) + len(self.partner_known[q]) \
                    != view["hand_sizes"][q]:
                self._bad(3)
        if view.get("enemy"):
            self.seen.add(parse_card(view["enemy"]))
        for x in view.get("tavern_top", []):
            self.seen.add(parse_card(x))
        self._royals = {r: [c for c in range(52) if RANK[c] == r and c not in self.seen]
                        for r in (JACK, QUEEN, KING)}
        if len(self.tavern) != view["tavern"]:
            self._bad(4)
        # A log that does not reach back to the deal (a position read from JSON) leaves
        # cards on the table, or defeated royals, unaccounted for.
        if any(c < 52 and c not in self.seen
               for play in view["table"] for c in map(parse_card, play)):
            self._bad(16)
        if sum(1 for c in self.seen if c < 52 and RANK[c] >= JACK) \
                != 12 - sum(view["castle_ranks"].values()):
            self._bad(17)
        if self.consistent and not self._heals_fit():
            self._bad(15)

    def _heals_fit(self) -> bool:
        """Whether the heals can be re-drawn as ``_sample_once`` does: each heal finds in
        the pile the cards known to come out of it, and enough others not known to stay
        behind; the pile ends with its public size; each heal's cards not seen since fill
        exactly the Tavern and partner slots labelled with it, and the cards never seen those
        of the Tavern as dealt. (A wrong guess about which
        Jester was which shows here.) The outcome does not depend on the random choices."""
        timeline, _, gone, never_seen = self._prepare()
        pile: list[int] = []
        for what, x, n, must_set, bar in timeline:
            if what == 0:
                pile.append(x)
                continue
            if not must_set <= set(pile):
                return False
            free = [c for c in pile if c not in must_set and c not in bar]
            if n - len(must_set) > len(free) or n < len(must_set):
                return False
            took = must_set | set(free[:n - len(must_set)])
            pile = [c for c in pile if c not in took]
        if len(pile) != self.view["discard"] or len(pile) != len(set(pile)):
            return False
        slots: dict[int, int] = {}
        for kind, x in self.tavern:
            if kind == "s":
                slots[x] = slots.get(x, 0) + 1
        for q in range(self.players):
            for seg in self.partner_slots[q]:
                slots[seg] = slots.get(seg, 0) + 1
        return slots.get(0, 0) == len(never_seen) and all(
            slots.get(k, 0) == n - len(gone[k]) for k, (_, n) in enumerate(self.heals, start=1))

    def _leave_hand(self, who: int, text: str, t: int, mine: list[int]) -> int:
        """A card leaves seat ``who``'s hand, face up, at time ``t``; returns its id."""
        c = parse_card(text)
        if who == self.seat:
            if c == 52:
                js = [j for j in mine if j >= 52]
                c = js[0] if js else self._jester_id()
            if c in mine:
                mine.remove(c)
            self.seen.add(c)
            return c
        slots = self.partner_slots[who]
        if c == 52:
            c = self._partner_jester(who, t, slots)
        if c in self.partner_known[who]:
            self.partner_known[who].discard(c)
        elif c in self.open_ep:
            ep = self.open_ep.pop(c)
            ep.closed = True
            k = self._heal_slot(ep, t, slots)
            if k is not None:
                ep.seg = k  # the earliest: later heals stay free for later cards
                slots.remove(k)
                self.partner_from.setdefault(k, set()).add(c)
            else:
                self._bad(5)
                if slots:
                    slots.pop()
        elif c not in self.seen:
            if 0 in slots:
                slots.remove(0)
            else:
                self._bad(6)
                if slots:
                    slots.pop()
        else:
            self._bad(7)
            if slots:
                slots.pop()
        self.seen.add(c)
        return c

    def _partner_jester(self, who: int, t: int, slots: list[int]) -> int:
        """The id of a Jester partner ``who`` shows at time ``t``: the one never seen (if
        it holds a card never seen), or one from the discard pile that a heal took and it
        drew (the latest to reach the pile first: the earlier one stays the more likely to
        be taken by a later heal); a hypothesis of ``_choose`` when several fit."""
        known = [j for j in self.partner_known[who] if j >= 52]
        if known:
            return known[0]
        options = []
        unseen = self._unseen_jesters()
        if unseen and 0 in slots:
            options.append(unseen[0])
        piled = [ep for j, ep in self.open_ep.items()
                 if j >= 52 and self._heal_slot(ep, t, slots) is not None]
        options += [ep.card for ep in sorted(piled, key=lambda ep: -ep.t_in)]
        if not options:
            self._bad(12)
            return unseen[0] if unseen else self._jester_id()
        return self._choose(options)

    def _drawn_jester(self, seg: int) -> int:
        """The id of a Jester the seat draws from Tavern segment ``seg`` (see
        ``_partner_jester``)."""
        if seg == 0:
            unseen = self._unseen_jesters()
            if not unseen:
                self._bad(13)
                return self._jester_id()
            return unseen[0]
        th = self.heals[seg - 1][0]
        piled = [ep for j, ep in self.open_ep.items() if j >= 52 and ep.t_in < th]
        if not piled:
            self._bad(14)
            return self._jester_id()
        return self._choose([ep.card for ep in sorted(piled, key=lambda ep: -ep.t_in)])

    def _to_discard(self, c: int, t: int) -> None:
        ep = _Episode(c, t)
        self.episodes.append(ep)
        self.open_ep[c] = ep
        self.seen.add(c)

    def _draws(self, e: dict, order: list[int], t: int, sizes: list[int],
               mine: list[int]) -> None:
        """Seats in ``order`` draw the top Tavern cards one by one."""
        own = list(e.get("cards", []))
        for q in order:
            if not self.tavern:
                self._bad(8)
                break
            kind, x = self.tavern.pop()
            sizes[q] += 1
            if q == self.seat:
                c = parse_card(own.pop(0)) if own else -1
                if c == 52:
                    c = x if kind == "k" else self._drawn_jester(x)
                if c < 0:
                    self._bad(9)
                    continue
                mine.append(c)
                if kind == "s" and x > 0:
                    ep = self.open_ep.pop(c, None)
                    if ep is None:
                        self._bad(10)
                    else:
                        ep.closed = True
                        ep.seg = x
                    self.my_draws.setdefault(x, set()).add(c)
                elif kind == "s" and c in self.seen:
                    self._bad(11)
                self.seen.add(c)
            elif kind == "k":
                self.partner_known[q].add(x)
            else:
                self.partner_slots[q].append(x)

    # ------------------------------------------------------------------ sampling

    def sample(self, rng: random.Random, wish_rule: Callable | None = None) -> State:
        """One full position consistent with the seat's knowledge (see the module doc).

        ``wish_rule(hand_mask, view) -> "yes" | "no"``: when given, each partner's stated
        Jester-window wish conditions its hand (``_wished_hands``).
        """
        discard, hands, tavern, castle = self._sample_parts(rng, wish_rule)
        s = self._base_state()
        s.discard, s.hands, s.tavern, s.castle = discard, hands, tavern, castle
        return s

    def sample_array(self, rng: random.Random, wishes: bool = False):
        """One sampled position as a fast-path array (``regalia.fast.regicide``):
        ``sample_arrays(rng, 1, wishes)[0]``."""
        return self.sample_arrays(rng, 1, wishes)[0]

    def sample_arrays(self, rng: random.Random, n: int, wishes: bool = False):
        """``n`` sampled positions, an ``(n, SIZE)`` int64 array of fast-path positions
        (``regalia.fast.regicide``), each drawn as ``sample`` draws (see the module doc).
        ``wishes``: the partners' stated Jester-window wishes (phase choose) condition
        their hands under the public wish rule (rules 1.10; ``regalia.bots.regicide.wishes``).

        Drawn in compiled code (``sampler``, each row from its own seed of ``rng``) unless
        the log could not be followed exactly: those rows are drawn here
        (``_sample_parts``), as is any row the compiled draw could not complete. Wishes no
        hand could match are counted in ``unmet_wishes``.
        """
        import numpy as np

        from regalia.bots.regicide import sampler
        from regalia.bots.regicide.wishes import wish_rule
        from regalia.fast import regicide as F

        self.template()
        out = np.empty((n, F.SIZE), np.int64)
        if self._stated is None:
            self._stated = np.array(
                [{"yes": 1, "no": -1}.get(w, 0) if q != self.seat else 0
                 for q, w in enumerate(self.view.get("preferences") or [])] + [0] * 4,
                np.int64)[:4]
        stated = self._stated if wishes else np.zeros(4, np.int64)
        done = np.zeros(n, bool)
        if self.consistent:
            if self._plan is None:
                self._plan = sampler.plan_of(self, self._template)
            seeds = np.array([rng.getrandbits(64) | 1 for _ in range(n)], np.uint64)
            done, unmet = sampler.sample_rows(self._plan, out, seeds, stated)
            self.unmet_wishes += unmet
        for i in np.flatnonzero(~done):
            out[i] = self._array_of(self._sample_parts(rng, wish_rule if wishes else None))
        return out

    def template(self) -> Any:
        """The fast-path position (``regalia.fast.regicide``, a ``(SIZE,)`` int64 array) of
        every public field of the view, the piles and hands left empty."""
        if self._template is None:
            from regalia.fast import regicide as F

            self._template = F.encode(self._base_state_with([], [0] * self.players, [], []))
        return self._template

    def _array_of(self, parts) -> Any:
        """The fast-path array of a sample's ``(discard, hands, tavern, castle)``."""
        from regalia.fast import regicide as F

        discard, hands, tavern, castle = parts
        st = self._template.copy()
        for q, h in enumerate(hands):
            st[F.HANDS + q] = h
        st[F.NCASTLE] = len(castle)
        st[F.CASTLE:F.CASTLE + len(castle)] = castle
        st[F.NTAV] = len(tavern)
        st[F.TAV:F.TAV + len(tavern)] = tavern
        st[F.NDISC] = len(discard)
        st[F.DISC:F.DISC + len(discard)] = discard
        return st

    def _base_state(self) -> State:
        """A ``State`` with every public field of the view (piles and hands left empty)."""
        v = self.view
        s = State.__new__(State)
        s.players = self.players
        s.current = v["current"]
        s.phase = v["phase"]
        s.enemy = parse_card(v["enemy"]) if v["enemy"] else None
        s.damage = v["damage"]
        s.cancelled = not v["immune"] and s.enemy is not None
        s.table = []
        s.spades = 0
        jid = [c for c in self._table if c >= 52]
        # Without a log to name them, the table's Jesters take the ids the hand does not.
        spare = [j for j in self._jester_ids if j not in jid and not self.hand >> j & 1]
        for play in v["table"]:
            m = 0
            for x in play:
                c = parse_card(x)
                if c == 52:
                    c = jid.pop(0) if jid else spare.pop(0) if spare else 52
                m |= 1 << c
            s.table.append(m)
            if any(SUIT[c] == SPADES for c in range(52) if m >> c & 1):
                s.spades += sum(VALUE[c] for c in range(54) if m >> c & 1)
        s.known_top = len(v["tavern_top"])
        s.yielded = list(v["yielded"])
        s.jesters = v["jesters"]
        s.preferences = list(v["preferences"])
        s.options = Options.from_dict(v.get("options") or {}, self.players)
        s.log = None
        s.discard, s.hands, s.tavern, s.castle = [], [0] * self.players, [], []
        return s

    def _castle(self, rng: random.Random) -> list[int]:
        """The Castle below the enemy: the royals never revealed, in the public rank order
        (Jacks on top, then Queens, then Kings), suits in random order."""
        v = self.view
        out: list[int] = []
        for rank, key in ((KING, "K"), (QUEEN, "Q"), (JACK, "J")):
            group = self._royals[rank][:]
            rng.shuffle(group)
            out += group[:v["castle_ranks"][key]]
        return out

    def _base_state_with(self, discard, hands, tavern, castle) -> State:
        s = self._base_state()
        s.discard, s.hands, s.tavern, s.castle = discard, hands, tavern, castle
        return s

    def _sample_parts(self, rng: random.Random, wish_rule: Callable | None):
        prefs = self.view.get("preferences") or []
        wishes = {q: w for q, w in enumerate(prefs) if w is not None and q != self.seat}
        if not wish_rule:
            wishes = {}
        parts = self._sample_once(rng, wishes, wish_rule) if self.consistent else None
        if parts is None:
            self.simple_samples += 1
            parts = self._sample_simple(rng)
        return parts

    _template = None
    _prepared = None
    _plan = None  # the compiled sampler's arrays (``sampler.plan_of``)
    _stated = None  # the partners' stated wishes, per seat (``sample_arrays``)

    def _prepare(self) -> tuple:
        """What every sample shares: forced and barred cards per heal, the time line, the
        discard pile's top card, the never-seen cards, the cards gone from each heal."""
        if self._prepared is not None:
            return self._prepared
        forced_in: dict[int, set[int]] = {}
        barred: dict[int, set[int]] = {}
        for ep in self.episodes:
            if ep.seg is None:
                continue
            forced_in.setdefault(ep.seg, set()).add(ep.card)
            for k in range(1, ep.seg):
                if self.heals[k - 1][0] > ep.t_in:
                    barred.setdefault(k, set()).add(ep.card)
        top = self.view.get("discard_top")
        top_card = None
        top_since = -1  # the top card has lain there since then: no later heal took it
        if top is not None:
            top_card = parse_card(top)
            if top_card == 52:  # the Jester that went to the pile last
                js = sorted((ep.t_in, j) for j, ep in self.open_ep.items() if j >= 52)
                top_card = js[-1][1] if js else 52
            if top_card in self.open_ep:
                top_since = self.open_ep[top_card].t_in
        timeline = []
        events = sorted([(ep.t_in, 0, i) for i, ep in enumerate(self.episodes)]
                        + [(th, 1, k) for k, (th, _) in enumerate(self.heals, start=1)])
        for _, what, i in events:
            if what == 0:
                timeline.append((0, self.episodes[i].card, None, None, None))
            else:
                n = self.heals[i - 1][1]
                bar = set(barred.get(i, set()))
                if top_card is not None and self.heals[i - 1][0] > top_since:
                    bar.add(top_card)
                timeline.append((1, i, n, forced_in.get(i, set()), bar))
        gone = {k: self.my_draws.get(k, set()) | self.partner_from.get(k, set())
                for k in range(1, len(self.heals) + 1)}
        deck = [c for c in range(40)] + [52, 53][:JESTERS_IN_TAVERN[self.players]]
        never_seen = [c for c in deck if c not in self.seen]
        self._prepared = (timeline, top_card, gone, never_seen)
        return self._prepared

    def _sample_once(self, rng: random.Random, wishes: dict[int, str],
                     wish_rule: Callable | None):
        """``(discard, hands, tavern, castle)`` of one sample, or ``None`` when the
        constraints could not be met (then the caller falls back on ``_sample_simple``).
        Partners with a wish in ``wishes`` get their hands first, conditioned on their
        wishes (``_wished_hands``); the other partners and the Tavern share what is left."""
        timeline, top_card, gone, never_seen = self._prepare()
        # Re-draw every heal in order (forward sampling with forced cards).
        pile: list[int] = []
        healed: dict[int, list[int]] = {}
        for what, x, n, must_set, bar in timeline:
            if what == 0:
                pile.append(x)
                continue
            must = [c for c in pile if c in must_set]
            if len(must) != len(must_set):
                return None
            free = [c for c in pile if c not in must_set and c not in bar]
            need = n - len(must)
            if need < 0:
                return None
            if need > len(free):
                free = [c for c in pile if c not in must_set]
                if need > len(free):
                    return None
            took = must + rng.sample(free, need)
            took_set = set(took)
            pile = [c for c in pile if c not in took_set]
            healed[x] = took
        if len(pile) != self.view["discard"]:
            return None
        if top_card is not None and pile and pile[-1] != top_card and top_card in pile:
            pile.remove(top_card)
            pile.append(top_card)
        # Pools of each segment, to spread over its Tavern slots and partner slots.
        pools: dict[int, list[int]] = {}
        for k, took in healed.items():
            g = gone[k]
            pools[k] = [c for c in took if c not in g]
        pools[0] = never_seen[:]
        for pool in pools.values():
            rng.shuffle(pool)
        hands = [0] * self.players
        hands[self.seat] = self.hand
        needs: dict[int, dict[int, int]] = {}
        for q in range(self.players):
            if q == self.seat:
                continue
            for c in self.partner_known[q]:
                hands[q] |= 1 << c
            need = needs[q] = {}
            for seg in self.partner_slots[q]:
                need[seg] = need.get(seg, 0) + 1
            if any(len(pools.get(seg, ())) < n for seg, n in need.items()):
                return None
        if wishes:
            hands, pools = self._wished_hands(rng, pools, needs, hands, wishes, wish_rule)
        for q, need in needs.items():
            if q not in wishes:
                for seg, n in need.items():
                    for _ in range(n):
                        hands[q] |= 1 << pools[seg].pop()
        tavern = []
        for kind, x in self.tavern:
            if kind == "k":
                tavern.append(x)
            else:
                pool = pools.get(x)
                if not pool:
                    return None
                tavern.append(pool.pop())
        if any(pools.values()):
            return None
        return pile, hands, tavern, self._castle(rng)

    def _wished_hands(self, rng: random.Random, pools: dict[int, list[int]],
                      needs: dict[int, dict[int, int]], hands: list[int],
                      wishes: dict[int, str], rule: Callable):
        """The hands of the partners who stated a wish, conditioned on their wishes under
        ``rule``; returns ``(hands, pools left)``.

        Every such partner first draws plainly from the shuffled ``pools`` (when all wishes
        match, this is an exact sample). While some wish does not match, a card of an
        unmatched partner is swapped with another card of the same segment (in the pool
        left or in another such partner's hand), and the swap is kept unless it leaves
        more wishes unmatched: a search over the same hands the draw could give, so no
        sample is ever rejected whole; only partners holding an unknown card are picked (a
        hand all known cannot change, and must not stop the search for the others). After
        ``WISH_SWAPS`` swaps a wish still unmatched is counted in ``unmet_wishes`` and
        ignored (no hand can match it, as when a person says anything, or the heals the
        seat assumed cannot give one).
        """
        got = hands[:]
        held = {q: {seg: [pools[seg].pop() for _ in range(n)] for seg, n in needs[q].items()}
                for q in wishes}

        def unmet(q: int) -> bool:
            m = hands[q]
            for cards in held[q].values():
                for c in cards:
                    m |= 1 << c
            return rule(m, self.view) != wishes[q]

        bad = {q for q in wishes if unmet(q)}
        for _ in range(WISH_SWAPS):
            if not bad:
                break
            fixable = sorted(q for q in bad if any(held[q].values()))
            if not fixable:  # no unknown card of theirs: no swap can help (a person's wish)
                break
            q = rng.choice(fixable)
            segs = [seg for seg, cards in held[q].items() if cards]
            seg = rng.choice(segs)
            places = [(None, i) for i in range(len(pools[seg]))] + \
                [(r, i) for r in wishes if r != q for i in range(len(held[r].get(seg, ())))]
            if not places:
                continue
            r, j = rng.choice(places)
            i = rng.randrange(len(held[q][seg]))
            other = pools[seg] if r is None else held[r][seg]
            held[q][seg][i], other[j] = other[j], held[q][seg][i]
            after = {x for x in wishes if unmet(x)}
            if len(after) > len(bad):
                held[q][seg][i], other[j] = other[j], held[q][seg][i]
            else:
                bad = after
        self.unmet_wishes += len(bad)
        for q in wishes:
            for cards in held[q].values():
                for c in cards:
                    got[q] |= 1 << c
        for pool in pools.values():
            rng.shuffle(pool)
        return got, pools

    def _sample_simple(self, rng: random.Random):
        """A cruder sample, used only if the log could not be followed exactly: every card
        the seat cannot place is dealt at random to the partners, the Tavern and the discard."""
        v = self.view
        s = self._base_state()
        placed = set()
        if s.enemy is not None:
            placed.add(s.enemy)
        for m in s.table:
            placed |= {c for c in range(54) if m >> c & 1}
        placed |= {c for c in range(54) if self.hand >> c & 1}
        top_known = [parse_card(x) for x in v["tavern_top"]]
        placed |= set(top_known)
        top = parse_card(v["discard_top"]) if v.get("discard_top") else None
        if top is not None and top not in placed:
            placed.add(top)
        castle = []  # the public rank order, of the royals not placed (played ones are)
        for rank, key in ((KING, "K"), (QUEEN, "Q"), (JACK, "J")):
            group = [c for c in range(52) if RANK[c] == rank and c not in placed]
            rng.shuffle(group)
            castle += group[:v["castle_ranks"][key]]
        placed |= set(castle)
        n_jesters = 2 if self.players == 4 else (1 if self.players == 3 else 0)
        pool = [c for c in list(range(52)) + [52, 53][:n_jesters] if c not in placed]
        if self.players == 1:
            pool = [c for c in pool if c < 52]
        rng.shuffle(pool)
        hands = [0] * self.players
        hands[self.seat] = self.hand
        for q in range(self.players):
            if q != self.seat:
                for _ in range(v["hand_sizes"][q]):
                    hands[q] |= 1 << pool.pop()
        n_tav = v["tavern"] - len(top_known)
        tav = [pool.pop() for _ in range(min(n_tav, len(pool)))]
        tavern = tav + top_known[::-1]
        discard = pool + ([top] if top is not None else [])
        return discard, hands, tavern, castle


def _count(e: dict, who: int) -> int:
    counts = e.get("counts", {})
    return int(counts.get(who, counts.get(str(who), 0)))


def _draw_order(e: dict, first: int | None, sizes: list[int], players: int,
                max_hand: int) -> list[int] | None:
    """The seats of a Diamonds draw, card by card (rules 1.6: round robin from the player,
    skipping full hands), or ``None`` when the counts cannot be matched."""
    counts = {int(q): n for q, n in e["counts"].items()}
    total = sum(counts.values())
    if first is None:
        return None
    sim = sizes[:]
    seat = first
    skipped = 0
    order = []
    while len(order) < total and skipped < players:
        if sim[seat] < max_hand:
            sim[seat] += 1
            order.append(seat)
            skipped = 0
        else:
            skipped += 1
        seat = (seat + 1) % players
    got = {}
    for q in order:
        got[q] = got.get(q, 0) + 1
    return order if got == counts else None


def _conserved(s: State) -> bool:
    """Every card of the game in exactly one place."""
    seen: set[int] = set()
    n = 0
    cards = list(s.castle) + list(s.tavern) + list(s.discard)
    if s.enemy is not None:
        cards.append(s.enemy)
    for m in list(s.table) + list(s.hands):
        cards += [c for c in range(54) if m >> c & 1]
    for c in cards:
        if c in seen:
            return False
        seen.add(c)
        n += 1
    expected = 52 + JESTERS_IN_TAVERN[s.players]
    if s.players == 1:
        expected = 52
    return n == expected and all(c < 52 or s.players > 2 for c in seen)


def determinize(view: dict[str, Any], rng: random.Random) -> State:
    """A full ``State`` consistent with what ``view``'s seat knows (see the module doc)."""
    return Knowledge.from_view(view).sample(rng)

"""What the partners' own plays say about their hands (2-4 players; rules 1.15: the log is
public).

A partner chose each play, yield and discard with the hand it held then. In a sampled
position (``Knowledge.sample_arrays``) that hand is known: the partner's hand now plus the
cards it played or discarded since, as long as it drew nothing since (after the deal a
Diamonds draw is the only way a card enters a hand of 2-4 players, rules 1.6). ``observations`` lists, from a seat's
knowledge, every such decision of every partner with the public position it was taken in
(enemy, damage, shield, pile and hand sizes, yields: replayed from the log);
``log_likelihoods`` scores sampled positions by how likely the partners' decisions were
under a model of their play: a softmax of the compiled policy's scores
(``policy.scored_actions``) at temperature ``tau`` points of hand value, mixed with a
uniform choice with weight ``eps``. ``MonteCarloBot(partner_tau=...)`` resamples its
positions by these likelihoods (importance resampling), so a partner who yielded is less
often given a hand that could have defeated the enemy.

Only the seat's view is read (its log and the cards shown in it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.bots.regicide import wishes as W
from regalia.fast import regicide as F
from regalia.fast._jit import njit, refresh_cache_if_changed
from regalia.games.regicide.cards import SPADES, SUIT, parse_card
from regalia.games.regicide.state import JESTERS_IN_TAVERN, MAX_HAND

refresh_cache_if_changed(__file__, P.__file__, F.__file__, W.__file__)


@dataclass
class Observations:
    """Partners' decisions readable in sampled positions, ``k`` of them.

    ``positions``: (k, SIZE) int64 fast-path positions of each decision, the deciding
    partner's hand left empty (the others' hands hold placeholder cards of the right
    number); ``seats``: (k,) the deciding partner; ``actions``: (k,) its action (fast-path
    code); ``since``: (k,) the mask of the cards it played or discarded from that decision
    on (its hand then = its hand now | ``since``); ``times``: (k,) the decision's index in
    the view's log.
    """

    positions: np.ndarray
    seats: np.ndarray
    actions: np.ndarray
    since: np.ndarray
    times: np.ndarray

    def __len__(self) -> int:
        return len(self.seats)


_DECISIONS = {"play": F.A_PLAY, "jester": F.A_PLAY, "discard": F.A_DISCARD, "yield": F.A_YIELD}


def observations(knowledge) -> Observations:
    """The partners' decisions of a seat's log that a sampled position explains (see the
    module doc); ``knowledge``: the seat's ``Knowledge``. None in solo, or when the log
    could not be followed exactly (``knowledge.consistent`` False)."""
    players, seat = knowledge.players, knowledge.seat
    found: list[tuple[int, int, int, np.ndarray]] = []  # (log index, seat, action, position)
    if players > 1 and knowledge.consistent:
        found = _replay(knowledge, knowledge.template())
    last_draw = _last_draws(knowledge.view["log"], players)
    rows = [(t, q, a, st) for t, q, a, st in found if q != seat and last_draw[q] < t]
    shown = [0] * players  # per seat, the cards shown from the log index reached on
    since = [0] * len(rows)
    log = knowledge.view["log"]
    at = len(log)
    for i in range(len(rows) - 1, -1, -1):  # latest first
        t, q = rows[i][0], rows[i][1]
        for u in range(t, at):
            for c in knowledge.shown.get(u, ()):
                shown[log[u]["seat"]] |= 1 << c
        at = t
        since[i] = shown[q]
    k = len(rows)
    return Observations(
        positions=np.array([r[3] for r in rows], np.int64).reshape(k, F.SIZE),
        seats=np.array([r[1] for r in rows], np.int64),
        actions=np.array([r[2] for r in rows], np.int64),
        since=np.array(since, np.int64),
        times=np.array([r[0] for r in rows], np.int64))


def _last_draws(log: list[dict], players: int) -> list[int]:
    """Per seat, the log index of its last draw (-1: none since the deal)."""
    last = [-1] * players
    for t, e in enumerate(log):
        if e["kind"] in ("draw", "refresh"):
            for q, n in e.get("counts", {}).items():
                if n:
                    last[int(q)] = t
    return last


def _replay(knowledge, template: np.ndarray) -> list[tuple[int, int, int, np.ndarray]]:
    """Every play, yield and discard of the log with the fast-path position before it (the
    public fields replayed from the deal, rules 1.4-1.11)."""
    players = knowledge.players
    full = MAX_HAND[players]
    sizes = [full] * players
    ntav = 40 + JESTERS_IN_TAVERN[players] - players * full
    ndisc = known = damage = cancelled = spades = yielded = on_table = 0
    enemy = -1
    out = []
    for t, e in enumerate(knowledge.view["log"]):
        kind, who = e["kind"], e.get("seat")
        if kind in _DECISIONS and enemy >= 0:
            st = template.copy()
            st[F.CUR], st[F.ENEMY], st[F.DAMAGE] = who, enemy, damage
            st[F.PHASE] = F.PH_SUFFER if kind == "discard" else F.PH_PLAY
            st[F.CANCELLED], st[F.SPADES], st[F.YIELDED] = cancelled, spades, yielded
            st[F.NTAV], st[F.NDISC], st[F.KNOWN] = ntav, ndisc, min(known, ntav)
            st[F.NPLAYS] = 0
            for q in range(players):
                st[F.HANDS + q] = 0 if q == who else (1 << sizes[q]) - 1
            action = _DECISIONS[kind]
            for c in knowledge.shown.get(t, ()):
                action |= 1 << c
            out.append((t, who, action, st))
        if kind in ("setup", "enemy") and e.get("enemy"):
            enemy = parse_card(e["enemy"])
        elif kind in ("play", "jester"):
            cards = [parse_card(x) for x in e["cards"]]
            sizes[who] -= len(cards)
            on_table += len(cards)
            yielded &= ~(1 << who)
            if kind == "jester":
                cancelled = 1
            else:
                damage += e["damage"]
                if any(c < 52 and SUIT[c] == SPADES for c in cards):
                    spades += e["value"]
        elif kind == "yield":
            yielded |= 1 << who
        elif kind == "discard":
            sizes[who] -= len(e["cards"])
            ndisc += len(e["cards"])
        elif kind == "heal":
            ntav += e["count"]
            ndisc -= e["count"]
        elif kind == "draw":
            for q, n in e["counts"].items():
                sizes[int(q)] += n
                ntav -= n
                known = max(0, known - n)
        elif kind == "defeat":
            ndisc += on_table + (0 if e["exact"] else 1)
            if e["exact"]:
                ntav += 1
                known += 1
            on_table = damage = spades = cancelled = 0
    return out


@njit
def alike(a, b):
    """Whether actions ``a`` and ``b`` (fast-path codes) are the same but for which of the
    two look-alike Jesters they name (the fast path lists a play of either Jester once)."""
    if a == b:
        return True
    ja = a & F.JESTER_BITS
    jb = b & F.JESTER_BITS
    return ja != 0 and jb != 0 and a ^ ja == b ^ jb and F.popcount(ja) == F.popcount(jb)


@njit
def log_likelihoods(worlds, positions, seats, actions, since, w, tau, eps, out):
    """``out[i]`` (``out``: (n,) float64, written): the log-likelihood, in nats, of the
    observed partners' decisions (``positions``, ``seats``, ``actions``, ``since`` of
    ``Observations``) in sampled position ``worlds[i]`` (``worlds``: (n, SIZE) int64), each
    decision's probability being ``(1 - eps) * softmax(score / tau) + eps / n`` over its
    ``n`` legal actions (scores of the policy with weights ``w``, ``tau`` in points of
    hand value). A decision the position does not allow (the partner's cards then not a
    legal hand for it) counts as the uniform part alone. A play or discard of a Jester
    matches either Jester (``alike``)."""
    acts = np.empty(F.MAX_ACTIONS, np.int64)
    scores = np.empty(F.MAX_ACTIONS)
    keep = np.empty(54)
    out[:] = 0.0
    for k in range(seats.shape[0]):  # each decision, in every world (the same sums)
        st = positions[k].copy()
        q = seats[k]
        for i in range(worlds.shape[0]):
            st[F.HANDS + q] = worlds[i, F.HANDS + q] | since[k]
            n = P.scored_actions_into(st, w, acts, scores, keep)
            if n == 0:
                continue
            top = scores[0]
            for j in range(1, n):
                if scores[j] > top:
                    top = scores[j]
            z = 0.0
            mine = 0.0
            for j in range(n):
                x = np.exp((scores[j] - top) / tau)
                z += x
                if alike(acts[j], actions[k]):
                    mine = x
            out[i] += np.log((1.0 - eps) * mine / z + eps / n)

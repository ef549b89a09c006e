"""Game analysis for players: the win chance of each decision of one seat (``regalia
analyse FILE``).

For every decision of the chosen seat in a saved Regicide game record (formats: ``records``),
the analysis estimates the chance of winning after the move played and after the best move,
the way the search bot decides: from **that seat's view only** (``Game.view(state, seat)``:
its own hand, the public table and piles, the log with its own private draws; rules 1.15),
it samples full positions consistent with the view as the search bot does
(``montecarlo.position_sampler``, determinization: the partners' hands match their stated
Jester-window wishes and are weighted by how likely the partners' logged plays, yields and
discards were with them), and plays each candidate move out to
the end in every sampled position with the compiled heuristic policy in every seat
(``regalia.bots.regicide.policy.evaluate_actions``, the same positions and random streams
for every candidate). The win chance of a move is the
fraction of those playouts that end in a win. Candidates: the policy's best ``candidates``
legal moves, plus the move played. The best move is picked on the first half of the sampled
positions and both chances are measured on the other half, so that picking the best of
several noisy estimates does not inflate it. A move's cost is the win chance lost against
the best move, with the 95% interval of that paired difference (the same positions for
both: ``paired_range``); a move is a mistake only when that interval lies above zero (the
loss is real, not sampling noise) and the cost is at least ``MARK_FROM`` (not negligible);
the three costliest mistakes of the seat are marked.

A hint at a table (``hint_chances``) is measured the same way: the win chance of the move a
search bot proposes and of the next best move, paired, on ``HINT_WORLDS`` sampled positions.

Hidden cards never reach the estimate: ``decision_chances`` (and ``move_wins``,
``hint_chances``) take the view, not the state, and their result for two positions with
the same view is the same.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from regalia.bots.regicide import policy as P
from regalia.core.records import GameRecord, Match
from regalia.fast import regicide as F
from regalia.games import get_game
from regalia.lab.evaluate import wilson

DEFAULT_WORLDS = 200
DEFAULT_CANDIDATES = 8
MARKED = 3  # how many costliest moves are marked
MARK_FROM = 0.05  # the least cost (win chance lost: 5 points) that is marked
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def paired_range(best: np.ndarray, played: np.ndarray) -> tuple[float, float]:
    """The 95% interval of ``mean(best - played)``, two 0/1 playout results per sampled
    position (``best``, ``played``: arrays of the same length n >= 2, the same positions
    and random streams for both), by the normal approximation of the mean of the paired
    differences; ``(low, high)`` within -1..1. The positions where both moves end alike add
    no spread, so a difference is found with far fewer positions than two separate
    intervals need."""
    d = best.astype(np.float64) - played.astype(np.float64)
    n = len(d)
    half = Z95 * float(d.std(ddof=1)) / np.sqrt(n) if n > 1 else 2.0
    mean = float(d.mean())
    return max(-1.0, mean - half), min(1.0, mean + half)


@dataclass
class Decision:
    """One analysed decision: ``index`` of the action in the record (0-based), the
    ``phase`` it was taken in, the move ``played`` and its win chance ``played_win``, the
    ``best`` candidate and ``best_win``, ``cost`` (= best_win - played_win, >= 0),
    ``worlds`` sampled and ``marked`` (one of the three costliest mistakes: ``mistake``); ``played_range`` and ``best_range``: each chance's 95%
    interval (Wilson, over the positions that measured it), ``(low, high)`` in 0..1;
    ``cost_range``: the 95% interval of the cost (``paired_range``), in -1..1."""

    index: int
    phase: str
    played: str
    played_win: float
    best: str
    best_win: float
    cost: float
    worlds: int
    marked: bool = False
    played_range: tuple[float, float] = (0.0, 1.0)
    best_range: tuple[float, float] = (0.0, 1.0)
    cost_range: tuple[float, float] = (-1.0, 1.0)

    @property
    def mistake(self) -> bool:
        """The move lost win chance beyond the sampling noise (the cost's 95% interval lies
        above zero), and at least ``MARK_FROM``."""
        return self.cost_range[0] > 0.0 and self.cost >= MARK_FROM

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "phase": self.phase, "played": self.played,
                "played_win": round(self.played_win, 4), "best": self.best,
                "best_win": round(self.best_win, 4), "cost": round(self.cost, 4),
                "worlds": self.worlds, "marked": self.marked,
                "played_range": [round(x, 4) for x in self.played_range],
                "best_range": [round(x, 4) for x in self.best_range],
                "cost_range": [round(x, 4) for x in self.cost_range]}


def decision_chances(view: dict[str, Any], legal: Sequence[int], played: int,
                     rng: random.Random, worlds: int = DEFAULT_WORLDS,
                     candidates: int = DEFAULT_CANDIDATES) -> tuple[list[int], np.ndarray]:
    """Playout results of the played move and of the policy's best ``candidates`` legal
    moves in ``worlds`` positions sampled from ``view`` (the acting seat's view), one
    policy playout per move and position. ``legal``: the seat's legal action codes;
    ``played``: one of them. Returns ``(codes, wins)``: the candidate codes (the played one
    last unless the policy ranks it) and a ``worlds x len(codes)`` array of 1 (won) / 0."""
    from regalia.bots.regicide.belief import Knowledge  # the seat's knowledge model

    knowledge = Knowledge.from_view(view)
    w = P.weights_for(view["players"])
    draw = _sampler(knowledge, rng)
    first = draw(1)[0]
    acts = np.empty(F.MAX_ACTIONS, np.int64)
    scores = np.empty(F.MAX_ACTIONS)
    n = P.scored_actions(first, w, acts, scores)
    legal_set = {int(a) for a in legal}
    score_of = {int(acts[k]): float(scores[k]) for k in range(n)}
    ranked = sorted((a for a in score_of if a in legal_set), key=lambda a: -score_of[a])
    cands = list(dict.fromkeys([*ranked[:candidates], int(played)]))
    return cands, _playouts(draw, w, cands, rng, worlds, first)


def move_wins(view: dict[str, Any], moves: Sequence[int], rng: random.Random,
              worlds: int) -> np.ndarray:
    """Playout results of ``moves`` (legal action codes of the seat whose ``view`` this is)
    in ``worlds`` positions sampled from the view, one policy playout per move and position
    (the same positions and random streams for every move): a ``worlds x len(moves)`` array
    of 1 (won) / 0."""
    from regalia.bots.regicide.belief import Knowledge  # the seat's knowledge model

    knowledge = Knowledge.from_view(view)
    draw = _sampler(knowledge, rng)
    return _playouts(draw, P.weights_for(view["players"]), [int(a) for a in moves], rng,
                     worlds, draw(1)[0])


def _sampler(knowledge: Any, rng: random.Random):
    """The search bot's sampler of positions from the seat's ``knowledge``
    (``montecarlo.position_sampler``): with partners, their hands match their stated
    Jester-window wishes and the positions are weighted by how likely the partners' logged
    decisions were with the hands they give them (``PARTNER_TAU``)."""
    from regalia.bots.regicide.montecarlo import PARTNER_TAU, position_sampler

    return position_sampler(knowledge, rng, knowledge.players > 1,
                            PARTNER_TAU if knowledge.players > 1 else 0.0)


def _playouts(draw: Any, w: np.ndarray, moves: list[int], rng: random.Random,
              worlds: int, first: np.ndarray) -> np.ndarray:
    """``move_wins`` in ``first`` and ``worlds - 1`` more positions drawn by ``draw``
    (``_sampler``)."""
    positions = draw(worlds)
    positions[0] = first
    seeds = np.array([rng.getrandbits(64) | 1 for _ in range(worlds)], dtype=np.uint64)
    out = np.zeros((worlds, len(moves)))
    P.evaluate_actions(positions, np.array(moves, np.int64), len(moves), seeds, w, out)
    return (out >= 1.0).astype(np.float64)


HINT_WORLDS = 200  # sampled positions behind a hint's chances (half pick, half measure)
HINT_CANDIDATES = 4  # the policy's best moves weighed against a hint's move


@dataclass(frozen=True)
class HintChances:
    """A hint's move and its win chance against the next best move's, paired: ``move`` (an
    action code: the one the hint suggests) and its ``win`` (0..1); ``next`` (an action
    code; ``None`` when ``move`` was the only one) and ``next_win``; ``worlds``: the sampled
    positions both were measured on (the same for both); ``lead_range``: the 95% interval
    of ``win - next_win`` (``paired_range``), in -1..1, ``None`` without a next move;
    ``swapped``: the move found was not the one proposed (see ``hint_chances``)."""

    move: int
    win: float
    next: int | None
    next_win: float | None
    worlds: int
    lead_range: tuple[float, float] | None
    swapped: bool = False


def hint_chances(view: dict[str, Any], legal: Sequence[int], proposed: int,
                 rng: random.Random, worlds: int = HINT_WORLDS,
                 candidates: int = HINT_CANDIDATES) -> HintChances:
    """The win chance of ``proposed`` (one of ``legal``: the move a search bot chose for a
    hint) and of the next best move, from ``view`` (the acting seat's view) only.

    ``decision_chances`` plays ``proposed`` and the policy's best ``candidates`` legal
    moves out in ``worlds`` (2 or more) sampled positions; the next best of the others is
    picked on the first half of them and both moves are measured on the other half (picking
    the best of several noisy estimates does not inflate it). When that measurement finds
    the next best better beyond the sampling noise (the interval of the lead lies below
    zero), the two change places (``swapped``) and both are measured again on as many fresh
    positions, so that the chances shown were not the ones that chose. Raises
    ``ValueError`` for fewer than 2 worlds."""
    if worlds < 2:
        raise ValueError(f"worlds {worlds}: give 2 or more sampled positions")
    cands, wins = decision_chances(view, legal, proposed, rng, worlds, candidates)
    half = worlds // 2
    mine = cands.index(int(proposed))
    measured = wins[half:]
    others = [k for k in range(len(cands)) if k != mine]
    if not others:
        return HintChances(cands[mine], float(measured[:, mine].mean()), None, None,
                           len(measured), None)
    picked = wins[:half].mean(axis=0)
    best = max(others, key=lambda k: picked[k])  # the first best, in the policy's order
    move, other = cands[mine], cands[best]
    pair = measured[:, [mine, best]]
    swapped = bool(paired_range(pair[:, 0], pair[:, 1])[1] < 0.0)
    if swapped:
        move, other = other, move
        pair = move_wins(view, [move, other], rng, len(measured))
    low, high = paired_range(pair[:, 0], pair[:, 1])
    return HintChances(move, float(pair[:, 0].mean()), other, float(pair[:, 1].mean()),
                       len(pair), (float(low), float(high)), swapped)


def analyse_record(record: GameRecord, seat: int, worlds: int = DEFAULT_WORLDS,
                   candidates: int = DEFAULT_CANDIDATES, seed: int = 0) -> list[Decision]:
    """The decisions of ``seat`` (0-based) in a Regicide ``record`` with more than one
    legal move, each estimated from that seat's view at that moment; the ``MARKED``
    costliest mistakes are marked (``Decision.mistake``: beyond the noise). Raises ``ValueError``
    for a record of another game or a seat out of range, ``IllegalAction`` when the record
    does not replay."""
    if record.game != "regicide":
        raise ValueError(f"analysis is for Regicide records, this one is {record.game!r}")
    g = get_game("regicide")
    players = record.config.get("players", 1)
    if not 0 <= seat < players:
        raise ValueError(f"seat {seat + 1}: the game has players 1 to {players}")
    if worlds < 2:
        raise ValueError(f"worlds {worlds}: give 2 or more sampled positions per decision")
    out: list[Decision] = []
    before = None
    for i, (text, state, _) in enumerate(Match.replay(g, record)):
        if before is not None and text is not None and not text.startswith("prefer") \
                and before.current == seat:
            legal = list(g.legal_actions(before))
            if len(legal) > 1:
                played = g.action_from_text(before, text)
                cands, wins = decision_chances(g.view(before, seat), legal, played,
                                               random.Random(f"{seed}:{i}"), worlds,
                                               candidates)
                half = worlds // 2
                best = int(np.argmax(wins[:half].mean(axis=0)))  # first best, policy order
                measured = wins[half:]
                chance = measured.mean(axis=0)
                mine = cands.index(played)
                if chance[mine] >= chance[best]:
                    best = mine
                n = len(measured)
                out.append(Decision(i - 1, before.phase, text, float(chance[mine]),
                                    g.action_to_text(before, cands[best]), float(chance[best]),
                                    max(0.0, float(chance[best] - chance[mine])), worlds,
                                    played_range=wilson(int(measured[:, mine].sum()), n),
                                    best_range=wilson(int(measured[:, best].sum()), n),
                                    cost_range=paired_range(measured[:, best],
                                                            measured[:, mine])))
        before = state
    for d in sorted((d for d in out if d.mistake), key=lambda d: -d.cost)[:MARKED]:
        d.marked = True
    return out

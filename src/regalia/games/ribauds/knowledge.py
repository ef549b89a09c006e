"""Per-seat knowledge updates (rules 2.7; the model is described in ``state``).

Court knowledge (``know``) is updated inline by the rules where cards move or turn; this
module holds the hand-knowledge rules, which must stay *sound*: ``seen[k]`` is always a
sub-multiset of the hand of seat ``1 - k``.
"""

from __future__ import annotations

from regalia.games.ribauds.state import State


def hand_loses(t: State, owner: int, card: int, shown: bool) -> None:
    """``owner``'s hand just lost ``card``; update what the opponent knows of that hand.

    ``shown``: the opponent saw which card left (placed face up, discarded): one card of
    that type leaves the known multiset. Otherwise (placed face down) the opponent cannot
    tell which card left, so one card of every known type may have been it.
    """
    m = t.seen[1 - owner]
    if shown:
        if m[card]:
            m[card] -= 1
    else:
        for c in range(4):
            if m[c]:
                m[c] -= 1


def hand_gains(t: State, owner: int, card: int, shown: bool) -> None:
    """``owner``'s hand just gained ``card``; the opponent knows it when ``shown``."""
    if shown:
        t.seen[1 - owner][card] += 1


def hand_inspected(t: State, inspector: int, cards: list[int]) -> None:
    """``inspector`` looked at ``cards`` of the opponent's hand (the Reine, rules 2.4).

    Both the old knowledge and the cards seen are sub-multisets of that hand, so their
    per-type maximum is too.
    """
    m = t.seen[inspector]
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[c] += 1
    for c in range(4):
        if counts[c] > m[c]:
            m[c] = counts[c]


def knows_slot(t: State, seat: int, slot: int) -> bool:
    """Whether ``seat`` knows the card in Court ``slot``."""
    return t.know[seat][slot] >= 0

"""Fit the bot levels' published Le Roy des Ribauds ratings from their measured games (not a
test): prints the ratings and the ``LEVEL_RATINGS`` entry of ``regalia/bots/levels.py``.

Input: the JSON reports of ``regalia eval`` in ``benchmarks/results/levels/`` (medium against
easy, hard against medium, strongest against hard; every game with its winner; README,
"Levels"). The fit uses OpenSkill's Plackett-Luce model with its defaults, as the site's
ratings do (``regalia.lab.ratings``):

* ``sigma``: every level starts as a newcomer and OpenSkill rates the measured games one by
  one, the three reports' games taken in turn (game 0 of each, then game 1, ...): each
  level's ``sigma`` afterwards.
* ``mu``: with those sigmas, the values for which OpenSkill's ``predict_win`` gives each pair
  its measured win rate (the maximum of the likelihood of a chain of three pairs), found by
  bisection; ``medium`` (the level the lobby suggests) is put at a newcomer's 25.

Usage::

    python benchmarks/fit_level_ratings.py [--reports benchmarks/results/levels]
"""

from __future__ import annotations

import argparse
import json
from itertools import zip_longest
from pathlib import Path

from regalia.lab.ratings import MODEL, Rating, rate

REPORTS = Path(__file__).resolve().parent / "results" / "levels"
PAIRS = (("medium", "easy", "rib_medium_easy.json"),
         ("hard", "medium", "rib_hard_medium.json"),
         ("strongest", "hard", "rib_strongest_hard.json"))
LEVELS = ("easy", "medium", "hard", "strongest")
ANCHOR = "medium"


def games_of(path: Path) -> list[tuple[str, str]]:
    """``(winner, loser)`` level names of every game of one ``regalia eval`` report."""
    report = json.loads(path.read_text(encoding="utf-8"))
    if report.get("game") != "ribauds":
        raise SystemExit(f"{path}: not a Le Roy des Ribauds report")
    out = []
    for g in report["games"]:
        bots, w = g["bots"], g["winner"]
        out.append((bots[w], bots[1 - w]))
    return out


def sigmas(games: list[tuple[str, str]]) -> dict[str, float]:
    """Each level's sigma after OpenSkill rated ``games`` in order, every level a newcomer
    first."""
    r = {name: Rating() for name in LEVELS}
    for winner, loser in games:
        r[winner], r[loser] = rate([r[winner], r[loser]], [1.0, 0.0])
    return {name: r[name].sigma for name in LEVELS}


def predicted(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """OpenSkill's chance that a beats b."""
    a = MODEL.rating(mu=mu_a, sigma=sigma_a)
    b = MODEL.rating(mu=mu_b, sigma=sigma_b)
    return MODEL.predict_win([[a], [b]])[0]


def gap(rate_won: float, sigma_a: float, sigma_b: float) -> float:
    """The mu a must have above b for ``predict_win`` to give ``rate_won`` (bisection)."""
    lo, hi = -100.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if predicted(mid, sigma_a, 0.0, sigma_b) < rate_won:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=Path, default=REPORTS,
                        help="folder of the regalia eval JSON reports")
    args = parser.parse_args(argv)
    per_pair = {(a, b): games_of(args.reports / name) for a, b, name in PAIRS}
    interleaved = [g for turn in zip_longest(*per_pair.values()) for g in turn if g]
    sigma = sigmas(interleaved)
    mu = {ANCHOR: MODEL.mu}
    measured = {}
    for (a, b), games in per_pair.items():
        won = sum(1 for w, _ in games if w == a)
        measured[a, b] = (won, len(games))
    # the chain from the anchor: medium -> easy below it, medium -> hard -> strongest above
    mu["easy"] = mu["medium"] - gap(measured["medium", "easy"][0] / measured["medium", "easy"][1],
                                    sigma["medium"], sigma["easy"])
    mu["hard"] = mu["medium"] + gap(measured["hard", "medium"][0] / measured["hard", "medium"][1],
                                    sigma["hard"], sigma["medium"])
    mu["strongest"] = mu["hard"] + gap(
        measured["strongest", "hard"][0] / measured["strongest", "hard"][1],
        sigma["strongest"], sigma["hard"])
    print(f"{'level':<10} {'mu':>7} {'sigma':>6} {'shown':>6}")
    for name in LEVELS:
        print(f"{name:<10} {mu[name]:7.3f} {sigma[name]:6.3f} {Rating(mu[name], sigma[name]).shown:6d}")
    print()
    print(f"{'pair':<18} {'measured':>12} {'predict_win':>11}")
    for (a, b), (won, n) in measured.items():
        p = predicted(mu[a], sigma[a], mu[b], sigma[b])
        print(f"{a + ' v ' + b:<18} {won:>4}/{n} {won / n:6.3f} {p:11.3f}")
    print()
    print('    "ribauds": {')
    for name in LEVELS:
        print(f'        "{name}": ({mu[name]:.3f}, {sigma[name]:.3f}),')
    print("    },")


if __name__ == "__main__":
    main()

"""Train an action scorer by imitating a search bot, save it and score it with ``regalia
eval --policy act:PATH`` (numpy only: no torch).

    .venv/bin/python examples/train_action_policy.py --games 600 --hidden 256 --epochs 8 --check 200 --deals 1000
    .venv/bin/python examples/train_action_policy.py --game ribauds --games 1500 --deals 500
    .venv/bin/python examples/train_action_policy.py --smoke      # a few seconds (CI)

Method (imitation of an expert through per-action features):

1. Data. Solo Regicide (``--game regicide``, the default): ``montecarlo`` with a fixed
   ``--iterations`` sampled positions per decision (default 16, the ``hard`` level) plays
   ``--games`` solo deals. Le Roy des Ribauds (``--game ribauds``): ``ismcts`` with a fixed
   ``--iterations`` (default 200) plays ``--games`` games against ``--opponent`` (default
   ``heuristic``), the first seat in even games and the second in odd ones. The deal seeds
   come from ``random.Random(--deal-seed)`` (default 20261206) and are checked to be none of
   the published deal seeds of the game (``src/regalia/lab/deals/``), so the scorer is never
   trained on the deals it is scored on (the seed code is ``train_distilled_policy.py``'s).
   Each bot draws from a stream of its own named after the deal (``random.Random(f"montecarlo
   {seed}")``), apart from the deal's (``random.Random(seed)``), so with fixed iterations the
   data replays. For every decision of the expert with more than one legal action (Ribauds:
   and no sure win, which the scorer's bot takes at once as the expert does) it records the
   features of every legal action (``regalia.adapters.features``, the seat's view only) and
   the index of the one the expert chose. Games are cached in shards of ``--shard`` games
   under ``--data-dir`` (default ``data/action``, not tracked by git); a rerun reuses them.
2. Training: a ReLU MLP (``--layers`` hidden layers of ``--hidden`` units, one output: the
   action's score) by Adam (written in numpy) on the softmax cross-entropy of the expert's
   choice among the legal actions of each decision, fixed ``--seed``, one BLAS thread. The
   last 5% of the games are held out and the agreement with the expert printed each epoch
   (the published deals are not looked at).
3. ``--check K``: the scorer plays K more training deals (the next seeds of the same
   generator; Ribauds: K games against the opponent) and its win rate is printed, still
   without the published deals.
4. The scorer is saved with ``regalia.adapters.policy.save_action_scorer`` to ``--out``
   (``.npz``, default ``models/action_regicide.npz`` or ``models/action_ribauds.npz``) and
   scored by ``regalia eval --policy act:OUT --deals K`` (Ribauds: ``--opponent`` too; each
   deal is played twice, the scorer in each seat), its report written beside it
   (``OUT.eval.json``).

Prints the data generation's decisions per second, the training's decisions per second and
a last line of JSON: the summary (also written to ``OUT.train.json``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread: the training replays
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_distilled_policy as distilled  # noqa: E402  (the training deals' seeds)


def ribauds_seeds(n: int, deal_seed: int, skip: int = 0) -> list[int]:
    """Ribauds deal seeds ``skip`` to ``skip + n - 1`` of ``random.Random(deal_seed)``,
    none of them a published Ribauds deal."""
    from regalia.lab.deals import load_deals

    published = set(load_deals("ribauds", 2))
    rng = random.Random(deal_seed)
    out: list[int] = []
    while len(out) < skip + n:
        s = rng.getrandbits(32)
        if s not in published:
            out.append(s)
    assert not published.intersection(out)
    return out[skip:]


def seeds_for(a, first: int, count: int) -> list[int]:
    if a.game == "regicide":
        return distilled.training_seeds(first + count, a.deal_seed)[first:]
    return ribauds_seeds(count, a.deal_seed, first)


# ----------------------------------------------------------------------------- data


def play_regicide(seeds: list[int], iterations: int, scorer=None) -> tuple[dict, int]:
    """Solo games of ``seeds``: ``montecarlo`` (``iterations`` per decision) plays and its
    decisions are recorded (see ``record``); with ``scorer`` (an ``ActionScorerBot``) the
    scorer plays instead and nothing is recorded. Returns the data and the wins."""
    from regalia.adapters.features import regicide_features
    from regalia.bots.regicide.montecarlo import MonteCarloBot
    from regalia.core.records import Match
    from regalia.games.regicide import REGICIDE as G

    rec = Recorder()
    wins = 0
    for g, seed in enumerate(seeds):
        match = Match(G, {"players": 1}, seed)
        bot = scorer if scorer is not None else MonteCarloBot(iterations=iterations)
        rng = random.Random(f"montecarlo {seed}")  # not the deal's stream (Random(seed))
        while not G.is_terminal(match.state):
            view = G.view(match.state, 0)
            legal = G.legal_actions(match.state)
            action = bot.act(view, legal, rng)
            if scorer is None and len(legal) > 1:
                rec.add(regicide_features(view, legal), legal.index(action), g)
            match.play(action)
        wins += G.outcome(match.state)["result"] == "won"
    return rec.arrays(), wins


def play_ribauds(seeds: list[int], iterations: int, opponent: str, first: int,
                 samples: int, scorer=None) -> tuple[dict, int]:
    """Ribauds games of ``seeds`` (game ``first + g`` puts the expert in seat ``(first +
    g) % 2``): ``ismcts`` (``iterations`` per decision) against ``opponent``, recording the
    expert's decisions with a choice and no sure win (features from ``samples`` sampled
    positions); with ``scorer`` the scorer plays instead and nothing is recorded. Returns
    the data and the expert's (or scorer's) wins."""
    from regalia.adapters.features import ribauds_features, ribauds_sure_win
    from regalia.bots import make_bot
    from regalia.bots.ribauds.play import ISMCTSBot
    from regalia.core.records import Match
    from regalia.games.ribauds import RIBAUDS as G

    rec = Recorder()
    wins = 0
    for g, seed in enumerate(seeds):
        me = (first + g) % 2
        match = Match(G, {"players": 2}, seed)
        bot = scorer if scorer is not None else ISMCTSBot(iterations=iterations)
        other = make_bot("ribauds", opponent)
        if hasattr(other, "iterations") and getattr(other, "iterations", None) is None:
            other.iterations = 40  # a search opponent replays only with fixed iterations
        rngs = {me: random.Random(f"ismcts {seed}"), 1 - me: random.Random(f"{opponent} {seed}")}
        frng = random.Random(f"features {seed}")
        steps = 0
        while not G.is_terminal(match.state) and steps < 5000:
            s = match.state
            seat = G.current_seat(s)
            view = G.view(s, seat)
            legal = G.legal_actions(s)
            if seat == me:
                action = bot.act(view, legal, rngs[me])
                if (scorer is None and len(legal) > 1
                        and ribauds_sure_win(view, legal, frng) is None):
                    rec.add(ribauds_features(view, legal, frng, samples),
                            legal.index(action), g)
            else:
                action = other.act(view, legal, rngs[seat])
            match.play(action)
            steps += 1
        if G.is_terminal(match.state):
            wins += G.returns(match.state)[me] > 0.5
    return rec.arrays(), wins


class Recorder:
    """Decisions as flat arrays: ``x`` float16 ``(rows, features)`` (the legal actions of
    every decision, one after another), ``count`` int16 ``(n,)`` (legal actions per
    decision), ``choice`` int16 ``(n,)`` (the expert's index among them), ``game`` int32."""

    def __init__(self) -> None:
        self.x: list[np.ndarray] = []
        self.count: list[int] = []
        self.choice: list[int] = []
        self.game: list[int] = []

    def add(self, features: np.ndarray, choice: int, game: int) -> None:
        self.x.append(features.astype(np.float16))
        self.count.append(len(features))
        self.choice.append(choice)
        self.game.append(game)

    def arrays(self) -> dict[str, np.ndarray]:
        width = self.x[0].shape[1] if self.x else 0
        return {"x": np.concatenate(self.x) if self.x else np.zeros((0, width), np.float16),
                "count": np.array(self.count, np.int16),
                "choice": np.array(self.choice, np.int16),
                "game": np.array(self.game, np.int32)}


def load_or_generate(a) -> tuple[dict[str, np.ndarray], dict]:
    """The decisions of the first ``a.games`` training games, from the cache or played now."""
    if a.game == "regicide":
        prefix = f"regicide_mc{a.iterations}"
        def play(chunk, k):
            return play_regicide(chunk, a.iterations)
    else:
        prefix = f"ribauds_ismcts{a.iterations}_{a.opponent}_s{a.samples}"
        def play(chunk, k):
            return play_ribauds(chunk, a.iterations, a.opponent, k, a.samples)
    data, gen = distilled.cached_shards(a.data_dir, f"{prefix}_d{a.deal_seed}",
                                        seeds_for(a, 0, a.games), 0, a.games, a.shard, play,
                                        ("choice", "x", "count", "game"), "the expert")
    gen["actions"] = int(len(data["x"]))
    gen["expert_wins"] = gen.pop("wins")
    return data, gen


# ----------------------------------------------------------------------------- training


def forward(layers, x):
    """Scores ``(n,)`` and the hidden activations of ``x`` ``(n, inputs)``."""
    hs = [x]
    h = x
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
        hs.append(h)
    return h[:, 0], hs


def decision_loss(scores: np.ndarray, starts: np.ndarray, target: np.ndarray):
    """Softmax cross-entropy of the rows ``target`` within the segments beginning at
    ``starts`` (every segment non-empty, one after another); returns the mean loss, the
    gradient of the mean loss with respect to ``scores`` and the hits of the argmax."""
    n = len(starts)
    seg = np.repeat(np.arange(n), np.diff(np.append(starts, len(scores))))
    m = np.maximum.reduceat(scores, starts)
    e = np.exp(scores - m[seg])
    z = np.add.reduceat(e, starts)
    p = e / z[seg]
    loss = float(-np.log(np.maximum(p[target], 1e-12)).mean())
    grad = p
    grad[target] -= 1.0
    grad /= n
    hits = int((scores[target] >= m).sum())
    return loss, grad, hits


def batch_rows(offsets: np.ndarray, decisions: np.ndarray):
    """Rows of ``decisions`` (in order), the start of each in the batch, and the rows of the
    chosen actions given ``offsets``."""
    lens = offsets[decisions + 1] - offsets[decisions]
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    rows = np.repeat(offsets[decisions] - starts, lens) + np.arange(lens.sum())
    return rows, starts


def train(data: dict[str, np.ndarray], a) -> tuple[list, dict]:
    """Train the scorer from its seed; returns its layers and the training figures."""
    rng = np.random.default_rng(a.seed)
    x = data["x"].astype(np.float32)
    counts = data["count"].astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    choice = data["choice"].astype(np.int64)
    games = data["game"]
    held = games >= a.games - max(1, a.games // 20)
    tr, va = np.flatnonzero(~held), np.flatnonzero(held)
    sizes = [x.shape[1]] + [a.hidden] * a.layers + [1]
    layers = [(rng.normal(0, np.sqrt(2 / sizes[i]), (sizes[i], sizes[i + 1])).astype(np.float32),
               np.zeros(sizes[i + 1], np.float32)) for i in range(len(sizes) - 1)]
    m = [(np.zeros_like(w), np.zeros_like(b)) for w, b in layers]
    v = [(np.zeros_like(w), np.zeros_like(b)) for w, b in layers]
    b1, b2, eps = 0.9, 0.999, 1e-8
    step = 0
    total_steps = a.epochs * max(1, -(-len(tr) // a.batch))

    def evaluate(idx: np.ndarray) -> tuple[float, float]:
        hits, loss = 0, 0.0
        for s in range(0, len(idx), 2048):
            d = idx[s:s + 2048]
            rows, starts = batch_rows(offsets, d)
            sc, _ = forward(layers, x[rows])
            lo, _, h = decision_loss(sc, starts, starts + choice[d])
            hits += h
            loss += lo * len(d)
        return hits / max(1, len(idx)), loss / max(1, len(idx))

    t0 = time.perf_counter()
    acc = vloss = 0.0
    for epoch in range(a.epochs):
        perm = tr[rng.permutation(len(tr))]
        total = 0.0
        for s in range(0, len(perm), a.batch):
            d = perm[s:s + a.batch]
            rows, starts = batch_rows(offsets, d)
            sc, hs = forward(layers, x[rows])
            loss, g, _ = decision_loss(sc, starts, starts + choice[d])
            total += loss * len(d)
            g = g[:, None].astype(np.float32)
            step += 1
            lr = a.lr * 0.5 * (1 + np.cos(np.pi * step / total_steps))  # cosine decay
            for i in range(len(layers) - 1, -1, -1):
                w, b = layers[i]
                gw = hs[i].T @ g + a.weight_decay * w
                gb = g.sum(0)
                if i > 0:
                    g = (g @ w.T) * (hs[i] > 0)
                for j, (param, grad) in enumerate(((w, gw), (b, gb))):
                    mm, vv = m[i][j], v[i][j]
                    mm *= b1
                    mm += (1 - b1) * grad
                    vv *= b2
                    vv += (1 - b2) * grad * grad
                    param -= lr * (mm / (1 - b1 ** step)) / (np.sqrt(vv / (1 - b2 ** step)) + eps)
        acc, vloss = evaluate(va)
        print(f"epoch {epoch + 1}/{a.epochs}: train loss {total / len(tr):.3f}, held-out "
              f"loss {vloss:.3f}, agreement with the expert {acc:.1%} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    seconds = time.perf_counter() - t0
    train_acc, _ = evaluate(tr[:20000])
    figures = {"train_decisions": int(len(tr)), "held_out_decisions": int(len(va)),
               "epochs": a.epochs, "train_seconds": round(seconds, 1),
               "decisions_per_second": round(a.epochs * len(tr) / seconds, 1),
               "held_out_agreement": round(acc, 4), "train_agreement": round(train_acc, 4),
               "parameters": int(sum(w.size + b.size for w, b in layers)), "sizes": sizes}
    return layers, figures


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=("regicide", "ribauds"), default="regicide",
                   help="solo Regicide (default) or Le Roy des Ribauds")
    p.add_argument("--games", type=int, default=600, help="expert games (default 600)")
    p.add_argument("--iterations", type=int, default=None,
                   help="the expert's sampled positions per decision (default: montecarlo 16, "
                   "the hard level; ismcts 200)")
    p.add_argument("--opponent", default="heuristic", help="Ribauds: the expert's opponent "
                   "in the data and the scorer's in the scoring (default heuristic)")
    p.add_argument("--samples", type=int, default=None, help="Ribauds: sampled positions of "
                   "the features' look-ahead (default: features.RIBAUDS_SAMPLES)")
    p.add_argument("--deal-seed", type=int, default=20261206,
                   help="seed of the training deals' generator (never the published deals)")
    p.add_argument("--shard", type=int, default=50, help="games per cached file")
    p.add_argument("--data-dir", type=Path, default=Path("data/action"))
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=1, help="hidden layers (default 1)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=64, help="decisions per step")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check", type=int, default=0,
                   help="play this many more training deals with the scorer (not published)")
    p.add_argument("--out", type=Path, default=None,
                   help="the scorer (default models/action_GAME.npz)")
    p.add_argument("--deals", type=int, default=100, help="published deals to score it on")
    p.add_argument("--workers", type=int, default=1, help="processes for the scoring")
    p.add_argument("--no-train", action="store_true", help="only generate the data")
    p.add_argument("--smoke", action="store_true",
                   help="a tiny run for CI: 3 games at 4 iterations, a small net, 2 deals")
    a = p.parse_args(argv)
    from regalia.adapters import features as FT
    from regalia.adapters.policy import ActionScorerBot, save_action_scorer

    if a.iterations is None:
        a.iterations = 16 if a.game == "regicide" else 200
    if a.samples is None:
        a.samples = FT.RIBAUDS_SAMPLES
    if a.out is None:
        a.out = Path(f"models/action_{a.game}.npz")
    if a.smoke:
        a.games, a.iterations, a.shard, a.hidden, a.epochs, a.deals = 3, 4, 3, 16, 2, 2
        a.check, a.samples = 1, 2
        a.data_dir = a.out.parent / (a.out.stem + "_data")
    data, gen = load_or_generate(a)
    print(f"data: {gen['decisions']} decisions ({gen['actions']} legal actions) of "
          f"{gen['games']} games (the expert won {gen['expert_wins']}); generated now: "
          f"{gen['generated_decisions']} at {gen['decisions_per_second']} decisions/s",
          flush=True)
    if a.no_train:
        print(json.dumps({"data": gen}))
        return {"data": gen}
    layers, fit = train(data, a)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    save_action_scorer(a.out, a.game, layers, a.samples if a.game == "ribauds" else 0)
    print(f"trained on {fit['train_decisions']} decisions x {a.epochs} epochs in "
          f"{fit['train_seconds']} s, saved {a.out} ({a.out.stat().st_size} bytes)", flush=True)

    check = None
    if a.check:
        scorer = ActionScorerBot(a.game, str(a.out))
        seeds = seeds_for(a, a.games, a.check)
        t0 = time.perf_counter()
        if a.game == "regicide":
            _, w = play_regicide(seeds, a.iterations, scorer)
        else:
            _, w = play_ribauds(seeds, a.iterations, a.opponent, a.games, a.samples, scorer)
        check = {"games": a.check, "wins": int(w), "seconds": round(time.perf_counter() - t0, 1)}
        print(f"check: the scorer won {w}/{a.check} training deals not seen in training",
              flush=True)

    report = a.out.with_suffix(".eval.json")
    cmd = [sys.executable, "-c", "from regalia.cli.app import main; main()", "eval",
           "--game", a.game, "--policy", f"act:{a.out}", "--deals", str(a.deals),
           "--workers", str(a.workers), "--no-progress", "--out", str(report)]
    if a.game == "ribauds":
        cmd += ["--opponent", a.opponent]
    print("regalia " + " ".join(cmd[3:]), flush=True)
    subprocess.run(cmd, check=True)
    rep = json.loads(report.read_text())
    r = rep["results"]["1"] if a.game == "regicide" else rep["results"][0]
    summary = {"game": a.game, "data": gen, "iterations": a.iterations, "training": fit,
               "check": check, "games": r["games"], "wins": r["wins"],
               "win_rate": r["win_rate"], "wilson95": r["wilson95"],
               "model": str(a.out), "report": str(report),
               "command": "examples/train_action_policy.py " + " ".join(
                   sys.argv[1:] if argv is None else argv)}
    if a.game == "regicide":
        summary["medals"] = r.get("medals")
        summary["mean_enemies_defeated"] = r["mean_enemies_defeated"]
    else:
        summary["opponent"] = a.opponent
        summary["samples"] = a.samples
        summary["by_seat"] = r.get("by_seat")
    a.out.with_suffix(".train.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()

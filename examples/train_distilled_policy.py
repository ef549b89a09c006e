"""Distil the ``montecarlo`` search bot into a small network for solo Regicide, save it and
score it with ``regalia eval --policy mlp:PATH`` (training needs the ``rl`` extra's torch;
the saved network plays with numpy alone).

    .venv/bin/python examples/train_distilled_policy.py --games 2400 --dagger-games 1000 --shard 50 --deals 1000
    .venv/bin/python examples/train_distilled_policy.py --smoke      # a few seconds (CI)

Method (policy distillation, the policy half of expert iteration):

1. Data: ``montecarlo`` with a fixed ``--iterations`` sampled positions per decision (the
   ``hard`` level is 16) plays ``--games`` solo deals. The deal seeds come from
   ``random.Random(--deal-seed)`` (default 20261206) and are checked to be none of the
   published deal seeds (``src/regalia/lab/deals/regicide.json``), so the policy is never
   trained on the deals it is scored on. Each game's bot draws from
   ``random.Random(f"montecarlo {deal seed}")``, a stream apart from the deal's own
   (``random.Random(deal seed)``, which shuffles the cards), so its sampled positions know
   nothing of the hidden cards; with fixed iterations the data replays. For every decision
   with more than one legal action it records the observation and mask of
   ``regalia.adapters.encoding`` (the seat's view only: 408 floats, 516 ids) and the id the
   bot chose. Games are cached in shards of ``--shard`` games under ``--data-dir`` (default
   ``data/distill``, not tracked by git); a rerun reuses them.
2. Training: an MLP (``--layers`` hidden ReLU layers of ``--hidden`` units) by Adam on the
   cross-entropy of the expert's id over the legal ids only (illegal logits masked), fixed
   seed, one torch thread; the last 5% of the expert's games are held out and their move agreement
   printed (the published deals are not looked at).
3. Optionally one round of DAgger (``--dagger-games N``): a first network (``--first-epochs``,
   saved as ``OUT_round1.npz``) plays N more training deals (the next seeds of the same
   generator), the expert labelling every position it reaches (its id, not played), cached
   under the first network's weight hash; the network is then trained again, from its
   seed, on the expert's games and these together. A distilled policy meets positions the
   expert never reaches after its own mistakes; this teaches it the expert's answer there.
4. The network is saved with ``regalia.adapters.policy.save_mlp`` to ``--out`` (``.npz``)
   and scored by ``regalia eval --policy mlp:OUT --deals K`` on the first K published solo
   deals, its report written beside it (``OUT.eval.json``).

Prints the data generation's decisions per second, the training's samples per second and a
last line of JSON: the summary.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

OBS, ACTIONS = 408, 516


def published_seeds() -> set[int]:
    """Every published Regicide deal seed (all player counts)."""
    from regalia.lab.deals import load_deals

    return {s for players in (1, 2, 3, 4) for s in load_deals("regicide", players)}


def training_seeds(n: int, deal_seed: int) -> list[int]:
    """``n`` solo deal seeds from ``random.Random(deal_seed)``, none of them published."""
    published = published_seeds()
    rng = random.Random(deal_seed)
    out: list[int] = []
    while len(out) < n:
        s = rng.getrandbits(32)
        if s not in published:
            out.append(s)
    assert not published.intersection(out)
    return out


def play_games(seeds: list[int], iterations: int,
               student=None) -> tuple[dict[str, np.ndarray], int]:
    """Play ``seeds`` with montecarlo labelling every decision; returns the arrays of its
    decisions (``obs`` float16 (n, 408), ``mask`` packed bits (n, 65), ``action`` int16 (n,):
    the expert's id, ``game`` int32 (n,)) and the number of wins. ``student``: a policy
    ``(observation, action_mask) -> id`` that plays instead (the expert still labels every
    decision: the positions the student reaches, DAgger)."""
    from regalia.adapters import encoding as E
    from regalia.bots.regicide.montecarlo import MonteCarloBot
    from regalia.core.records import Match
    from regalia.games.regicide import REGICIDE as G

    obs, masks, acts, games = [], [], [], []
    wins = 0
    for g, seed in enumerate(seeds):
        match = Match(G, {"players": 1}, seed)
        bot = MonteCarloBot(iterations=iterations)
        rng = random.Random(f"montecarlo {seed}")  # not the deal's stream (Random(seed))
        while not G.is_terminal(match.state):
            view = G.view(match.state, 0)
            legal = G.legal_actions(match.state)
            action = bot.act(view, legal, rng)
            if len(legal) > 1:
                ids = E.legal_ids(view, legal, E.regicide_action_id)
                o = E.regicide_observation(view)
                mask = E.mask_of(ids, ACTIONS)
                obs.append(o.astype(np.float16))
                masks.append(np.packbits(mask.astype(bool)))
                acts.append(E.regicide_action_id(view, action))
                games.append(g)
                if student is not None:
                    action = ids[int(student(o, mask))]
            match.play(action)
        wins += G.outcome(match.state)["result"] == "won"
    return ({"obs": np.array(obs, np.float16).reshape(-1, OBS),
             "mask": np.array(masks, np.uint8).reshape(-1, (ACTIONS + 7) // 8),
             "action": np.array(acts, np.int16), "game": np.array(games, np.int32)}, wins)


def cached_shards(data_dir: Path, name: str, seeds: list[int], first: int, count: int,
                  shard: int, play, keys: tuple[str, ...], who: str = "expert"
                  ) -> tuple[dict[str, np.ndarray], dict]:
    """The decisions of games ``first`` to ``first + count - 1`` of ``seeds``, in shards of
    ``shard`` games cached as ``DATA_DIR/NAME_FIRST_COUNT.npz``: a cached shard is read, a
    missing one is played now by ``play(seeds_of_the_shard, first_game) -> (arrays, wins)``
    and saved. ``keys`` are the arrays kept, the first one counting the decisions and
    ``game`` among them (made absolute: the shard's first game is added). Returns the
    concatenated arrays and the counts: ``decisions``, ``games``, ``wins`` (of ``who``),
    ``generated_decisions``, ``generation_seconds``, ``decisions_per_second``."""
    data_dir.mkdir(parents=True, exist_ok=True)
    parts, new_decisions, new_seconds, wins, played = [], 0, 0.0, 0, 0
    for k in range(first, first + count, shard):
        chunk = seeds[k:min(k + shard, first + count)]
        path = data_dir / f"{name}_{k:06d}_{len(chunk)}.npz"
        if path.is_file():
            with np.load(path) as z:
                part = {key: z[key] for key in z.files}
        else:
            t0 = time.perf_counter()
            part, w = play(chunk, k)
            dt = time.perf_counter() - t0
            part["wins"] = np.array(w)
            np.savez_compressed(path, **part)
            decisions = len(part[keys[0]])
            new_decisions += decisions
            new_seconds += dt
            print(f"games {k}-{k + len(chunk) - 1}: {decisions} decisions in {dt:.0f} s "
                  f"({decisions / dt:.1f} decisions/s), {who} won {int(w)}/{len(chunk)}",
                  flush=True)
        part["game"] = part["game"] + k
        wins += int(part["wins"])
        played += len(chunk)
        parts.append(part)
    data = {key: np.concatenate([p[key] for p in parts]) for key in keys}
    gen = {"decisions": int(len(data[keys[0]])), "games": played, "wins": wins,
           "generated_decisions": new_decisions, "generation_seconds": round(new_seconds, 1),
           "decisions_per_second": round(new_decisions / new_seconds, 2) if new_seconds else None}
    return data, gen


def load_or_generate(a, first: int = 0, count: int | None = None, student=None,
                     tag: str = "") -> tuple[dict[str, np.ndarray], dict]:
    """The decisions of training games ``first`` to ``first + count - 1`` (default: the
    first ``a.games``), from the cache or played now; with ``student`` (named ``tag`` in the
    cache) the student plays them and the expert labels."""
    count = a.games if count is None else count
    seeds = training_seeds(first + count, a.deal_seed)
    prefix = f"dagger{a.iterations}_{tag}" if student is not None else f"expert{a.iterations}"
    return cached_shards(a.data_dir, f"{prefix}_d{a.deal_seed}", seeds, first, count, a.shard,
                         lambda chunk, k: play_games(chunk, a.iterations, student),
                         ("action", "obs", "mask", "game"),
                         "student" if student else "expert")


def train(data: dict[str, np.ndarray], a, epochs: int) -> tuple[list, dict]:
    """Train the MLP from its seed; returns its layers for ``save_mlp`` and the training
    figures. The last 5% of the expert's games (ids below ``a.games``) are held out."""
    import torch
    from torch import nn

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    held = (data["game"] >= a.games - max(1, a.games // 20)) & (data["game"] < a.games)
    X = torch.from_numpy(data["obs"].astype(np.float32))
    M = torch.from_numpy(np.unpackbits(data["mask"], axis=1)[:, :ACTIONS].astype(bool))
    Y = torch.from_numpy(data["action"].astype(np.int64))
    tr, va = torch.from_numpy(np.flatnonzero(~held)), torch.from_numpy(np.flatnonzero(held))

    sizes = [OBS] + [a.hidden] * a.layers + [ACTIONS]
    mods: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        mods.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            mods.append(nn.ReLU())
    net = nn.Sequential(*mods)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    steps = epochs * ((len(tr) + a.batch - 1) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=max(1, steps))
    gen = torch.Generator().manual_seed(a.seed)

    def agreement(idx: torch.Tensor) -> tuple[float, float]:
        net.eval()
        hits, loss = 0, 0.0
        with torch.no_grad():
            for s in range(0, len(idx), 4096):
                j = idx[s:s + 4096]
                z = net(X[j]).masked_fill(~M[j], -1e9)
                loss += float(nn.functional.cross_entropy(z, Y[j], reduction="sum"))
                hits += int((z.argmax(1) == Y[j]).sum())
        net.train()
        return hits / max(1, len(idx)), loss / max(1, len(idx))

    t0 = time.perf_counter()
    for epoch in range(epochs):
        perm = tr[torch.randperm(len(tr), generator=gen)]
        total = 0.0
        for s in range(0, len(perm), a.batch):
            j = perm[s:s + a.batch]
            z = net(X[j]).masked_fill(~M[j], -1e9)
            loss = nn.functional.cross_entropy(z, Y[j])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(j)
        acc, vloss = agreement(va)
        print(f"epoch {epoch + 1}/{epochs}: train loss {total / len(tr):.3f}, held-out "
              f"loss {vloss:.3f}, agreement with the expert {acc:.1%} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    seconds = time.perf_counter() - t0
    train_acc, _ = agreement(tr[:20000])
    linears = [m for m in net if isinstance(m, nn.Linear)]
    layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
              for m in linears]
    figures = {"train_samples": int(len(tr)), "held_out_samples": int(len(va)),
               "epochs": epochs, "train_seconds": round(seconds, 1),
               "samples_per_second": round(epochs * len(tr) / seconds, 1),
               "held_out_agreement": round(acc, 4), "train_agreement": round(train_acc, 4),
               "parameters": int(sum(p.numel() for p in net.parameters())),
               "sizes": sizes}
    return layers, figures


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=4000, help="expert games (default 4000)")
    p.add_argument("--iterations", type=int, default=16,
                   help="montecarlo's sampled positions per decision (default 16: hard)")
    p.add_argument("--deal-seed", type=int, default=20261206,
                   help="seed of the training deals' generator (never the published deals)")
    p.add_argument("--shard", type=int, default=100, help="games per cached file")
    p.add_argument("--data-dir", type=Path, default=Path("data/distill"))
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--layers", type=int, default=2, help="hidden layers")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: reproducible)")
    p.add_argument("--out", type=Path, default=Path("models/distilled_regicide.npz"))
    p.add_argument("--deals", type=int, default=100, help="benchmark deals to score it on")
    p.add_argument("--workers", type=int, default=1, help="processes for the scoring")
    p.add_argument("--dagger-games", type=int, default=0,
                   help="after a first network, the student plays this many more training "
                   "deals, the expert labelling, and the network is trained again on all")
    p.add_argument("--first-epochs", type=int, default=6, help="epochs of the first network")
    p.add_argument("--no-train", action="store_true", help="only generate the data")
    p.add_argument("--smoke", action="store_true",
                   help="a tiny run for CI: 3 games at 4 iterations, a small net, 2 deals")
    a = p.parse_args(argv)
    if a.smoke:
        a.games, a.iterations, a.shard, a.hidden, a.epochs, a.deals = 3, 4, 3, 32, 2, 2
        a.dagger_games, a.first_epochs = 2, 1
        a.data_dir = a.out.parent / (a.out.stem + "_data")

    try:
        import torch  # noqa: F401
    except ImportError as e:
        sys.exit(f"this example needs the rl extra ({e.name} is missing): "
                 "pip install -e '.[rl]'")
    from regalia.adapters.policy import mlp_policy, save_mlp

    data, gen = load_or_generate(a)
    print(f"data: {gen['decisions']} decisions of {gen['games']} games (the expert won "
          f"{gen['wins']}); generated now: {gen['generated_decisions']} at "
          f"{gen['decisions_per_second']} decisions/s", flush=True)
    if a.no_train:
        print(json.dumps({"data": gen}))
        return {"data": gen}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    dagger = None
    if a.dagger_games:
        layers, fit0 = train(data, a, a.first_epochs)
        first = a.out.with_name(a.out.stem + "_round1.npz")
        save_mlp(first, layers)
        tag = hashlib.sha1(b"".join(w.tobytes() + b.tobytes() for w, b in layers)).hexdigest()
        print(f"round 1: trained on {fit0['train_samples']} decisions x {a.first_epochs} "
              f"epochs in {fit0['train_seconds']} s, saved {first} (weights {tag[:10]}); "
              f"the student plays {a.dagger_games} more training deals", flush=True)
        more, dagger = load_or_generate(a, a.games, a.dagger_games,
                                        mlp_policy(str(first)), tag[:10])
        print(f"DAgger data: {dagger['decisions']} decisions of {dagger['games']} games (the "
              f"student won {dagger['wins']}); generated now: {dagger['generated_decisions']} "
              f"at {dagger['decisions_per_second']} decisions/s", flush=True)
        dagger["round1"] = fit0
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
    layers, fit = train(data, a, a.epochs)
    save_mlp(a.out, layers)
    print(f"trained on {fit['train_samples']} decisions x {a.epochs} epochs in "
          f"{fit['train_seconds']} s ({fit['samples_per_second']:.0f} samples/s), saved "
          f"{a.out}", flush=True)

    report = a.out.with_suffix(".eval.json")
    cmd = [sys.executable, "-c", "from regalia.cli.app import main; main()", "eval",
           "--policy", f"mlp:{a.out}", "--deals", str(a.deals), "--workers", str(a.workers),
           "--no-progress", "--out", str(report)]
    print("regalia " + " ".join(cmd[3:]), flush=True)
    subprocess.run(cmd, check=True)
    rep = json.loads(report.read_text())
    r = rep["results"]["1"]
    summary = {"data": gen, "dagger": dagger, "iterations": a.iterations, "training": fit,
               "deals": r["games"], "wins": r["wins"], "win_rate": r["win_rate"],
               "wilson95": r["wilson95"], "medals": r.get("medals"),
               "mean_enemies_defeated": r["mean_enemies_defeated"],
               "model": str(a.out), "report": str(report)}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()

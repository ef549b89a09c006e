"""Outside policies as Regalia bots, for ``regalia eval --policy`` (needs numpy only; an SB3
checkpoint needs the ``rl`` extra).

The contract: a policy is a callable ``policy(observation, action_mask) -> action id`` where
``observation`` is the float32 vector and ``action_mask`` the int8 mask of
``regalia.adapters.encoding`` (what the Gymnasium and PettingZoo environments give, from the
seat's view only), and the id one of the mask's legal ids (an ``int`` or anything ``int()``
takes, e.g. a numpy scalar). A callable that takes no argument is a factory instead: it is
called once per game and returns the policy (for a policy that keeps state within a game).

A policy is named by a spec:

* ``MODULE:NAME``: attribute ``NAME`` of the importable module ``MODULE``
  (``mypackage.agents:first_legal``), or of a Python file (``path/to/agent.py:policy``);
* ``sb3:PATH``: a model saved by Stable-Baselines3 or sb3-contrib (``model.save(PATH)``),
  played deterministically; ``MaskablePPO`` gets the mask, another algorithm's choice is the
  legal action it rates best (``PPO``/``A2C``: probability; ``DQN``: Q-value). The algorithm
  is read from the file (sb3-contrib's maskable policy: ``MaskablePPO``; a DQN policy:
  ``DQN``; otherwise ``PPO``) or given: ``sb3:A2C:PATH``;
* ``mlp:PATH``: a multilayer perceptron saved by ``save_mlp`` (a ``.npz`` of its weights,
  played with numpy alone: no torch needed), its best-rated legal id;
* ``act:PATH``: an action scorer saved by ``save_action_scorer``: a small network that rates
  each legal action from its features (``regalia.adapters.features``, the seat's view only)
  and plays the best rated (numpy alone). It is a bot of its own rather than a policy on
  the encoding: ``policy_maker`` builds an ``ActionScorerBot``.

``PolicyBot(game, spec)`` plays one seat as any bot does (``regalia.bots.Bot``: it decides
from the seat's view and legal actions alone; it states no Jester wish). ``policy_maker``
returns a picklable no-argument callable building one, for ``regalia.lab.evaluate``'s
process pools and Ray workers. Raises ``ValueError`` naming what is wrong with a spec.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from regalia.adapters import encoding as E

Policy = Callable[[np.ndarray, np.ndarray], int]

# game -> (n_actions, observation(view), action_id(view, code))
_CODECS = {
    "regicide": (E.REGICIDE_ACTIONS, E.regicide_observation, E.regicide_action_id),
    "ribauds": (E.RIBAUDS_ACTIONS, E.ribauds_observation, E.ribauds_action_id),
}
SB3_ALGOS = ("MaskablePPO", "PPO", "A2C", "DQN", "QRDQN", "TRPO", "RecurrentPPO", "ARS")
_SB3_MODELS: dict[tuple[str, str], Any] = {}  # (algo, path) -> loaded model, once a process


def _takes_two(fn: Callable) -> bool:
    """Whether ``fn`` can be called as ``fn(observation, action_mask)``."""
    try:
        inspect.signature(fn).bind(None, None)
        return True
    except TypeError:
        return False
    except ValueError:  # no signature (some builtins): take it as a policy
        return True


def _import_attr(spec: str) -> Any:
    module, sep, name = spec.rpartition(":")
    if not sep or not module or not name:
        raise ValueError(f"policy {spec!r}: give MODULE:NAME (a module or a .py file, and "
                         "the callable in it), sb3:PATH, mlp:PATH or act:PATH")
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise ValueError(f"policy {spec!r}: no file {module}")
        key = f"regalia_policy_{abs(hash(str(path.resolve())))}"
        mod = sys.modules.get(key)
        if mod is None:
            loader = importlib.util.spec_from_file_location(key, path)
            mod = importlib.util.module_from_spec(loader)
            sys.modules[key] = mod
            loader.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            raise ValueError(f"policy {spec!r}: cannot import {module} ({e})") from None
    try:
        return getattr(mod, name)
    except AttributeError:
        raise ValueError(f"policy {spec!r}: {module} has no {name}") from None


def load_policy(spec: str) -> Policy:
    """The policy of ``spec`` (see the module doc), a factory's called once; raises
    ``ValueError`` naming what is wrong."""
    if spec.startswith("sb3:"):
        return sb3_policy(spec[4:])
    if spec.startswith("mlp:"):
        return mlp_policy(spec[4:])
    if spec.startswith("act:"):
        raise ValueError(f"policy {spec!r}: an action scorer plays from the view, not from "
                         "the encoding; build it with policy_maker or ActionScorerBot")
    obj = _import_attr(spec)
    if not callable(obj):
        raise ValueError(f"policy {spec!r}: {type(obj).__name__} is not callable")
    if _takes_two(obj) and not inspect.isclass(obj):
        return obj
    made = obj()
    if not callable(made) or not _takes_two(made):
        raise ValueError(f"policy {spec!r}: a callable of no argument must return a policy "
                         "policy(observation, action_mask) -> action id")
    return made


def _sb3_algo(path: str) -> str:
    """The algorithm that saved the SB3 file at ``path``, from its policy class."""
    import json
    import zipfile

    try:
        data = json.loads(zipfile.ZipFile(path).read("data"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as e:
        raise ValueError(f"policy sb3:{path}: not a saved Stable-Baselines3 model ({e})") from None
    module = str(data.get("policy_class", {}).get("__module__", ""))
    if "maskable" in module:
        return "MaskablePPO"
    if module.endswith("dqn.policies"):
        return "QRDQN" if module.startswith("sb3_contrib") else "DQN"
    return "PPO"


def _sb3_model(algo: str, path: str) -> Any:
    key = (algo, path)
    if key not in _SB3_MODELS:
        try:
            if algo in ("MaskablePPO", "QRDQN", "TRPO", "RecurrentPPO", "ARS"):
                cls = getattr(importlib.import_module("sb3_contrib"), algo)
            else:
                cls = getattr(importlib.import_module("stable_baselines3"), algo)
        except ImportError:
            raise ValueError(f"policy sb3:{path}: needs stable-baselines3 and sb3-contrib: "
                             "pip install 'regalia[rl]' (or pip install -e '.[rl]' in a "
                             "checkout)") from None
        _SB3_MODELS[key] = cls.load(path, device="cpu")
    return _SB3_MODELS[key]


def sb3_policy(rest: str) -> Policy:
    """The deterministic policy of an SB3 model: ``rest`` is ``PATH`` or ``ALGO:PATH``."""
    algo, sep, path = rest.partition(":")
    if not sep or algo not in SB3_ALGOS:
        algo, path = "", rest
    if not Path(path).is_file():
        raise ValueError(f"policy sb3:{rest}: no file {path}")
    algo = algo or _sb3_algo(path)
    model = _sb3_model(algo, path)

    if algo == "MaskablePPO":
        def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
            action, _ = model.predict(observation, action_masks=action_mask.astype(bool),
                                      deterministic=True)
            return int(action)
        return policy

    import torch

    def scores(observation: np.ndarray) -> np.ndarray:
        obs, _ = model.policy.obs_to_tensor(observation)
        with torch.no_grad():
            if hasattr(model, "q_net"):
                return model.q_net(obs)[0].cpu().numpy()
            if hasattr(model.policy, "quantile_net"):
                return model.policy.quantile_net(obs).mean(dim=1)[0].cpu().numpy()
            return model.policy.get_distribution(obs).distribution.logits[0].cpu().numpy()

    def best_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
        s = np.where(action_mask.astype(bool), scores(observation), -np.inf)
        return int(np.argmax(s))
    return best_legal


MLP_FORMAT = "regalia-mlp/1"


def save_mlp(path: str | Path, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Save a ReLU multilayer perceptron for ``mlp:PATH`` as a ``.npz`` file at ``path``.

    ``layers``: ``(weight, bias)`` pairs, first layer first; ``weight`` of shape ``(inputs,
    outputs)``, ``bias`` ``(outputs,)``, stored as float32 (a torch ``nn.Linear``'s weight
    is the transpose: ``linear.weight.T``). Between two layers a ReLU; the last layer's
    outputs are the action scores (logits). Raises ``ValueError`` when shapes disagree.
    """
    arrays: dict[str, np.ndarray] = {"format": np.array(MLP_FORMAT)}
    width = None
    for i, (w, b) in enumerate(layers):
        w, b = np.asarray(w, np.float32), np.asarray(b, np.float32)
        if w.ndim != 2 or b.shape != (w.shape[1],) or (width is not None and w.shape[0] != width):
            raise ValueError(f"layer {i}: weight {w.shape} and bias {b.shape} do not chain")
        width = w.shape[1]
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    if width is None:
        raise ValueError("an MLP needs at least one layer")
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_mlp(path: str | Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The float32 ``(weight (inputs, outputs), bias (outputs,))`` layers saved by
    ``save_mlp``; raises ``ValueError`` for a file that is not one."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != MLP_FORMAT:
                raise ValueError(f"not a {MLP_FORMAT} file")
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32))
                      for i in range(n)]
    except (OSError, KeyError, ValueError, EOFError) as e:
        raise ValueError(f"policy mlp:{path}: not an MLP saved by save_mlp ({e})") from None
    if not layers:
        raise ValueError(f"policy mlp:{path}: no layers")
    return layers


def mlp_policy(path: str) -> Policy:
    """The deterministic policy of the MLP saved at ``path`` (``save_mlp``): the legal id of
    highest score. Raises ``ValueError`` for a missing or malformed file."""
    if not Path(path).is_file():
        raise ValueError(f"policy mlp:{path}: no file {path}")
    layers = load_mlp(path)
    last = len(layers) - 1

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        h = np.asarray(observation, np.float32)
        if h.shape != (layers[0][0].shape[0],):
            raise ValueError(f"policy mlp:{path} takes {layers[0][0].shape[0]} inputs, "
                             f"not an observation of shape {h.shape}")
        for i, (w, b) in enumerate(layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return int(np.argmax(np.where(np.asarray(action_mask, bool), h, -np.inf)))
    return policy


class PolicyBot:
    """A bot that plays ``policy`` (or the policy of ``spec``) on ``game``'s encoding; see
    the module doc. Raises ``RuntimeError`` when the policy answers an illegal id."""

    def __init__(self, game: str, spec: str, policy: Policy | None = None) -> None:
        if game not in _CODECS:
            raise ValueError(f"game {game!r}: choose regicide or ribauds")
        self.game = game
        self.spec = spec
        self.name = f"policy:{spec}"
        self.policy = policy if policy is not None else load_policy(spec)
        self.n_actions, self._observation, self._action_id = _CODECS[game]

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: Any,
            budget: float | None = None) -> int:
        ids = E.legal_ids(view, legal, self._action_id)
        mask = E.mask_of(ids, self.n_actions)
        answer = self.policy(self._observation(view), mask)
        try:
            return ids[int(answer)]
        except (KeyError, TypeError, ValueError):
            raise RuntimeError(f"policy {self.spec} answered {answer!r}, not a legal id (the "
                               f"legal ids are {sorted(ids)})") from None

    def wish(self, view: dict[str, Any], rng: Any) -> str | None:
        return None


def policy_maker(game: str, spec: str) -> Callable[[], Any]:
    """A picklable no-argument callable that builds ``PolicyBot(game, spec)`` (for
    ``act:PATH``, ``ActionScorerBot(game, PATH)``); checks the spec now (loading the policy
    once here) so that a bad one fails before any game; raises ``ValueError`` naming what is
    wrong."""
    if spec.startswith("act:"):
        ActionScorerBot(game, spec[4:])
        return functools.partial(ActionScorerBot, game, spec[4:])
    PolicyBot(game, spec)
    return functools.partial(PolicyBot, game, spec)


# ----------------------------------------------------------------------------- action scorers

ACT_FORMAT = "regalia-act/1"


def save_action_scorer(path: str | Path, game: str,
                       layers: Sequence[tuple[np.ndarray, np.ndarray]],
                       samples: int = 0) -> None:
    """Save an action scorer for ``act:PATH`` as a ``.npz`` file at ``path``.

    ``game``: ``"regicide"`` or ``"ribauds"``, whose features it reads
    (``regalia.adapters.features``: ``REGICIDE_FEATURES`` or ``RIBAUDS_FEATURES`` inputs);
    ``layers``: ReLU MLP ``(weight (inputs, outputs), bias (outputs,))`` pairs as for
    ``save_mlp``, the last with one output, the action's score; ``samples``: Ribauds, the
    sampled positions of the features' look-ahead (0: the default). The feature names are
    stored too, so that a scorer of other features is refused when loaded. Raises
    ``ValueError`` for an unknown game or shapes that do not chain or fit the features."""
    names = _feature_names(game)
    arrays: dict[str, np.ndarray] = {"format": np.array(ACT_FORMAT), "game": np.array(game),
                                     "features": np.array("\n".join(names)),
                                     "samples": np.array(int(samples))}
    width = len(names)
    for i, (w, b) in enumerate(layers):
        w, b = np.asarray(w, np.float32), np.asarray(b, np.float32)
        if w.ndim != 2 or b.shape != (w.shape[1],) or w.shape[0] != width:
            raise ValueError(f"layer {i}: weight {w.shape} and bias {b.shape} do not chain "
                             f"(inputs {width})")
        width = w.shape[1]
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    if not layers or width != 1:
        raise ValueError("an action scorer needs at least one layer and one output")
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _feature_names(game: str) -> tuple[str, ...]:
    from regalia.adapters import features as FT

    if game == "regicide":
        return FT.REGICIDE_FEATURE_NAMES
    if game == "ribauds":
        return FT.RIBAUDS_FEATURE_NAMES
    raise ValueError(f"game {game!r}: choose regicide or ribauds")


def load_action_scorer(path: str | Path) -> tuple[str, list[tuple[np.ndarray, np.ndarray]], int]:
    """``(game, layers, samples)`` of the action scorer saved by ``save_action_scorer`` at
    ``path``; raises ``ValueError`` for a missing file, a file that is not one, or one
    trained on other features than this version computes."""
    if not Path(path).is_file():
        raise ValueError(f"policy act:{path}: no file {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != ACT_FORMAT:
                raise ValueError(f"not a {ACT_FORMAT} file")
            game = str(z["game"])
            names = tuple(str(z["features"]).split("\n"))
            samples = int(z["samples"])
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32))
                      for i in range(n)]
    except (OSError, KeyError, ValueError, EOFError) as e:
        raise ValueError(f"policy act:{path}: not an action scorer saved by "
                         f"save_action_scorer ({e})") from None
    if names != _feature_names(game):
        raise ValueError(f"policy act:{path}: trained on other {game} features than "
                         "regalia.adapters.features computes now; train it again")
    if not layers:
        raise ValueError(f"policy act:{path}: no layers")
    return game, layers, samples


def score_actions(layers: Sequence[tuple[np.ndarray, np.ndarray]],
                  features: np.ndarray) -> np.ndarray:
    """The scores ``(n,)`` that the ReLU MLP ``layers`` gives the feature rows
    ``features`` ``(n, inputs)``."""
    h = np.asarray(features, np.float32)
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < last:
            np.maximum(h, 0.0, out=h)
    return h[:, 0]


class ActionScorerBot:
    """A bot that plays the legal action its action scorer (``act:PATH``) rates best, from
    the seat's view and legal actions alone (``regalia.bots.Bot``); it states no Jester
    wish. Raises ``ValueError`` for a bad file or one of another game."""

    def __init__(self, game: str, path: str) -> None:
        if game not in _CODECS:
            raise ValueError(f"game {game!r}: choose regicide or ribauds")
        trained, self.layers, self.samples = load_action_scorer(path)
        if trained != game:
            raise ValueError(f"policy act:{path}: an action scorer for {trained}, not {game}")
        self.game = game
        self.name = f"policy:act:{path}"

    def features(self, view: dict[str, Any], legal: Sequence[int], rng: Any) -> np.ndarray:
        """The feature rows ``(len(legal), inputs)`` of ``legal`` in ``view``."""
        from regalia.adapters import features as FT

        if self.game == "regicide":
            return FT.regicide_features(view, legal)
        return FT.ribauds_features(view, legal, rng, self.samples or FT.RIBAUDS_SAMPLES)

    def act(self, view: dict[str, Any], legal: Sequence[int], rng: Any,
            budget: float | None = None) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.game == "ribauds":
            from regalia.adapters import features as FT

            win = FT.ribauds_sure_win(view, legal, rng)
            if win is not None:
                return win
        scores = score_actions(self.layers, self.features(view, legal, rng))
        return legal[int(np.argmax(scores))]

    def wish(self, view: dict[str, Any], rng: Any) -> str | None:
        return None

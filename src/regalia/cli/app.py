"""The ``regalia`` command line (formats.md section 3).

Commands: ``new``, ``apply``, ``legal`` (the position contract), ``replay`` (a saved game
move by move), ``play`` (a game in the terminal), ``levels`` (the bot levels people choose
from), ``solve`` (the clairvoyant solo solver), ``analyse`` (win chances of a seat's moves
in a saved game). A refused action or position prints one
line on standard error, nothing on standard output, and exits with status 2.
"""

from __future__ import annotations

import importlib.util
import json
import random
import secrets
import sys
from pathlib import Path
from typing import Any, Literal, Optional

import typer

from regalia.cli.terminal import program
from regalia.core.errors import InvalidPosition, RegaliaError
from regalia.core.records import GameRecord, Match
from regalia.core.words import count
from regalia.games import GAME_NAMES, TITLES, get_game

from regalia.server.options import settings_options
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Regalia: Regicide and Le Roy des Ribauds, rules engines, tables and bots.")


def _version(value: bool) -> None:
    if value:
        from regalia import __version__

        typer.echo(f"regalia {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_version,
                                          is_eager=True, help="print the version and exit")) -> None:
    """Regalia: Regicide and Le Roy des Ribauds, rules engines, tables and bots."""


def _fail(message: str) -> None:
    """Print one line on standard error and exit with status 2."""
    typer.echo(" ".join(str(message).split()), err=True)
    raise typer.Exit(2)


def _print_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def _game(name: str):
    try:
        return get_game(name.lower())
    except KeyError as e:
        _fail(e.args[0])


def _parse_options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            _fail(f"--option {item!r}: write KEY=VALUE, e.g. --option solo_yield=true")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def read_position(path: str) -> tuple[Any, Any]:
    """``(game, state)`` of a position file (``-``: standard input); exits 2 when invalid."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        _fail(f"{path}: cannot read the position file ({e.strerror})")
    except UnicodeDecodeError:
        _fail(f"{path}: not a position: the file is not UTF-8 text")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        _fail(f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})")
    except RecursionError:
        _fail(f"{path}: not a position: JSON nested too deeply")
    if not isinstance(obj, dict):
        _fail("position: must be a JSON object")
    name = obj.get("game")
    if name not in GAME_NAMES:
        said = "missing" if name is None else repr(name)
        _fail(f"game: {said}; the games are {', '.join(GAME_NAMES)}")
    game = get_game(name)
    try:
        return game, game.from_json(obj)
    except RegaliaError as e:
        _fail(f"invalid position: {e}")


@app.command()
def new(game: str = typer.Argument(..., help="regicide or ribauds"),
        players: Optional[int] = typer.Option(None, help="number of players (Regicide 1-4)"),
        seed: Optional[int] = typer.Option(None, help="seed of the deal (default: random)"),
        option: list[str] = typer.Option([], help="rule option KEY=VALUE (repeatable)")) -> None:
    """Print the position of a new game."""
    g = _game(game)
    config = _parse_options(option)
    if players is not None:
        config["players"] = players
    rng = random.Random(seed if seed is not None else secrets.randbits(32))
    try:
        state = g.new_game(config, rng)
    except RegaliaError as e:
        _fail(str(e))
    _print_json(g.to_json(state))


@app.command()
def apply(position_file: str = typer.Argument(..., help="position JSON file, or - for stdin"),
          actions: list[str] = typer.Argument(..., help="actions, one argument each, e.g. 'play 5C 5D'"),
          seed: int = typer.Option(0, help="seed of the random source (Hearts, Reine, reshuffles)")) -> None:
    """Apply actions to a position and print the resulting position."""
    g, state = read_position(position_file)
    rng = random.Random(seed)
    for text in actions:
        try:
            state, _ = g.apply(state, g.action_from_text(state, text), rng)
        except RegaliaError as e:
            _fail(str(e) if str(e).startswith(text) or str(e).startswith(repr(text))
                  else f"{text}: {e}")
    _print_json(g.to_json(state))


@app.command()
def legal(position_file: str = typer.Argument(..., help="position JSON file, or - for stdin")) -> None:
    """Print every legal action of a position, one per line."""
    g, state = read_position(position_file)
    for text in g.all_legal_texts(state):
        typer.echo(text)


def _load_record(file: Path) -> GameRecord:
    """The game record in ``file``; exits 2 naming what is wrong."""
    try:
        record = GameRecord.load(file)
        get_game(record.game)
    except OSError as e:
        _fail(f"{file}: cannot read ({e.strerror})")
    except UnicodeDecodeError:
        _fail(f"{file}: not a game record: the file is not UTF-8 text")
    except (RegaliaError, KeyError) as e:
        _fail(f"{file}: {e.args[0] if isinstance(e, KeyError) else e}")
    return record


def _players(record: GameRecord) -> int:
    """How many players a record's game has (Ribauds: always 2; Regicide: 1 by default)."""
    return record.config.get("players", 2 if record.game == "ribauds" else 1)


@app.command()
def replay(file: Path = typer.Argument(..., help="a game record saved by 'regalia play --save'"),
           seat: Optional[int] = typer.Option(None, help="show the game as this player saw it, "
                                              "numbered from 1 as on screen (default: "
                                              "everything, hands included)"),
           step: Optional[bool] = typer.Option(None, "--step/--all",
                                               help="move by move at the keyboard (Enter or "
                                               "n: next, p: previous, q: quit), or the whole "
                                               "game at once (default: --step at a terminal, "
                                               "--all when piped)")) -> None:
    """Show a saved game move by move."""
    from regalia.cli.replay import ReplayScreen

    record = _load_record(file)
    players = _players(record)
    if seat is not None and not 1 <= seat <= players:
        _fail(f"--seat {seat}: give a player number from 1 to {players}")
    try:
        shown = ReplayScreen(record, None if seat is None else seat - 1)
    except RegaliaError as e:
        _fail(f"{file}: the record does not replay: {e}")
    if step is None:
        step = sys.stdin.isatty() and sys.stdout.isatty()
    if step:
        shown.step(lambda prompt: shown.console.input(prompt))
    else:
        shown.print_all()


def _bot_seats(game: Any, bots: str, bot: str, players: int) -> dict[int, Any]:
    """Seat -> bot for ``--bots`` (1-based player numbers) and ``--bot`` (a level or a bot's
    name; none: the game's default level, ``regalia.bots.default_level``); exits 2 when
    bad."""
    from regalia.bots import make_bot

    seats: dict[int, Any] = {}
    for part in filter(None, (p.strip() for p in bots.split(","))):
        if not part.isdigit() or not 1 <= int(part) <= players:
            example = "--bots 1" if players == 1 else f"--bots {players}"
            _fail(f"--bots {bots!r}: give player numbers from 1 to {players}, e.g. {example}")
        try:
            seats[int(part) - 1] = make_bot(game.name, bot or _default_level(game.name))
        except KeyError as e:
            _fail(e.args[0])
    return seats


def _default_level(game: str) -> str:
    """The bot ``regalia play`` seats without ``--bot``: the game's default level (medium in
    Le Roy des Ribauds, strongest in Regicide), else the tables' default bot."""
    from regalia.bots import default_bot, default_level

    return default_level(game) or default_bot(game)


def level_lines(game: str) -> list[str]:
    """The levels of ``game`` as ``regalia levels`` and ``regalia play``'s question list
    them: number, name, what it plays, the default marked; then the other bots' names."""
    from regalia.bots import bot_names, level_descriptions

    default = _default_level(game)
    lines = []
    for i, (name, text) in enumerate(level_descriptions(game).items(), 1):
        mark = "  (suggested)" if name == default else ""
        lines.append(f"  {i}  {name:<10} {text}{mark}")
    lines.append(f"  or a bot by its name: {', '.join(bot_names(game))}")
    return lines


def read_level(game: str, answer: str) -> str | None:
    """The bot an answer to ``regalia play``'s level question names: a level's number
    (from 1) or name, a bot's name, or nothing for the default level; ``None`` when it
    names none of them."""
    from regalia.bots import bot_choices, level_names

    answer = answer.strip().lower()
    if not answer:
        return _default_level(game)
    levels = level_names(game)
    if answer.isdigit() and 1 <= int(answer) <= len(levels):
        return levels[int(answer) - 1]
    return answer if answer in bot_choices(game) else None


def _ask_level(game: str) -> str:
    """Ask at the terminal which level the bots play at (``level_lines``) until the answer
    names one (``read_level``); the default level at the end of the input."""
    who = "the bot" if game == "ribauds" else "the bots"  # Ribauds: one opponent
    typer.echo(f"How well should {who} play? The levels of {TITLES[game]}:")
    for line in level_lines(game):
        typer.echo(line)
    while True:
        try:
            answer = input(f"Level (number or name; Enter: {_default_level(game)}): ")
        except EOFError:
            return _default_level(game)
        name = read_level(game, answer)
        if name is not None:
            return name
        typer.echo(f"{answer.strip()!r} is no level here: type a number from the list, "
                   "a level's name or a bot's name.")


def _interactive() -> bool:
    """Whether a person types at a terminal (standard input and output are terminals)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


@app.command()
def levels(game: Optional[str] = typer.Argument(None, help="regicide or ribauds (default: both)")) -> None:
    """List the bot levels (easy, medium, hard, strongest) and what each plays.

    Give one to 'regalia play' with --bot LEVEL; the bots' own names are accepted too.
    """
    from regalia.bots import level_names
    from regalia.bots.levels import level_of

    names = [_game(game).name] if game else [g for g in GAME_NAMES if level_names(g)]
    for i, name in enumerate(names):
        if i:
            typer.echo("")
        typer.echo(f"{TITLES[name]} (regalia play {name} --bot LEVEL):")
        for line in level_lines(name):
            typer.echo(line)
        configs = []
        for lv in level_names(name):
            spec = level_of(name, lv)
            params = ", ".join(f"{k}={v}" for k, v in spec.params.items())
            configs.append(f"{lv} = {spec.bot}" + (f"({params})" if params else ""))
        typer.echo("  as bots: " + ", ".join(configs))


def _resume(load: Path, game: Optional[str], players: Optional[int], seed: Optional[int],
            option: list[str]) -> tuple[Match, GameRecord]:
    """The unfinished game saved in ``load`` replayed to where it stopped, and its record;
    exits 2 when the file is no record, does not replay, is finished, or other flags
    contradict it."""
    record = _load_record(load)
    if game is not None and game.lower() != record.game:
        _fail(f"--load {load}: the saved game is {record.game}, not {game}")
    for flag, given in (("--players", players), ("--seed", seed), ("--option", option or None)):
        if given is not None:
            _fail(f"{flag}: the saved game in {load} fixes it; leave {flag} out with --load")
    try:
        match = Match.from_record(get_game(record.game), record)
    except RegaliaError as e:
        _fail(f"{load}: the record does not replay: {e}")
    if match.game.is_terminal(match.state) or record.ending is not None:
        _fail(f"{load}: this game is over; watch it with: {program()} replay {load}")
    return match, record


@app.command()
def play(game: Optional[str] = typer.Argument(None, help="regicide (default) or ribauds"),
         players: Optional[int] = typer.Option(None, help="number of players (Regicide 1-4, Ribauds 2)"),
         bots: Optional[str] = typer.Option(None, help="seats played by bots, 1-based, comma "
                                            "separated, e.g. '2,3' (Ribauds: 2)"),
         bot: str = typer.Option("", help="how the bot seats play: a level, easy, medium, "
                                           "hard or strongest ('regalia levels' describes "
                                           "them), or a bot by its name (default: asked at a "
                                           "terminal; else medium in Ribauds, strongest in "
                                           "Regicide)"),
         seed: Optional[int] = typer.Option(None, help="seed of the deal (default: random)"),
         option: list[str] = typer.Option([], help="rule option KEY=VALUE (repeatable)"),
         save: Optional[Path] = typer.Option(None, help="save the game record to this file "
                                             "(with --load: the loaded file); without it, an "
                                             "unfinished game is kept in the user's data "
                                             "directory until it is over"),
         load: Optional[Path] = typer.Option(None, help="resume the unfinished game saved in "
                                             "this file (its bots too, unless --bots is given)"),
         delay: float = typer.Option(0.0, help="seconds to pause after each bot move"),
         name: list[str] = typer.Option([], help="a human player's name, one per human seat "
                                        "in seat order (repeatable: --name Ann --name Bea); "
                                        "kept in the saved record (default: the names saved "
                                        "with --load, else 'Player N', or 'You' for the one "
                                        "human against bots)")) -> None:
    """Play a game in the terminal: humans (hot seat) and bots."""
    from regalia.bots import make_bot
    from regalia.cli.terminal import TerminalTable, is_kept, new_kept_file

    keep = None  # without --save, an unfinished game is kept in the user's data directory
    if load is not None:
        match, record = _resume(load, game, players, seed, option)
        g, players = match.game, _players(record)
        if bots is None:
            seats = {}
            for s, kind in record.bots.items():
                if not 0 <= s < players:
                    _fail(f"{load}: bots: seat {s} does not exist (seats 0 to {players - 1})")
                try:
                    seats[s] = make_bot(g.name, kind)
                except KeyError as e:
                    _fail(f"{load}: {e.args[0]}")
        else:
            seats = _bot_seats(g, bots, bot, players)
        if save is None and is_kept(load):
            keep = load  # kept by play itself: kept there again, removed once over
        else:
            save = save or load
        typer.echo(f"Resuming the {TITLES[g.name]} game saved in {load} after "
                   f"{count(len(match.actions), 'move')}.")
    else:
        g = _game(game or "regicide")
        config = _parse_options(option)
        if players is None:
            players = 2 if g.name == "ribauds" else 1
        config["players"] = players
        if bots is None:
            bots = "2" if g.name == "ribauds" else ""
        if not bot and bots.strip() and _interactive():
            bot = _ask_level(g.name)
        seats = _bot_seats(g, bots, bot, players)
        try:
            match = Match(g, config, seed if seed is not None else secrets.randbits(32))
        except (RegaliaError, InvalidPosition) as e:
            _fail(str(e))
        if save is None:
            _say_kept(g.name)
            keep = new_kept_file(g.name)
    humans = [s for s in range(players) if s not in seats]
    if name:
        names = _human_names(name, humans)
    else:
        names = ({s: n for s, n in record.names.items() if s in humans}
                 if load is not None else {})
    if any(type(b).__module__ in SEARCH_MODULES for b in seats.values()):
        _say_if_compiling("regalia.bots.regicide.policy", "the bots' search")
    TerminalTable(match, seats, delay=delay, save=save, keep=keep, names=names).run()


def _say_kept(game: str) -> None:
    """Say how to resume the unfinished games kept from before, by game: the newest of
    ``game`` (the game being started) first, then the newest of each other game."""
    import shlex

    from regalia.cli.terminal import kept_games

    first = True
    for name in sorted(GAME_NAMES, key=lambda n: n != game):
        earlier = kept_games(name)
        if not earlier:
            continue
        more = f" ({len(earlier)} of them kept)" if len(earlier) > 1 else ""
        when = "from before" if first else "too"
        typer.echo(f"An unfinished {TITLES[name]} game is kept {when}{more}; resume it with:\n"
                   f"  {program()} play --load {shlex.quote(str(earlier[0]))}")
        first = False


def _human_names(given: list[str], humans: list[int]) -> dict[int, str]:
    """Seat -> name for ``--name`` (one per human seat, in seat order); exits 2 naming a bad
    name, a name given twice or more names than human seats."""
    from regalia.cli.names import NAME_MAX, clean_name

    seats = ", ".join(str(s + 1) for s in humans) or "none"
    if len(given) > len(humans):
        _fail(f"--name: {count(len(given), 'name')} for {count(len(humans), 'human seat')} "
              f"(players {seats}); give one --name per human seat, in seat order")
    names: dict[int, str] = {}
    for seat, typed in zip(humans, given):
        clean = clean_name(typed)
        if clean is None:
            _fail(f"--name {typed!r}: a name is 1 to {NAME_MAX} characters and does not read "
                  "as a seat's label (You, Bot..., Player N, Nobody)")
        if clean.casefold() in (n.casefold() for n in names.values()):
            _fail(f"--name {typed!r}: given twice; each player needs a name of their own")
        names[seat] = clean
    return names


# Bots whose rollouts run numba-compiled code (its first use compiles it for this machine).
SEARCH_MODULES = ("regalia.bots.regicide.montecarlo", "regalia.bots.regicide.ismcts")


@app.command()
@settings_options
def serve(host: str = typer.Option("127.0.0.1", help="address to listen on"),
          port: int = typer.Option(8000, help="port to listen on"),
          database_url: Optional[str] = typer.Option(
              None, help="SQLAlchemy URL of the tables' database (default: "
                         "sqlite:///regalia.sqlite3 in the current directory; PostgreSQL "
                         "works too, e.g. postgresql+psycopg://user:pw@host/regalia)"),
          log_level: str = typer.Option("info", help="debug, info, warning or error"),
          redis_url: Optional[str] = typer.Option(
              None, help="Redis shared by the replicas of one site, e.g. redis://127.0.0.1:6379/0 "
                         "(README, \"Many processes\"); without it, one process serves alone"),
          replica: Optional[str] = typer.Option(None, help="this replica's name (default: host name and process id)"),
          forwarded_allow_ips: Optional[str] = typer.Option(
              None, help="addresses of the load balancers whose X-Forwarded-For names the client "
                         "(comma-separated, e.g. 127.0.0.1)"),
          settings: Any = None) -> None:
    """Serve the lobby and the online tables.

    In the browser at http://HOST:PORT/ (README, "Playing online" and "Limits and security").
    Every setting below may also come from the environment: REGALIA_BOT_DELAY=0.2 for
    --bot-delay (an option given wins).
    """
    from regalia.server.run import serve as run_server

    run_server(host=host, port=port, database_url=database_url, settings=settings,
               log_level=log_level, redis_url=redis_url, replica=replica,
               forwarded_allow_ips=forwarded_allow_ips)


SEARCH_BOT = {"regicide": "montecarlo", "ribauds": "ismcts"}  # regalia eval's default bots


@app.command("eval")
def eval_(game: str = typer.Option("regicide", help="regicide or ribauds"),
          players: Optional[str] = typer.Option(None, help="Regicide player counts, comma separated, e.g. 1,2,3,4 (default 1; Ribauds: always 2)"),
          bot: str = typer.Option("", help="the bot evaluated (every seat in Regicide; default: the strongest search bot, montecarlo for Regicide, ismcts for Ribauds)"),
          policy: Optional[str] = typer.Option(None, help="evaluate an outside policy instead of a bot: MODULE:NAME (or FILE.py:NAME), a callable policy(observation, action_mask) -> action id on the encoding of regalia.adapters (or a no-argument factory of one), or sb3:PATH, a saved Stable-Baselines3/sb3-contrib model (the rl extra), or mlp:PATH, a network saved by regalia.adapters.policy.save_mlp (numpy only), or act:PATH, an action scorer saved by regalia.adapters.policy.save_action_scorer (numpy only)"),
          opponent: str = typer.Option("random,heuristic", help="Ribauds: opponents, comma separated"),
          deals: int = typer.Option(100, help="how many benchmark deals (per player count)"),
          offset: int = typer.Option(0, help="skip this many deals of the set first"),
          workers: int = typer.Option(1, help="processes (or Ray CPUs with --ray local)"),
          ray: Optional[str] = typer.Option(None, "--ray", help="Ray cluster ADDRESS ('local': start one)"),
          budget: Optional[float] = typer.Option(None, help="seconds per decision (search bots)"),
          iterations: Optional[int] = typer.Option(None, help="sampled positions per decision instead of a time budget"),
          deal_file: Optional[Path] = typer.Option(None, help="deal set file (default: the published one)"),
          out: Optional[Path] = typer.Option(None, help="write the report as JSON here"),
          chart: Optional[Path] = typer.Option(None, help="write a PNG chart here"),
          progress: bool = typer.Option(True, help="show a progress bar"),
          merge: Optional[list[Path]] = typer.Option(None, help="instead of playing: merge these reports (--out files of parts of one evaluation, e.g. run with --offset); give it once per file")) -> None:
    """Play bots on the published benchmark deals and report win rates."""
    from regalia.lab import evaluate, report

    makers: dict[str, Any] = {}
    if policy is not None:
        if bot:
            _fail("--bot and --policy: give one (the policy plays the bot's seats)")
        from regalia.adapters.policy import policy_maker

        bot = f"policy:{policy}"
        try:
            makers[bot] = policy_maker(game.lower(), policy)
        except (ValueError, OSError) as e:
            _fail(str(e))
    bot = bot or SEARCH_BOT.get(game.lower(), "")
    try:
        if merge:
            rep = report.merge_reports([json.loads(Path(f).read_text()) for f in merge])
            rep["command"] = "regalia eval " + " ".join(f"--merge {f}" for f in merge)
        else:
            if game.lower() == "ribauds" and players not in (None, "2"):
                _fail(f"--players {players}: Le Roy des Ribauds is a 2-player game "
                      "(leave --players out)")
            if ray is not None and importlib.util.find_spec("ray") is None:
                _fail("--ray: Ray is not installed here; install the extra: .venv/bin/pip "
                      "install -e '.[ray]' (or leave --ray out: a process pool, --workers)")
            _check_search_options(game.lower(), bot, makers, budget, iterations)
            counts = [int(p) for p in (players or "1").split(",") if p.strip()]
            rep = report.run_eval(game.lower(), counts, bot,
                                  [o.strip() for o in opponent.split(",") if o.strip()],
                                  deals, offset, workers, ray, budget, iterations,
                                  str(deal_file) if deal_file else None, progress, makers)
    except RuntimeError as e:  # a bot or an outside policy chose an illegal action
        _fail(str(e))
    except (KeyError, ValueError, OSError) as e:
        _fail(e.args[0] if e.args else str(e))
    if out:
        evaluate.write_json(rep, out)
    if chart:
        evaluate.chart(rep, chart)
    report.print_report(rep)


def _check_search_options(game: str, bot: str, makers: dict[str, Any],
                          budget: float | None, iterations: int | None) -> None:
    """Exit with a usage error when ``--budget`` or ``--iterations`` is given for a bot that
    does not search (it would be ignored, and the report's title would claim it)."""
    from regalia.bots import bot_choices, make_bot

    flag = "--iterations" if iterations is not None else "--budget" if budget is not None \
        else None
    maker = makers.get(bot)
    if flag is None or _searches(maker() if maker is not None else make_bot(game, bot)):
        return
    search_bots = [n for n in bot_choices(game) if _searches(make_bot(game, n))]
    _fail(f"{flag}: the {bot} bot does not search, so it has no time budget or number of "
          "positions to set; leave the option out, or evaluate a search bot: "
          f"{', '.join(search_bots)}")


def _searches(bot: Any) -> bool:
    """Whether ``bot`` searches: it takes a time budget and a number of sampled positions
    (``iterations``), which ``regalia eval`` sets."""
    return hasattr(bot, "iterations")


def _say_if_compiling(module: str, what: str) -> None:
    """Tell the user (on standard error) that ``module``'s compiled code is being built,
    when numba has not cached it yet: the first run waits up to a minute in silence."""
    import importlib.util

    from regalia.fast._jit import cached

    spec = importlib.util.find_spec(module)
    if spec is not None and spec.origin and not cached(spec.origin):
        typer.echo(f"compiling {what} for this machine (first run only, up to a minute)...",
                   err=True)


@app.command()
def solve(seed: Optional[int] = typer.Option(None, help="solve the solo deal of this seed"),
          deal_file: Optional[Path] = typer.Option(None, help="deal set file (default: the published one)"),
          deals: Optional[int] = typer.Option(None, help="solve the first N solo deals of the set"),
          offset: int = typer.Option(0, help="skip this many deals of the set first"),
          time_limit: float = typer.Option(60.0, help="seconds per deal before it is left undecided"),
          medals: bool = typer.Option(True, help="after a win, search for the best medal with the time left"),
          option: list[str] = typer.Option([], help="rule option KEY=VALUE (repeatable)"),
          workers: int = typer.Option(1, help="processes solving deals side by side"),
          json_output: bool = typer.Option(False, "--json", help="print the result as JSON"),
          out: Optional[Path] = typer.Option(None, help="deal set: write the JSON report here, "
                                             "rewritten after each deal")) -> None:
    """Solve solo deals knowing the whole future.

    Per deal: winnable or not, the best medal, a winning line.
    """
    _say_if_compiling("regalia.lab.solve", "the solver")
    from regalia.lab import solve as S
    from regalia.lab import solve_set
    from regalia.lab.deals import load_deals

    if (seed is None) == (deals is None):
        _fail("give either --seed S (one deal) or --deals N (the first N of a deal set)")
    if not time_limit > 0:
        _fail(f"--time-limit {time_limit}: give a number of seconds above 0")
    if workers < 1:
        _fail(f"--workers {workers}: give 1 or more")
    options = _parse_options(option)
    if "players" in options:
        _fail("--option players: the solver is for solo deals only (players is 1)")
    if seed is not None:
        if deal_file is not None or offset:
            _fail("--deal-file and --offset go with --deals, not with --seed")
        try:
            sol = S.solve_seed(seed, options, time_limit, medals)
        except RegaliaError as e:
            _fail(str(e))
        if json_output:
            _print_json(sol.to_json())
            return
        how = "proven" if sol.medal_proven else "not proven best"
        typer.echo(f"seed {seed}: {sol.result}"
                   + (f", medal {sol.medal} ({how})" if sol.medal else "")
                   + f"; {sol.seconds:.2f} s, {sol.nodes} positions")
        if sol.line:
            typer.echo(f"winning line ({len(sol.line)} actions):")
            for text in sol.line:
                typer.echo(text)
        return
    if deals < 1 or offset < 0:
        _fail(f"--deals {deals} --offset {offset}: give --deals 1 or more and --offset 0 or more")
    try:
        seeds = load_deals("regicide", 1, str(deal_file) if deal_file else None)
    except (KeyError, OSError, ValueError) as e:
        _fail(f"{deal_file}: {e.args[-1] if isinstance(e, OSError) else e.args[0]}")
    if offset + deals > len(seeds):
        _fail(f"--deals {deals} --offset {offset}: the set has {len(seeds)} solo deals")
    chosen = seeds[offset:offset + deals]
    so_far: list[dict] = []

    def progress(r: dict) -> None:
        so_far.append(r)
        if out:
            rep = solve_set.summarize(sorted(so_far, key=lambda x: x["index"]), time_limit,
                                      medals, options)
            out.write_text(json.dumps(rep, indent=1) + "\n")
        if not json_output:
            typer.echo(f"{len(so_far)}/{deals} seed {r['seed']}: {r['result']}"
                       + (f" {r['medal']}" if r["medal"] else "") + f" {r['seconds']:.2f} s",
                       err=True)

    try:
        results = solve_set.solve_seeds(chosen, options, time_limit, medals, workers, progress)
    except RegaliaError as e:
        _fail(str(e))
    rep = solve_set.summarize(results, time_limit, medals, options)
    if json_output:
        _print_json(rep)
    else:
        for line in solve_set.report_lines(rep):
            typer.echo(line)


@app.command()
def analyse(file: Path = typer.Argument(..., help="a Regicide game record saved by 'regalia play --save'"),
            seat: int = typer.Option(1, help="whose decisions, numbered from 1 as on screen"),
            worlds: int = typer.Option(200, help="positions sampled from the seat's view per decision "
                                        "(half choose the best move, half estimate the chances)"),
            candidates: int = typer.Option(8, help="moves the policy proposes beside the one played"),
            seed: int = typer.Option(0, help="seed of the sampling"),
            json_output: bool = typer.Option(False, "--json", help="print the analysis as JSON")) -> None:
    """Analyse a saved game's moves.

    Each move's win chance and the best move's, from the seat's view; the costliest marked.
    """
    from regalia.games.regicide.describe import cards_words
    from regalia.lab.analyse import analyse_record

    try:
        record = GameRecord.load(file)
    except OSError as e:
        _fail(f"{file}: cannot read ({e.strerror})")
    except RegaliaError as e:
        _fail(f"{file}: {e}")
    if record.game != "regicide":
        _fail(f"{file}: analysis is for Regicide records, this one is {record.game!r}")
    players = record.config.get("players", 1)
    if not isinstance(players, int) or not 1 <= seat <= players:
        _fail(f"--seat {seat}: give a player number from 1 to {players}")
    if candidates < 1 or worlds < 2:
        _fail(f"--candidates {candidates} --worlds {worlds}: give --candidates 1 or more "
              "and --worlds 2 or more")
    try:
        decisions = analyse_record(record, seat - 1, worlds, candidates, seed)
    except RegaliaError as e:
        _fail(f"{file}: the record does not replay: {e}")
    if json_output:
        _print_json({"seat": seat, "worlds": worlds, "candidates": candidates, "seed": seed,
                     "decisions": [d.to_json() for d in decisions]})
        return
    typer.echo(f"player {seat}: {len(decisions)} decisions with a choice; win chance of the "
               f"move played and of the best move ({worlds} positions sampled from the "
               f"player's view each: half pick the best move, the other {worlds - worlds // 2} "
               f"estimate both chances, each with its 95% interval); ! marks the three costliest "
               f"mistakes: 5 points lost or more, and the loss's own interval above zero")
    def words(action: str) -> str:  # "play TC 5C" -> "play 10♣ 5♣", as the log writes cards
        verb, *rest = action.split()
        try:
            return " ".join([verb, cards_words(rest)]) if verb in ("play", "discard") else action
        except (RegaliaError, ValueError):
            return action

    steps = {"play": "step 1", "suffer": "step 4", "choose": "Jester"}  # the rules' words
    for d in decisions:
        typer.echo(f"{'!' if d.marked else ' '} {d.index + 1:3d} {steps.get(d.phase, d.phase):7s} "
                   f"{words(d.played):22s} {100 * d.played_win:5.1f}% {span(d.played_range):9s} "
                   f"best {words(d.best):22s} {100 * d.best_win:5.1f}% {span(d.best_range):9s}"
                   + (f"  ({100 * d.cost:.1f} points lost, interval {span(d.cost_range)[1:]}"
                      if d.cost else ""))


def span(r: tuple[float, float]) -> str:
    """A 95% interval ``(low, high)`` of chances or of their difference (fractions) as
    ``analyse`` prints it, in points: ``"(9-22)"``, or ``"(-6 to 20)"`` when it reaches
    below zero (a loss that may be none)."""
    lo, hi = round(100 * r[0]), round(100 * r[1])
    return f"({lo}-{hi})" if lo >= 0 else f"({lo} to {hi})"


def main() -> None:
    """Entry point of the ``regalia`` command.

    Usage errors (a missing argument, an unknown flag) print one line on standard error
    and exit with status 2, like refused actions.
    """
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        raise SystemExit(1) from None
    except typer.TyperException as e:  # usage errors: missing argument, unknown flag
        ctx = getattr(e, "ctx", None)
        hint = f" (see: regalia {ctx.command.name} --help)" if ctx and ctx.command.name else ""
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        typer.echo(" ".join(f"{message}{hint}".split()), err=True)
        raise SystemExit(getattr(e, "exit_code", 2)) from None
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()

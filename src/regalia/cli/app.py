"""The ``regalia`` command line (formats.md section 3).

Commands: ``new``, ``apply``, ``legal`` (the position contract), ``replay`` (a saved game
move by move), ``play`` (a game in the terminal). A refused action or position prints one
line on standard error, nothing on standard output, and exits with status 2.
"""

from __future__ import annotations

import json
import random
import secrets
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from regalia.core.errors import InvalidPosition, RegaliaError
from regalia.core.records import GameRecord, Match
from regalia.games import GAME_NAMES, get_game

from regalia.server.settings import Settings as _Settings

_SETTINGS = _Settings()
app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Regalia: Regicide and Le Roy des Ribauds, rules engines, tables and bots.")


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
        _fail(f"game: {name!r}; the games are {', '.join(GAME_NAMES)}")
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


@app.command()
def replay(file: Path = typer.Argument(..., help="a game record saved by 'regalia play --save'"),
           seat: Optional[int] = typer.Option(None, help="show the game as this player saw it, "
                                              "numbered from 1 as on screen (default: "
                                              "everything, hands included)")) -> None:
    """Show a saved game move by move."""
    from regalia.cli.terminal import show_replay

    try:
        record = GameRecord.load(file)
        get_game(record.game)
    except OSError as e:
        _fail(f"{file}: cannot read ({e.strerror})")
    except (RegaliaError, KeyError) as e:
        _fail(f"{file}: {e}")
    players = record.config.get("players", 2 if record.game == "ribauds" else 1)
    if seat is not None and not 1 <= seat <= players:
        _fail(f"--seat {seat}: give a player number from 1 to {players}")
    try:
        show_replay(record, None if seat is None else seat - 1)
    except RegaliaError as e:
        _fail(f"{file}: the record does not replay: {e}")


@app.command()
def play(game: str = typer.Argument("regicide", help="regicide or ribauds"),
         players: Optional[int] = typer.Option(None, help="number of players (Regicide 1-4, Ribauds 2)"),
         bots: str = typer.Option("", help="seats played by bots, 1-based, comma separated, e.g. '2,3'"),
         bot: str = typer.Option("heuristic", help="which bot plays the bot seats"),
         seed: Optional[int] = typer.Option(None, help="seed of the deal (default: random)"),
         option: list[str] = typer.Option([], help="rule option KEY=VALUE (repeatable)"),
         save: Optional[Path] = typer.Option(None, help="save the game record to this file"),
         delay: float = typer.Option(0.0, help="seconds to pause after each bot move")) -> None:
    """Play a game in the terminal: humans (hot seat) and bots."""
    from regalia.bots import make_bot
    from regalia.cli.terminal import TerminalTable

    g = _game(game)
    config = _parse_options(option)
    if players is None:
        players = 2 if g.name == "ribauds" else 1
    config["players"] = players
    if g.name == "ribauds" and not bots:
        bots = "2"
    seats: dict[int, Any] = {}
    for part in filter(None, (p.strip() for p in bots.split(","))):
        if not part.isdigit() or not 1 <= int(part) <= players:
            example = "--bots 1" if players == 1 else f"--bots {players}"
            _fail(f"--bots {bots!r}: give player numbers from 1 to {players}, e.g. {example}")
        try:
            seats[int(part) - 1] = make_bot(g.name, bot)
        except KeyError as e:
            _fail(e.args[0])
    try:
        match = Match(g, config, seed if seed is not None else secrets.randbits(32))
    except (RegaliaError, InvalidPosition) as e:
        _fail(str(e))
    TerminalTable(match, seats, delay=delay, save=save).run()


@app.command()
def serve(host: str = typer.Option("127.0.0.1", help="address to listen on"),
          port: int = typer.Option(8000, help="port to listen on"),
          database_url: Optional[str] = typer.Option(
              None, help="SQLAlchemy URL of the tables' database (default: "
                         "sqlite:///regalia.sqlite3 in the current directory; PostgreSQL "
                         "works too, e.g. postgresql+psycopg://user:pw@host/regalia)"),
          log_level: str = typer.Option("info", help="debug, info, warning or error"),
          bot_delay: float = typer.Option(0.6, help="seconds a bot waits before it acts"),
          bot_budget: float = typer.Option(0.5, help="seconds of search per bot decision"),
          bot_workers: int = typer.Option(_SETTINGS.bot_workers, help="bot decisions at once (worker processes)"),
          bot_threads: bool = typer.Option(False, help="bots think in threads, not processes"),
          max_body: int = typer.Option(_SETTINGS.max_body, help="bytes of an HTTP request body (413 above)"),
          ws_message_max: int = typer.Option(_SETTINGS.ws_message_max, help="characters of a websocket message"),
          table_rate: str = typer.Option(_SETTINGS.table_rate, help="tables created per client address"),
          message_rate: str = typer.Option(_SETTINGS.message_rate, help="websocket messages per client address"),
          talk_rate: str = typer.Option(_SETTINGS.talk_rate, help="table messages per seat"),
          connections_per_address: int = typer.Option(_SETTINGS.connections_per_address, help="open websockets per client address"),
          spectators_per_table: int = typer.Option(_SETTINGS.spectators_per_table, help="spectators per table"),
          send_queue: int = typer.Option(_SETTINGS.send_queue, help="unread messages before a slow client is closed"),
          idle_unload: float = typer.Option(_SETTINGS.idle_unload, help="seconds an idle table stays in memory"),
          abandon_after_days: float = typer.Option(_SETTINGS.abandon_after_days, help="days without a move before a table expires"),
          write_timeout: float = typer.Option(_SETTINGS.write_timeout, help="seconds a database write may take before it is refused"),
          allowed_origin: list[str] = typer.Option([], help="another site allowed to open websockets (repeatable)"),
          join_rate: str = typer.Option(_SETTINGS.join_rate, help="seats taken at open tables per client address"),
          open_list_max: int = typer.Option(_SETTINGS.open_list_max, help="open tables listed in the lobby"),
          clock_presets: str = typer.Option(_SETTINGS.clock_presets, help="time controls NAME=BANK+INCREMENT seconds, comma-separated")) -> None:
    """Serve the lobby and the online tables in the browser (README, "Limits and security")."""
    from regalia.server.run import serve as run_server
    from regalia.server.settings import Settings

    try:
        settings = Settings(bot_delay=bot_delay, bot_budget=bot_budget, bot_workers=bot_workers,
                            bot_processes=not bot_threads, max_body=max_body,
                            ws_message_max=ws_message_max, table_rate=table_rate,
                            message_rate=message_rate, talk_rate=talk_rate,
                            connections_per_address=connections_per_address,
                            spectators_per_table=spectators_per_table, send_queue=send_queue,
                            idle_unload=idle_unload, abandon_after_days=abandon_after_days,
                            write_timeout=write_timeout, allowed_origins=tuple(allowed_origin),
                            join_rate=join_rate, open_list_max=open_list_max,
                            clock_presets=clock_presets)
    except ValueError as e:
        _fail(f"regalia serve: {e}")
    run_server(host=host, port=port, database_url=database_url, settings=settings,
               log_level=log_level)


@app.command("eval")
def eval_(game: str = typer.Option("regicide", help="regicide or ribauds"),
          players: str = typer.Option("1", help="Regicide player counts, comma separated, e.g. 1,2,3,4"),
          bot: str = typer.Option("ismcts", help="the bot evaluated (every seat in Regicide)"),
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
          progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    """Play bots on the published benchmark deals and report win rates."""
    from regalia.sim import evaluate, report

    try:
        counts = [int(p) for p in players.split(",") if p.strip()]
        rep = report.run_eval(game.lower(), counts, bot, [o.strip() for o in opponent.split(",") if o.strip()],
                              deals, offset, workers, ray, budget, iterations,
                              str(deal_file) if deal_file else None, progress)
    except (KeyError, ValueError, OSError) as e:
        _fail(e.args[0] if e.args else str(e))
    if out:
        evaluate.write_json(rep, out)
    if chart:
        evaluate.chart(rep, chart)
    report.print_report(rep)


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

"""One ``Settings``: read from ``REGALIA_*`` environment variables, and by ``regalia
serve``, whose setting options are made from its fields (an option given wins)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

import regalia.server.run as run
from regalia.cli.app import app as cli
from regalia.server.options import specs
from regalia.server.settings import Settings


@pytest.fixture
def served(monkeypatch):
    """The ``Settings`` that ``regalia serve ARGS`` would run with (no server started)."""
    got = {}
    monkeypatch.setattr(run, "serve", lambda **kw: got.update(kw))
    for name in Settings.names():
        monkeypatch.delenv(f"REGALIA_{name.upper()}", raising=False)

    def serve(*args: str, env: dict[str, str] | None = None) -> Settings:
        got.clear()
        for k, v in (env or {}).items():
            monkeypatch.setenv(k, v)
        r = CliRunner().invoke(cli, ["serve", *args])
        assert r.exit_code == 0, r.output
        return got["settings"]
    return serve


def test_an_environment_variable_sets_a_field(monkeypatch):
    monkeypatch.setenv("REGALIA_BOT_DELAY", "0.2")
    monkeypatch.setenv("REGALIA_ALLOWED_ORIGINS", '["https://a.example"]')
    s = Settings()
    assert s.bot_delay == 0.2 and s.allowed_origins == ("https://a.example",)
    assert Settings(bot_delay=1).bot_delay == 1  # a keyword wins
    monkeypatch.setenv("REGALIA_TABLE_RATE", "often")
    with pytest.raises(ValueError, match="table_rate: a rate like '20/minute', not 'often'"):
        Settings()


def test_settings_are_immutable_and_checked():
    s = Settings()
    with pytest.raises(ValueError):
        s.bot_delay = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="send_queue: must not be negative"):
        Settings(send_queue=-1)
    with pytest.raises(ValueError, match="bot_workers: at least 1"):
        Settings(bot_workers=0)
    assert s.but(bot_delay=0).bot_delay == 0 and s.bot_delay == 0.6


def test_serve_reads_the_environment_and_its_options_win(served):
    assert served().bot_delay == 0.6
    assert served(env={"REGALIA_BOT_DELAY": "0.2"}).bot_delay == 0.2
    assert served("--bot-delay", "0.3").bot_delay == 0.3  # the environment is still 0.2
    s = served("--bot-threads", "--allowed-origin", "https://a.example",
               "--allowed-origin", "https://b.example", "--sqlite-sync", "normal",
               "--table-rate", "5/minute", "--ws-compression")
    assert not s.bot_processes and s.allowed_origins == ("https://a.example", "https://b.example")
    assert s.sqlite_sync == "normal" and s.table_rate == "5/minute" and s.ws_compression
    assert served("--no-bot-threads", env={"REGALIA_BOT_PROCESSES": "false"}).bot_processes


def test_a_bad_setting_is_one_line_and_status_2(served):
    r = CliRunner().invoke(cli, ["serve", "--table-rate", "often"])
    assert r.exit_code == 2
    assert "regalia serve: table_rate: a rate like '20/minute', not 'often'" in r.output


def test_serve_help_lists_an_option_for_every_field():
    r = CliRunner().invoke(cli, ["serve", "--help"], terminal_width=200)
    assert r.exit_code == 0
    assert {s.field for s in specs()} == set(Settings.names())
    for spec in specs():
        assert spec.flag in r.output, spec
    for flag in ("--bot-threads", "--allowed-origin", "--host", "--port", "--database-url",
                 "--redis-url", "--replica", "--forwarded-allow-ips", "--log-level"):
        assert flag in r.output, flag


HEAVY = ("sqlalchemy", "numba")
LOADED = ("import sys\n{body}\n"
          "print('HEAVY:', *sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})))")


def loaded_after(body: str) -> str:
    """The heavy packages a fresh interpreter holds after running ``body``."""
    code = LOADED.format(body=body, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return out[out.rindex("HEAVY:") + 6:].strip()


def test_settings_import_neither_the_database_layer_nor_numba():
    assert loaded_after("import regalia.server.settings, regalia.server.options") == ""


@pytest.mark.parametrize("args", [["--help"], ["serve", "--help"]])
def test_the_help_imports_neither_the_database_layer_nor_numba(args):
    body = (f"sys.argv = ['regalia', *{args!r}]\nfrom regalia.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")
    assert loaded_after(body) == ""

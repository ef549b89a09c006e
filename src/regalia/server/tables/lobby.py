"""The lobby's open tables (``Lobby``, a part of the table registry): the list of open
tables with free seats (``GET /api/open``), a fair mix of their creators, and each
creator's share of it (``open_tables_per_address``, counted in the database, so on every
replica; a creator is a hash of the address: ``creation.creator_key``).
"""

from __future__ import annotations

from typing import Any

from regalia.server.refusal import Refusal
from regalia.server.settings import Settings
from regalia.server.storage.models import HUMAN, now
from regalia.server.storage.store import Store, reason
from regalia.server.storage.writer import Writer


class Lobby:
    """The open tables of one server, read from ``store`` on the database thread of
    ``writer`` (a failed read is its ``store_error``), as ``settings`` lists and caps them
    (``open_list_max``, ``open_tables_per_address``)."""

    def __init__(self, store: Store, writer: Writer, settings: Settings) -> None:
        self.store = store
        self.writer = writer
        self.settings = settings

    async def check_cap(self, creator: str) -> None:
        """Raises ``Refusal("too_many_open")`` when ``creator`` has its share of the lobby's
        list (``open_tables_per_address``; 0: no cap)."""
        cap = self.settings.open_tables_per_address
        if cap <= 0:
            return
        try:
            listed = await self.writer.db(self.store.open_tables_of, creator)
        except Exception as e:
            self.writer.failed(reason(e))
            raise Refusal("storage", "the server's database cannot be read now; "
                                     "try again later") from None
        if listed >= cap:
            raise Refusal("too_many_open", f"at most {cap} open tables per address wait in "
                                           "the lobby: wait until players join one, or "
                                           "create a private table and send its links")

    async def open_tables(self) -> list[dict[str, Any]]:
        """The lobby's list of open tables with free seats (``GET /api/open``), a fair mix
        of their creators (``Store.open_tables``: each one's newest first)."""
        try:
            rows = await self.writer.db(self.store.open_tables, self.settings.open_list_max,
                                        max(1, self.settings.open_tables_per_address))
        except Exception as e:
            self.writer.failed(reason(e))
            raise Refusal("storage", "the server's database cannot be read now; "
                                     "try again later") from None
        t = now()
        out = []
        for r in rows:
            out.append({
                "id": r["id"], "game": r["game"], "players": r["config"]["players"],
                "free": sum(1 for s in r["seats"] if s["kind"] == HUMAN and not s["claimed"]),
                "options": {k: v for k, v in r["config"].items() if k != "players"},
                "clock": r["clock"],
                "seats": [{"seat": s["seat"], "kind": s["kind"], "bot": s["bot"],
                           "name": s["name"] if s["claimed"] else None,
                           "free": s["kind"] == HUMAN and not s["claimed"]} for s in r["seats"]],
                "waited_s": max(0, int((t - r["created_at"]).total_seconds())),
                "rated": r["rated"],
            })
        return out

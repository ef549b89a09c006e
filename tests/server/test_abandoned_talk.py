"""An abandoned table (no move for ``abandon_after_days``) is kept to be read, its talk too:
it accepts no more talk, as it accepts no more moves."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from regalia.server.storage.models import GameTable, now
from server_helpers import join, new_table, running_app


def test_an_abandoned_table_refuses_talk_and_keeps_what_was_said(db_url):
    with running_app(db_url) as c:
        say = new_table(c, "regicide", ["human", "human"])
        chat = new_table(c, "ribauds", ["human", "human"])
        p = join(c, say, 0)
        p.send({"type": "say", "message_id": "hello"})
        p.recv_until(lambda m: m["type"] == "talk")
        store = c.app.state.manager.store
    with store.engine.begin() as conn:
        conn.execute(update(GameTable).values(updated_at=now() - timedelta(days=31)))
    with running_app(db_url, abandon_after_days=30) as c:
        p = join(c, say, 0)
        assert p.state["expired"] is True
        history = p.recv_until(lambda m: m["type"] == "talk_history")
        assert [m["message_id"] for m in history["messages"]] == ["hello"]
        p.send({"type": "say", "message_id": "tavern_size"})
        err = p.recv_until(lambda m: m["type"] in ("error", "talk"))
        assert err["type"] == "error" and err["code"] == "expired", err
        assert "abandoned" in err["message"] and "talk" in err["message"]
        q = join(c, chat, 1)
        q.send({"type": "chat", "text": "still here?"})
        err = q.recv_until(lambda m: m["type"] in ("error", "talk"))
        assert err["type"] == "error" and err["code"] == "expired", err
        stored = c.app.state.manager.store.load_table(say["id"]).messages
        assert [m.get("message_id") for m in stored] == ["hello"]

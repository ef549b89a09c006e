"""Names: a nickname per seat, given in ``hello`` or at creation,
changed with a ``name`` message, cleaned and limited by the server, kept in the database and
shown in the seat list and the replay."""

from __future__ import annotations

import time

from regalia.server.tables import gamekit
from server_helpers import Peer, join, new_table, running_app


def seats_of(peer: Peer, pred) -> list[dict]:
    return peer.recv_until(lambda m: m["type"] in ("seats", "state") and pred(m["seats"]))["seats"]


def test_hello_names_the_seat_and_everyone_sees_it(client):
    d = new_table(client, "ribauds", ["human", "human"])
    a = Peer(client, d["id"], d["seats"][0]["token"], "a")
    a.ws.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "x"})  # ignored
    a.recv_until(lambda m: m["type"] == "state")
    with client.websocket_connect(f"/ws/{d['id']}") as b:
        b.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "  Bea \n Maria "})
        seats = seats_of(a, lambda s: s[1]["name"] is not None)
    assert seats[1]["name"] == "Bea Maria" and seats[1]["claimed"] and seats[0]["name"] is None


def test_names_are_cleaned_limited_and_a_bad_one_is_refused_with_nothing_changed(client):
    d = new_table(client, "ribauds", ["human", "human"])
    a = join(client, d, 0)
    a.send({"type": "name", "name": "<b>Zé</b>\x07  da\tSilva"})
    seats = seats_of(a, lambda s: s[0]["name"])
    assert seats[0]["name"] == "<b>Zé</b> da Silva"  # text, shown as text by the pages
    for bad in ("", "   ", "x" * 25, 7, None, "\ud800", "\ufeff", "\u200b \u202e", "\u3164",
                "\u2800", "\u034f\ufe0f", "\u0300"):
        a.send({"type": "name", "name": bad})
        err = a.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "bad_message" and "1 to 24" in err["message"]
    assert client.get(f"/api/tables/{d['id']}").json()["seats"][0]["name"] == "<b>Zé</b> da Silva"
    spec = join(client, d, None)
    spec.send({"type": "name", "name": "Eve"})
    assert spec.recv_until(lambda m: m["type"] == "error")["code"] == "spectator"


def test_a_too_long_name_in_hello_leaves_the_name_as_it_was(client):
    d = new_table(client, "regicide", ["human"])
    p = Peer(client, d["id"], d["seats"][0]["token"])
    p.ws.send_json({"type": "hello", "token": d["seats"][0]["token"], "name": "y" * 40})
    st = p.recv_until(lambda m: m["type"] == "state")
    assert st["seats"][0]["name"] is None and not p.errors()


def test_the_creator_names_seat_one_and_names_survive_a_restart(db_url):
    with running_app(db_url) as c:
        r = c.post("/api/tables", json={"game": "regicide", "players": 2, "name": "Olga",
                                        "seats": [{"kind": "human"}, {"kind": "bot"}]})
        assert r.status_code == 201
        tid = r.json()["id"]
        seats = c.get(f"/api/tables/{tid}").json()["seats"]
        assert seats[0]["name"] == "Olga" and seats[1]["name"] is None
        bad = c.post("/api/tables", json={"game": "regicide", "players": 1, "name": "z" * 30,
                                          "seats": [{"kind": "human"}]})
        assert bad.status_code == 400 and "name" in bad.json()["error"]
    with running_app(db_url) as c:
        assert c.get(f"/api/tables/{tid}").json()["seats"][0]["name"] == "Olga"


def test_the_replay_names_the_seats(client):
    r = client.post("/api/tables", json={"game": "regicide", "players": 2, "name": "Ivo",
                                         "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]})
    d = r.json()
    p = join(client, d, 0)
    from server_helpers import play_randomly
    import random

    spec = join(client, d, None)
    play_randomly({0: p}, spec, random.Random(1), chatter=False)
    rep = client.get(f"/api/tables/{d['id']}/replay").json()
    assert rep["seats"][0]["name"] == "Ivo" and rep["seats"][1]["bot"] == "random"


def test_invisible_formatting_characters_leave_names_and_chat(client):
    """Direction overrides, zero-width spaces and the byte-order mark could make a name look
    like another or blank: removed; the joiners of emoji and scripts stay."""
    d = new_table(client, "ribauds", ["human", "human"])
    a, b = join(client, d, 0), join(client, d, 1)
    a.send({"type": "name", "name": "Ana\u202e\u200bbel \ufeff\U0001F468\u200d\U0001F469"})
    assert seats_of(b, lambda s: s[0]["name"])[0]["name"] == "Anabel \U0001F468\u200d\U0001F469"
    a.send({"type": "chat", "text": "\u2066hi\u2069 there"})
    assert b.recv_until(lambda m: m["type"] == "talk")["text"] == "hi there"
    a.send({"type": "chat", "text": "\u200b\ufeff"})
    assert a.recv_until(lambda m: m["type"] == "error")["code"] == "bad_message"


def test_regicide_names_are_fixed_from_the_first_move_to_the_end(client):
    """Rules 1.15: a name could tell what is in a hand (dealt from the start), so a seat is
    named by its first hello, before its hand is seen, and keeps the name until the end; a
    hello with another name keeps the held seat's."""
    d = new_table(client, "regicide", ["human", "human"], seed=3)
    a, b = join(client, d, 0, name="Before"), join(client, d, 1, name="Bea")
    assert b.state["seats"][0]["name"] == "Before" or seats_of(b, lambda s: s[0]["name"] == "Before")
    a.send({"type": "name", "name": "I hold the Jester"})  # before the first move too
    assert a.recv_until(lambda m: m["type"] == "error")["code"] == "name_fixed"
    mover = a if a.state["current"] == 0 else b
    mover.act("yield" if "yield" in mover.state["legal"] else mover.state["legal"][0])
    a.state_at(1)
    a.send({"type": "name", "name": "hold AD AS 3C"})
    err = a.recv_until(lambda m: m["type"] == "error")
    assert err["code"] == "name_fixed" and "rules 1.15" in err["message"]
    with client.websocket_connect(f"/ws/{d['id']}") as again:
        again.send_json({"type": "hello", "token": d["seats"][0]["token"], "name": "hold 5H"})
        while (m := again.receive_json())["type"] != "state":
            assert m["type"] != "error", m
        assert m["seats"][0]["name"] == "Before"
    assert client.get(f"/api/tables/{d['id']}").json()["seats"][0]["name"] == "Before"


def test_a_regicide_seat_without_a_name_is_not_shown_its_hand(client):
    """A seat first claimed without a name could name itself after reading its hand, e.g.
    "hv AD AS 2C 6C" (a probe's finding): its hello is refused (name_needed, close 4401)
    before anything of the table is sent; with a valid name the seat is named and seated.
    Solo tables, Ribauds (free chat) and spectators ask no name."""
    d = new_table(client, "regicide", ["human", "human", "human"])
    for bad in (None, "", "   ", "x" * 40, 7):
        with client.websocket_connect(f"/ws/{d['id']}") as ws:
            ws.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": bad})
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "name_needed", (bad, err)
            assert "before its hand is seen" in err["message"] and "rules 1.15" in err["message"]
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4401
    assert client.get(f"/api/tables/{d['id']}").json()["seats"][1]["name"] is None
    b = join(client, d, 1, name="Bia")
    assert b.state["seats"][1]["name"] == "Bia" and b.state["seats"][1]["name_fixed"]
    b.send({"type": "name", "name": "hv AD AS"})
    assert b.recv_until(lambda m: m["type"] == "error")["code"] == "name_fixed"
    spectator = join(client, d, None)
    assert spectator.state["seats"][1]["name"] == "Bia"
    for game, seats in (("regicide", ["human"]), ("ribauds", ["human", "human"])):
        alone = new_table(client, game, seats)
        assert join(client, alone, 0, name=None).state["seats"][0]["name"] is None


def test_renames_count_with_the_talk_in_hello_too(db_url):
    with running_app(db_url, talk_rate="2/minute") as c:
        d = new_table(c, "ribauds", ["human", "human"])
        a = join(c, d, 0)
        for k in range(2):
            a.send({"type": "name", "name": f"N{k}"})
            seats_of(a, lambda s, k=k: s[0]["name"] == f"N{k}")
        a.send({"type": "name", "name": "N2"})
        assert a.recv_until(lambda m: m["type"] == "error")["code"] == "too_fast"
        with c.websocket_connect(f"/ws/{d['id']}") as again:  # a reconnection's new name
            again.send_json({"type": "hello", "token": d["seats"][0]["token"], "name": "N3"})
            while (m := again.receive_json())["type"] != "state":
                pass
            assert m["seats"][0]["name"] == "N1"  # kept: the name waits for the limit
        assert c.get(f"/api/tables/{d['id']}").json()["seats"][0]["name"] == "N1"


def test_a_first_name_given_meanwhile_elsewhere_is_kept(client):
    """Another replica may have named the seat since this one read it (its hello and the
    hand seen there): the stored first name stands, and this hello is asked to reconnect."""
    d = new_table(client, "regicide", ["human", "human"])
    join(client, d, 0)  # the table is loaded, seat 1 without a name
    client.app.state.manager.store.update_seat(d["id"], 1, claimed=True, name="Ann")
    with client.websocket_connect(f"/ws/{d['id']}") as ws:
        ws.send_json({"type": "hello", "token": d["seats"][1]["token"], "name": "hv AD AS"})
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "stale", err
        assert ws.receive()["type"] == "websocket.close"
    assert client.app.state.manager.store.load_table(d["id"]).seats[1].name == "Ann"
    table = client.app.state.manager.tables[d["id"]]
    for _ in range(100):  # the refusal asked for the table to be read again
        if table.seats[1].name == "Ann":
            break
        time.sleep(0.02)
    b = join(client, d, 1, name="hv AD AS")  # read again: the name given first stays
    assert b.state["seats"][1]["name"] == "Ann"


def test_a_name_that_reads_as_a_bot_or_a_seat_label_is_refused(client):
    """A person called "Bot (ismcts)" was listed in the lobby as a bot, and "Player 2" as an
    empty seat: names that read as the pages' labels (any case or width, in the site's
    languages) are refused, and C1 control characters are cleaned as C0 ones are."""
    d = new_table(client, "ribauds", ["human", "human"])
    a = join(client, d, 0)
    for bad in ("Bot (ismcts)", "bot", "BOT 2 (heuristic)", "\uff22\uff4f\uff54", "Player 2",
                "player2", "Jogador 1", "Jugador 3", "Seat 1", "Nobody", "ninguém"):
        a.send({"type": "name", "name": bad})
        err = a.recv_until(lambda m: m["type"] == "error")
        assert err["code"] == "bad_message" and "Bot..., Player N" in err["message"], bad
    assert client.get(f"/api/tables/{d['id']}").json()["seats"][0]["name"] is None
    a.send({"type": "name", "name": "Ann\u0085\u009fLee"})
    assert seats_of(a, lambda s: s[0]["name"])[0]["name"] == "Ann Lee"
    for fine in ("Botafogo", "Robot Rick", "Players United", "Abbot"):
        assert gamekit.clean_name(fine) == fine
    r = client.post("/api/tables", json={"game": "ribauds", "open": True, "name": "Bot (x)"})
    assert r.status_code == 400 and "Bot..., Player N" in r.json()["error"]

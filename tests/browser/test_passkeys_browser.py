"""Passkeys in the browser, with Chromium's virtual authenticator (DevTools' WebAuthn
domain: a platform authenticator that keeps discoverable passkeys and verifies its user):
an account created with a passkey and no password, signing out and in again with it, the
profile's list of passkeys (its last one stays), and the account deleted with a passkey.

WebAuthn needs a secure page and a domain name: the site is reached as
``http://localhost``."""

from __future__ import annotations

import sqlite3

import pytest

pytestmark = pytest.mark.slow


def virtual_authenticator(ctx, page):
    """A CTAP2 platform authenticator (internal transport, resident keys, user
    verification that always succeeds) for ``page``; the DevTools session and its id."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
        "automaticPresenceSimulation": True}})
    return cdp, added["authenticatorId"]


def query(server, sql: str) -> list[tuple]:
    with sqlite3.connect(server.db) as db:
        return db.execute(sql).fetchall()


def test_sign_up_with_a_passkey_sign_out_and_sign_in_with_it(server, chromium, shots):
    site = server.url.replace("127.0.0.1", "localhost")
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    cdp, authenticator = virtual_authenticator(ctx, page)
    page.goto(site + "/")
    page.wait_for_selector("#sign-in-open")
    page.click("#sign-in-open")
    assert page.is_enabled("#passkey-sign-up") and page.is_enabled("#passkey-sign-in")
    page.fill("#account-name-input", "Kira")
    shots(page, "lobby-passkey-dialog", full_page=False)
    page.click("#passkey-sign-up")  # no password typed: the passkey is the account's key
    page.wait_for_selector("#account-name")
    assert page.text_content("#account-name") == "Kira"
    assert page.evaluate("() => document.cookie") == ""  # the session cookie is HttpOnly
    assert query(server, "SELECT name, password_hash FROM accounts") == [("Kira", None)]
    (credential_id, count), = query(server, "SELECT credential_id, sign_count FROM passkeys")
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(held) == 1 and held[0]["isResidentCredential"]  # discoverable: no name needed
    assert held[0]["credentialId"].rstrip("=").replace("+", "-").replace("/", "_") == credential_id

    page.click("#sign-out")
    page.wait_for_selector("#sign-in-open")
    assert query(server, "SELECT count(*) FROM sessions") == [(0,)]
    page.click("#sign-in-open")
    page.click("#passkey-sign-in")  # no name typed either
    page.wait_for_selector("#account-name")
    assert page.text_content("#account-name") == "Kira"
    (now_count, used), = query(server, "SELECT sign_count, last_used_at FROM passkeys")
    assert used is not None and now_count >= count
    assert query(server, "SELECT count(*) FROM sessions") == [(1,)]

    page.click("#account-name")  # the profile: its passkeys, and deleting the account
    page.wait_for_selector("#passkey-list")
    assert page.locator("#passkey-list .passkey").count() == 1
    assert page.text_content("#passkey-list .passkey-label") == "Passkey 1"
    assert page.locator("#delete-password").count() == 0  # no password to type
    page.click("#passkey-list .passkey-remove")
    page.wait_for_function("() => document.getElementById('passkey-error').textContent")
    assert page.text_content("#passkey-error") == (
        "This passkey is your only way to sign in: add another one before removing it.")
    shots(page, "profile-passkeys")
    page.click("#delete-with-passkey")
    page.wait_for_url(site + "/")
    page.wait_for_selector("#sign-in-open")
    assert query(server, "SELECT count(*) FROM accounts") == [(0,)]
    assert query(server, "SELECT count(*) FROM passkeys") == [(0,)]
    ctx.close()


def test_an_account_with_a_password_adds_a_passkey_signs_in_with_it_and_removes_it(
        server, chromium):
    site = server.url.replace("127.0.0.1", "localhost")
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    page = ctx.new_page()
    virtual_authenticator(ctx, page)
    page.goto(site + "/")
    page.click("#sign-in-open")
    page.fill("#account-name-input", "Lucia")
    page.fill("#account-password", "correct horse battery")
    page.click("#sign-up")
    page.click("#account-name")
    page.wait_for_selector("#passkey-none")
    assert page.text_content("#passkey-none") == "Todavía no hay llaves de acceso."
    assert page.locator("#delete-password").count() == 1  # the password confirms deletion
    page.fill("#passkey-label", "Portátil")
    page.click("#passkey-add")
    page.wait_for_selector("#passkey-list")
    assert page.text_content("#passkey-list .passkey-label") == "Portátil"
    assert page.locator("#delete-with-passkey").count() == 1  # or a passkey does
    assert query(server, "SELECT label FROM passkeys") == [("Portátil",)]
    page.goto(site + "/")
    page.click("#sign-out")
    page.click("#sign-in-open")
    page.click("#passkey-sign-in")
    page.wait_for_selector("#account-name")
    assert page.text_content("#account-name") == "Lucia"
    page.click("#account-name")
    page.wait_for_selector("#passkey-list")
    page.click("#passkey-list .passkey-remove")  # the password stays: it may go
    page.wait_for_selector("#passkey-none")
    assert query(server, "SELECT count(*) FROM passkeys") == [(0,)]
    ctx.close()


def test_at_an_ip_address_the_passkey_buttons_are_off_and_say_why(server, chromium):
    """Browsers refuse WebAuthn at an IP address (``http://127.0.0.1:PORT``): the passkey
    buttons are disabled and one line says to open ``http://localhost:PORT`` instead, in the
    page's language, rather than a passkey dialog that fails with "No passkey was used"."""
    port = server.url.rsplit(":", 1)[1]
    for locale, words in (("en-US", "Passkeys do not work at an IP address"),
                          ("es-ES", "no funcionan en una dirección IP"),
                          ("pt-BR", "não funcionam em um endereço IP")):
        ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.click("#sign-in-open")
        page.wait_for_selector("#passkey-help")
        help_text = page.text_content("#passkey-help")
        assert words in help_text and f"http://localhost:{port}" in help_text, help_text
        assert not page.is_enabled("#passkey-sign-in")
        assert not page.is_enabled("#passkey-sign-up")
        ctx.close()
    ctx = chromium.new_context(locale="en-US")  # at localhost they stay on
    page = ctx.new_page()
    page.goto(server.url.replace("127.0.0.1", "localhost") + "/")
    page.click("#sign-in-open")
    page.wait_for_selector("#passkey-help")
    assert "IP address" not in page.text_content("#passkey-help")
    assert page.is_enabled("#passkey-sign-up")
    ctx.close()

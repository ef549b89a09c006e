// The table websocket: sends hello with the seat token (and account: true: without a token
// that opens a seat, a browser signed in to an account is seated at that account's own seat,
// by its session cookie), reconnects by itself (with a
// growing pause) whenever the connection drops, for example while the server restarts.
export class TableSocket {
  constructor(tableId, token, { onMessage, onStatus, name }) {
    this.name = name || (() => null);
    this.tableId = tableId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.retry = 0;
    this.stopped = false;
    this.timer = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.tableId)}`;
  }

  connect() {
    if (this.stopped) return;
    this.onStatus(this.retry ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token || null, name: this.name() || null, account: true }));
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      // the pause before a reconnection grows until the server takes the hello (a socket
      // opened, then closed over a limit, is tried again later and later)
      // online once the server has taken the hello (not when the socket opens: a hello
      // may still be refused)
      if (msg.type === "welcome") {
        this.retry = 0;
        this.onStatus("online");
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.ping);
      if (this.ws !== ws) return;
      this.ws = null;
      // 4404: no such table; 4403: not a link of this table; 4401: a Regicide seat is
      // named before its hand is seen (the page asks, then calls connect() again); 4402: a
      // rated seat needs another signed-in account (the page says which, and offers to sign
      // in). Anything else: reconnect (1013: the server closed a connection that fell behind).
      if (ev.code === 4401) {
        this.onStatus("name_needed");
        return;
      }
      if (ev.code === 4402) {
        this.stopped = true;
        this.onStatus("rated");
        return;
      }
      if (ev.code === 4404 || ev.code === 4403) {
        this.stopped = true;
        this.onStatus(ev.code === 4404 ? "gone" : "denied");
        return;
      }
      this.schedule();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  schedule() {
    if (this.stopped) return;
    this.retry += 1;
    this.onStatus("reconnecting");
    const pause = Math.min(5000, 300 * 2 ** Math.min(this.retry, 5));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), pause);
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

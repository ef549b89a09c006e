// Turn alerts: when it becomes this seat's turn (or the Jester window asks it), the tab's
// title and icon change; with alerts turned on (a remembered toggle, off by default) a
// short sound made with the Web Audio API plays, and a browser notification is shown while
// the tab is hidden. Notification permission is asked only when the player turns alerts on.
const KEY = "regalia.alerts";
const ICON = "/favicon.svg";
const ICON_TURN = "/static/img/favicon-turn.svg";

export class TurnAlerts {
  constructor({ button, t, baseTitle }) {
    this.button = button;
    this.t = t;
    this.baseTitle = baseTitle;
    this.kind = null;          // null, "turn" or "wish": what the table asks of this seat now
    this.seen = false;         // a first state was shown: later changes are new
    this.audio = null;
    this.on = localStorage.getItem(KEY) === "on";
    button.addEventListener("click", () => this.toggle());
    // Browsers start sound only after a gesture on the page: resume on the first one.
    const unlock = () => { if (this.audio) this.audio.resume(); };
    document.addEventListener("pointerdown", unlock, { passive: true });
    document.addEventListener("keydown", unlock);
    this.paint();
  }

  setBaseTitle(title) {
    this.baseTitle = title;
    this.paintTitle();
  }

  // kind: null (nothing asked), "turn" or "wish". Alerts fire on a change to non-null.
  update(kind) {
    const fresh = kind !== null && kind !== this.kind && this.seen;
    this.kind = kind;
    this.seen = true;
    this.paintTitle();
    if (fresh && this.on) {
      this.chime();
      if (document.hidden) this.notify();
    }
  }

  paintTitle() {
    const prefix = this.kind ? this.t(this.kind === "wish" ? "alert.title_wish" : "alert.title_turn") + " · " : "";
    document.title = prefix + this.baseTitle;
    const link = document.querySelector('link[rel="icon"]');
    if (link) link.href = this.kind ? ICON_TURN : ICON;
  }

  paint() {
    this.button.setAttribute("aria-pressed", this.on ? "true" : "false");
    this.button.classList.toggle("on", this.on);
    const label = this.t(this.on ? "alert.on" : "alert.off");
    this.button.title = label;
    this.button.setAttribute("aria-label", label);
    const text = this.button.querySelector(".btn-label");
    if (text) text.textContent = this.t("alert.button");
  }

  async toggle() {
    this.on = !this.on;
    localStorage.setItem(KEY, this.on ? "on" : "off");
    this.paint();
    if (!this.on) return;
    this.chime();                                  // heard now: the player knows the sound
    if ("Notification" in window && Notification.permission === "default") {
      try { await Notification.requestPermission(); } catch (e) { /* no notifications */ }
    }
  }

  chime() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    if (!this.audio) this.audio = new Ctx();
    const ctx = this.audio;
    const now = ctx.currentTime + 0.01;
    [[660, 0], [880, 0.14]].forEach(([freq, at]) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.22);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + at);
      osc.stop(now + at + 0.25);
    });
  }

  notify() {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try {
      const n = new Notification(this.t(this.kind === "wish" ? "alert.title_wish" : "alert.title_turn"), {
        body: this.baseTitle, icon: ICON_TURN, tag: "regalia-turn",
      });
      n.onclick = () => { window.focus(); n.close(); };
    } catch (e) { /* some browsers only notify from a service worker */ }
  }
}

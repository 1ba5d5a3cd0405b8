// A JSON websocket that reconnects with backoff after a drop and keeps itself alive with pings.

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10000;
const PING_EVERY_MS = 25000;
// The heartbeat (option `heartbeat`): after this much silence a ping goes out, and a connection that has
// not answered it in DEAD_AFTER_MS is given up and opened anew. A socket can stay "open" while nothing
// gets through (a network that went away without a word): this notices it within about five seconds.
const PROBE_AFTER_MS = 2000;
const DEAD_AFTER_MS = 3000;
const WATCH_EVERY_MS = 500;

export function socketUrl(path) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${path}`;
}

/**
 * Connect to `path` and keep connected.
 *
 * onMessage(data) gets every parsed message; onStatus("open" | "reconnecting" | "closed")
 * reports the connection for an indicator. send() returns false while disconnected:
 * the caller decides whether to tell the user (a move is never queued behind their back).
 * pingFields() adds to every ping: the table's page sends the number of the last event it
 * saw, and the server sends the table afresh if one was lost on its way.
 */
export class ReconnectingSocket {
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {}, heartbeat = false, pingFields = () => ({}) }) {
    this.url = socketUrl(path);
    this.heartbeat = heartbeat;
    this.pingFields = pingFields; // what every ping carries besides its id (the table: the last event it saw)
    this.watchTimer = null;
    this.lastHeard = 0;
    this.probeSent = null;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.attempt = 0;
    this.stopped = false;
    this.ws = null;
    this.retryTimer = null;
    this.pingTimer = null;
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
    this.connect();
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      this.onStatus("open");
      this.onOpen();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(Date.now()), PING_EVERY_MS);
      this.lastHeard = Date.now();
      this.probeSent = null;
      clearInterval(this.watchTimer);
      if (this.heartbeat) this.watchTimer = setInterval(() => this.watch(ws), WATCH_EVERY_MS);
    });
    ws.addEventListener("message", (event) => {
      this.lastHeard = Date.now();
      this.probeSent = null;
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      this.onMessage(data);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return; // one given up already (a silent one): its successor keeps its timers
      clearInterval(this.pingTimer);
      clearInterval(this.watchTimer);
      this.ws = null;
      if (this.stopped || event.code === 4404) {
        this.onStatus("closed");
        return;
      }
      this.scheduleRetry();
    });
  }

  /** The heartbeat: probe a connection that went quiet, give up one that does not answer. */
  watch(ws) {
    if (this.ws !== ws) return;
    const now = Date.now();
    if (this.probeSent !== null && now - this.probeSent > DEAD_AFTER_MS) {
      clearInterval(this.pingTimer);
      clearInterval(this.watchTimer);
      this.ws = null;
      ws.close(); // its close event comes late, if ever, on a dead network: we do not wait for it
      this.scheduleRetry();
    } else if (this.probeSent === null && now - this.lastHeard > PROBE_AFTER_MS) {
      this.probeSent = now;
      this.ping(now);
    }
  }

  ping(id) {
    this.send({ ...this.pingFields(), type: "ping", id });
  }

  scheduleRetry() {
    this.onStatus("reconnecting");
    // Exponential backoff with jitter, so that a restarted server is not hit by every tab at once.
    const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (this.retryTimer !== null && !this.stopped) this.connect();
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Whether a connection is being opened right now (the page just loaded, or a retry is under way). */
  get isConnecting() {
    return this.ws !== null && this.ws.readyState === WebSocket.CONNECTING;
  }

  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close();
  }
}

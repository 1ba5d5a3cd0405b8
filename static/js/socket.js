// A JSON websocket that reconnects with backoff after a drop and keeps itself alive with pings.

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10000;
const PING_EVERY_MS = 25000;

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
 */
export class ReconnectingSocket {
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {} }) {
    this.url = socketUrl(path);
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
      this.pingTimer = setInterval(() => this.send({ type: "ping", id: Date.now() }), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      this.onMessage(data);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped || event.code === 4404) {
        this.onStatus("closed");
        return;
      }
      this.scheduleRetry();
    });
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

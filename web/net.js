// The one WebSocket to the server: hello with the saved token, requests with ids, reconnection with
// backoff, and a small event bus for the views. The server decides everything; this only carries frames.
import { storage, store } from './ui.js';

const TOKEN = 'mc.token';
const NAME = 'mc.name';

class Conn {
  constructor() {
    this.ws = null;
    this.ready = false;
    this.me = null;          // the welcome frame
    this.features = {};
    this.listeners = new Map();
    this.pending = new Map(); // id -> {resolve, reject, timer, expect}
    this.nextId = 1;
    this.attempt = 0;
    this.everConnected = false;
    this.timer = null;
    this.outbox = [];
  }

  get name() { return storage(NAME, ''); }
  // The account of this connection ({name, ratings}), or null for a guest.
  get account() { return (this.me && this.me.account) || null; }
  set name(v) { store(NAME, v); }

  on(type, f) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(f);
    return () => this.listeners.get(type).delete(f);
  }

  emit(type, msg) { for (const f of [...(this.listeners.get(type) || [])]) f(msg); }

  connect() {
    clearTimeout(this.timer);
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
    let ws;
    try { ws = new WebSocket(url, 'mancala.v1'); } catch { this.retry(); return; }
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: 'hello' };
      const name = this.name, token = storage(TOKEN, null);
      if (name) hello.name = name;
      if (token) hello.token = token;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (!msg || typeof msg.type !== 'string') return;
      if (msg.type === 'welcome') {
        // A welcome answers hello, login, logout, logout_all and delete_account, or comes alone
        // when another device logged this account out (reason): the identity changes either way.
        this.welcome(msg);
        if (msg.id !== undefined && this.pending.has(msg.id)) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          clearTimeout(p.timer);
          p.resolve(msg);
        }
        return;
      }
      if (msg.type === 'account' && this.me) {
        // The answer to register or change_password: the same player, its account now.
        this.me = { ...this.me, name: msg.name, account: msg.account };
        this.emit('me', this.me);
      }
      if (msg.type === 'error' && msg.code === 'hello_required') return;
      // Too many new players from this address for now (a shared address): try again later, with
      // the usual backoff, rather than at once.
      if (msg.type === 'error' && !this.ready && msg.code === 'rate_limited') { ws.close(); return; }
      if (msg.type === 'error' && !this.ready && (msg.request === 'hello' || msg.field === 'name' || msg.field === 'token')) {
        // The saved name or token was refused: start again as a fresh guest rather than stay stuck.
        if (msg.field === 'token') store(TOKEN, null);
        else { this.name = ''; this.emit('name_refused', msg); }
        ws.send(JSON.stringify({ type: 'hello', ...(storage(TOKEN, null) ? { token: storage(TOKEN, null) } : {}) }));
        return;
      }
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.type === 'error') p.reject(msg); else p.resolve(msg);
      } else if (msg.type === 'error') {
        this.emit('error', msg);
      }
      this.emit(msg.type, msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      const was = this.ready;
      this.ready = false;
      for (const [id, p] of this.pending) { clearTimeout(p.timer); p.reject({ type: 'error', code: 'offline', id }); }
      this.pending.clear();
      this.outbox = [];
      if (was || !this.everConnected) this.emit('offline', {});
      this.retry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  welcome(msg) {
    const resumed = this.everConnected;
    const before = this.me && this.me.player;
    this.ready = true;
    this.everConnected = true;
    this.attempt = 0;
    this.me = msg;
    this.features = msg.features || {};
    if (msg.token) store(TOKEN, msg.token);
    // A new guest after a logout starts without the name chosen before (the account's, often).
    if (before && before !== msg.player && !msg.account && !msg.resumed) this.name = '';
    if (msg.name && !this.name && !msg.account) this.name = msg.name;
    if (msg.reason) this.emit('signed_out', msg);
    this.emit('online', { resumed });
    this.emit('welcome', msg);
    this.emit('me', msg);
    const out = this.outbox; this.outbox = [];
    for (const f of out) this.ws.send(f);
  }

  retry() {
    clearTimeout(this.timer);
    const base = Math.min(15000, 400 * 2 ** this.attempt);
    this.attempt++;
    this.timer = setTimeout(() => this.connect(), base / 2 + Math.random() * base / 2);
  }

  // Reconnects now (after a name change: the next hello carries the new name).
  restart() {
    if (this.ws) { const ws = this.ws; this.ws = null; this.ready = false; ws.onclose = null; ws.close(); }
    this.attempt = 0;
    this.connect();
  }

  // Sends a frame; when ready is false it waits in the outbox until the next welcome.
  send(msg) {
    const frame = JSON.stringify(msg);
    if (this.ready && this.ws && this.ws.readyState === 1) this.ws.send(frame);
    else this.outbox.push(frame);
  }

  // Sends a request with an id; resolves with the reply that echoes it, rejects with its error.
  // Replies are not guaranteed for every request, so the promise settles after ms at most.
  request(msg, ms = 10000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve(null); }, ms);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ ...msg, id });
    });
  }
}

export const conn = new Conn();

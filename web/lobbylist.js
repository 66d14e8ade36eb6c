// The live list of public rooms as the server sends it (docs/protocol.md, "lobby"): one snapshot
// (a lobby frame with its revision), then the changes of each revision (lobby_changes: rooms
// added, updated, removed; the rooms each game leaves out; the pools when they changed), applied
// in order. It keeps only what the server said: it never decides what is listed.
export class LobbyList {
  constructor() {
    this.rev = null;        // the revision shown; null before a snapshot
    this.rooms = new Map(); // code -> entry, in the order the server gave them (oldest first)
    this.pools = null;
    this.more = null;       // {kalah, oware, congkak}: listed rooms the list leaves out
  }

  // Applies a lobby or lobby_changes frame. Returns true when the list changed, false when the
  // frame changes nothing (an older revision, or changes before any snapshot), and 'resync' when a
  // revision is missing: ask for the list again ({type:'lobby', changes:true}).
  apply(m) {
    if (!m || typeof m !== 'object') return false;
    if (m.type === 'lobby') {
      if (!Array.isArray(m.rooms)) return false;
      this.rooms = new Map(m.rooms.filter((r) => r && typeof r.code === 'string').map((r) => [r.code, r]));
      this.rev = typeof m.rev === 'number' ? m.rev : null;
      if (Array.isArray(m.pools)) this.pools = m.pools;
      this.more = m.more && typeof m.more === 'object' ? m.more : null;
      return true;
    }
    if (m.type !== 'lobby_changes' || typeof m.rev !== 'number' || this.rev === null || m.rev <= this.rev) return false;
    if (m.rev !== this.rev + 1) { this.rev = null; return 'resync'; }
    for (const code of Array.isArray(m.remove) ? m.remove : []) this.rooms.delete(code);
    for (const r of Array.isArray(m.update) ? m.update : []) if (r && typeof r.code === 'string') this.rooms.set(r.code, r);
    for (const r of Array.isArray(m.add) ? m.add : []) {
      if (!r || typeof r.code !== 'string') continue;
      this.rooms.delete(r.code); // an added room goes last, as the newest
      this.rooms.set(r.code, r);
    }
    if (m.more && typeof m.more === 'object') this.more = m.more;
    if (Array.isArray(m.pools)) this.pools = m.pools;
    this.rev = m.rev;
    return true;
  }

  list() { return [...this.rooms.values()]; }

  // How many listed rooms the list leaves out, all games together.
  hidden() { return this.more ? Object.values(this.more).reduce((a, n) => a + (typeof n === 'number' ? n : 0), 0) : 0; }
}

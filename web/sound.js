// Short sounds made with the Web Audio API (no sound files): a seed sown, a capture, your turn, and
// the end of a game (won, lost, drawn). Muted with one switch kept in localStorage (mc.mute).
//
// Browsers let a page make sound only after the user has interacted with it: the audio context is
// created on the first click or key press (and resumed on later ones); until then, and where the
// Web Audio API is missing, play() does nothing. Each sound played is also announced as a
// `mc:sound` event on document (detail: {name}), for tests and anyone embedding the client.
import { storage, store } from './ui.js';

const KEY = 'mc.mute';
let ctx = null;
let lastSow = 0;
const listeners = new Set();

export function muted() { return storage(KEY, false) === true; }
export function setMuted(v) { store(KEY, !!v); for (const f of listeners) f(!!v); }
export function onMute(f) { listeners.add(f); return () => listeners.delete(f); }

function context(create) {
  const AC = typeof window !== 'undefined' && (window.AudioContext || window.webkitAudioContext);
  if (!AC) return null;
  if (!ctx && create) { try { ctx = new AC(); } catch { ctx = null; } }
  if (ctx && ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

// The first user gesture unlocks audio (a context created before one starts suspended).
if (typeof document !== 'undefined') {
  const unlock = () => { if (!muted()) context(true); };
  document.addEventListener('pointerdown', unlock, true);
  document.addEventListener('keydown', unlock, true);
}

// One tone: frequency f (Hz) gliding to f2, starting `at` seconds from now, lasting `dur` seconds,
// with a quick attack and an exponential fade.
function tone(c, { f, f2 = f, at = 0, dur = 0.12, type = 'sine', gain = 0.12 }) {
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const g = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f, t0);
  if (f2 !== f) osc.frequency.exponentialRampToValueAtTime(f2, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

const SOUNDS = {
  // A seed dropped: a soft wooden click.
  sow: (c) => tone(c, { f: 900, f2: 520, dur: 0.05, type: 'triangle', gain: 0.07 }),
  // Seeds taken: a low knock and a higher one.
  capture: (c) => { tone(c, { f: 330, f2: 220, dur: 0.14, type: 'triangle', gain: 0.16 }); tone(c, { f: 660, f2: 440, at: 0.07, dur: 0.16, type: 'triangle', gain: 0.12 }); },
  // Your turn (or the game starts): two rising notes.
  turn: (c) => { tone(c, { f: 660, dur: 0.13, gain: 0.14 }); tone(c, { f: 990, at: 0.12, dur: 0.2, gain: 0.14 }); },
  win: (c) => [523, 659, 784, 1047].forEach((f, i) => tone(c, { f, at: i * 0.11, dur: 0.22, gain: 0.12 })),
  loss: (c) => [523, 440, 349].forEach((f, i) => tone(c, { f, at: i * 0.14, dur: 0.26, type: 'triangle', gain: 0.12 })),
  draw: (c) => [523, 659, 523].forEach((f, i) => tone(c, { f, at: i * 0.12, dur: 0.2, gain: 0.1 })),
};

// Plays sound name unless muted. Sowing clicks come at most one every 45 ms (a long relay move
// sows hundreds of seeds in a second and a half).
export function play(name) {
  if (muted() || !SOUNDS[name]) return false;
  if (name === 'sow') {
    const now = typeof performance !== 'undefined' ? performance.now() : Date.now();
    if (now - lastSow < 45) return false;
    lastSow = now;
  }
  const c = context(typeof navigator !== 'undefined' && navigator.userActivation ? navigator.userActivation.hasBeenActive : false);
  if (!c) return false;
  try { SOUNDS[name](c); } catch { return false; }
  document.dispatchEvent(new CustomEvent('mc:sound', { detail: { name } }));
  return true;
}

// Look-alike names (issue 25, item 6), against the real server: a guest may not take a name that
// reads as an account's by Unicode's TR39 skeleton (script g, the Kelvin sign, Lisu, Armenian,
// mathematical bold) nor with a braille blank or U+FFF9 beside it, also after a restart (the
// accounts' names are read at start) and not after the account is deleted; invisible characters
// are dropped from a guest's name; and account names are marked (`account`) in a room's seats, in
// chat and in chat_history.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, startServer } from './harness.mjs';

const PW = 'correct horse battery';

// Each reads as "Magnus_Oak" to a reader; the expected skeletons are worked in
// tests/server/test_names.c (skeletons).
const LOOKALIKES = [
  'Ma\u0261nus_Oak',            // U+0261 LATIN SMALL LETTER SCRIPT G
  'Magnus_Oa\u212a',            // U+212A KELVIN SIGN
  '\ua4dfagnus_Oak',            // U+A4DF LISU LETTER MA
  'Magnus_\u0555ak',            // U+0555 ARMENIAN CAPITAL LETTER OH
  '\u{1d40c}\u{1d41a}\u{1d420}\u{1d427}\u{1d42e}\u{1d42c}_\u{1d40e}\u{1d41a}\u{1d424}', // maths bold
  'Magnus_Oak\u2800',           // braille blank
  '\ufff9Magnus_Oak',           // interlinear annotation anchor
  'MAGNUS OAK',                 // the name key: case and separators
];

async function refusedAll(server) {
  const g = await Client.connect(server, { hello: false });
  for (const name of LOOKALIKES) {
    const e = await g.request({ type: 'hello', name });
    assert.equal(e.type, 'error', name);
    assert.equal(e.code, 'name_taken', name);
    assert.equal(e.field, 'name', name);
  }
  // Nothing changed: the connection may still say hello, with a name of its own.
  const w = await g.request({ type: 'hello', name: 'Magnus_Oaks' });
  assert.equal(w.type, 'welcome');
  assert.equal(w.name, 'Magnus_Oaks');
  await g.close();
}

test('a guest may not take a look-alike of an account name, before or after a restart', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-look-'));
  try {
    let server = await startServer(['--name-lookups-ip', '1000'], { data });
    // Before the account exists, a guest may call itself so.
    const early = await Client.connect(server, { name: 'Ma\u0261nus_Oak' });
    assert.equal(early.me.name, 'Ma\u0261nus_Oak');
    await early.close();
    const m = await Client.connect(server, {});
    const r = await m.request({ type: 'register', name: 'Magnus_Oak', password: PW });
    assert.equal(r.type, 'account', JSON.stringify(r));
    await refusedAll(server);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    server = await startServer(['--name-lookups-ip', '1000'], { data });
    await refusedAll(server);
    // The account itself keeps its name whatever its hello says.
    const again = await Client.connect(server, { token: m.me.token, name: 'Ma\u0261nus_Oak' });
    assert.equal(again.me.name, 'Magnus_Oak');
    // Deleted, its name is free again.
    const del = await again.request({ type: 'delete_account', password: PW });
    assert.equal(del.type, 'welcome', JSON.stringify(del));
    const g = await Client.connect(server, { name: 'Ma\u0261nus_Oak' });
    assert.equal(g.me.name, 'Ma\u0261nus_Oak');
    await g.close();
    await again.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('invisible characters are dropped from a guest name; spaces and accents stay', async () => {
  const server = await startServer();
  for (const [asked, kept] of [
    ['Ana\u2800', 'Ana'],
    ['\ufff9Ana\ufffb', 'Ana'],
    ['A\u200bna\ufe0f', 'Ana'],
    ['Jose\u0301 Lima', 'Jose\u0301 Lima'],
  ]) {
    const c = await Client.connect(server, { name: asked });
    assert.equal(c.me.name, kept, JSON.stringify(asked));
    await c.close();
  }
  const c = await Client.connect(server, { hello: false });
  const e = await c.request({ type: 'hello', name: '\u2800\ufff9' });
  assert.equal(e.code, 'bad_request');
  await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('account names are marked in seats, chat and chat history', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-badge-'));
  try {
    let server = await startServer([], { data });
    const acc = await Client.connect(server, {});
    assert.equal((await acc.request({ type: 'register', name: 'Magnus_Oak', password: PW })).type, 'account');
    const guest = await Client.connect(server, { name: 'Visitor' });
    const watcher = await Client.connect(server, { name: 'Watcher' });
    const j = await acc.request({ type: 'create', game: 'kalah', seat: 'south' });
    await guest.request({ type: 'join', room: j.room });
    const st = await acc.state(j.room, (s) => s.status === 'playing');
    assert.equal(st.players.south.name, 'Magnus_Oak');
    assert.equal(st.players.south.account, true);
    assert.equal(st.players.north.name, 'Visitor');
    assert.equal(st.players.north.account, false);
    const ja = await watcher.request({ type: 'join', room: j.room, role: 'spectator' });
    assert.equal(ja.type, 'joined');
    const said = await acc.request({ type: 'chat', room: j.room, text: 'hello' });
    assert.equal(said.type, 'chat');
    assert.equal(said.from, 'Magnus_Oak');
    assert.equal(said.account, true);
    const heard = await watcher.next((m) => m.type === 'chat' && m.from === 'Magnus_Oak');
    assert.equal(heard.account, true);
    const reply = await guest.request({ type: 'chat', room: j.room, text: 'hi' });
    assert.equal(reply.account, false);
    const spect = await watcher.request({ type: 'chat', room: j.room, text: 'go' });
    assert.equal(spect.account, false);
    assert.equal(spect.spectator, true);
    // Someone entering later gets the lines with their marks.
    const late = await Client.connect(server, { name: 'Late' });
    await late.request({ type: 'join', room: j.room, role: 'spectator' });
    const hist = await late.next('chat_history');
    assert.deepEqual(hist.messages.map((x) => [x.from, x.account]),
      [['Magnus_Oak', true], ['Visitor', false], ['Watcher', false]]);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    // After a restart the seats and the lines come back marked.
    server = await startServer([], { data });
    const back = await Client.connect(server, { token: acc.me.token });
    await back.next('joined');
    const st2 = await back.state(j.room);
    assert.equal(st2.players.south.account, true);
    assert.equal(st2.players.north.account, false);
    const hist2 = await back.next('chat_history');
    assert.deepEqual(hist2.messages.map((x) => [x.from, x.account]),
      [['Magnus_Oak', true], ['Visitor', false], ['Watcher', false]]);
    // A deleted account's lines are anonymous: no mark.
    const del = await back.request({ type: 'delete_account', password: PW });
    assert.equal(del.type, 'welcome');
    const g2 = await Client.connect(server, { token: guest.me.token });
    await g2.next('joined');
    const hist3 = await g2.next('chat_history');
    assert.deepEqual(hist3.messages.map((x) => [x.from, x.player === null, x.account]),
      [['[deleted]', true, false], ['Visitor', false, false], ['Watcher', false, false]]);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

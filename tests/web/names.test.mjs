// The names the server makes, worded in each language of the client (web/common.js playerName),
// and a game list's score read from the viewer's side (scoreText), in node without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLang, setLang, tIn } from '../../web/i18n.js';
import { playerName, scoreText } from '../../web/common.js';

const LANGS = ['en', 'fr', 'pt', 'ru', 'pl'];
for (const code of LANGS) await loadLang(code);

test('the computer and guests are named in the reader\'s language; other names stay', async () => {
  for (const code of LANGS) {
    await setLang(code);
    const computer = tIn(code, 'name.computer', { n: 4 });
    assert.equal(playerName({ name: 'Computer (level 4)', computer: true, level: 4 }), computer, code);
    // From the seat's level, whatever the name; from the name where there is no level (lists, archive).
    assert.equal(playerName({ name: 'x', computer: true, level: 4 }), computer, code);
    assert.equal(playerName({ name: 'Computer (level 4)', computer: true }), computer, code);
    assert.equal(playerName('Computer (level 4)'), computer, code);
    assert.equal(playerName({ name: 'Guest 0042', computer: false }), tIn(code, 'name.guest', { n: '0042' }), code);
    assert.equal(playerName('Guest 1930'), tIn(code, 'name.guest', { n: '1930' }), code);
    // An account's name is its own, even one that looks like a guest's; anybody else's too.
    assert.equal(playerName({ name: 'Guest 7', rating: 1500 }), 'Guest 7', code);
    assert.equal(playerName({ name: 'Ana_Lima' }), 'Ana_Lima', code);
    assert.equal(playerName('Guests 12'), 'Guests 12', code);
    assert.equal(playerName(null), '', code);
    if (code !== 'en') assert.notEqual(computer, 'Computer (level 4)', `${code} has its own words`);
  }
  await setLang('en');
});

test('a game list shows the viewer\'s score first', () => {
  assert.equal(scoreText({ seat: 'south', score: [12, 36] }), '12 : 36');
  assert.equal(scoreText({ seat: 'north', score: [12, 36] }), '36 : 12');
  assert.equal(scoreText({ seat: 'both', score: [12, 36] }), '12 : 36');
  assert.equal(scoreText({ seat: 'north' }), null);
});

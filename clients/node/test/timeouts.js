'use strict';
// Driven by NodeSpokeInteropTest: against a hub that greets and then never answers, a publish
// fails with UNAVAILABLE after ackTimeoutMs; against one that never greets, connecting fails after
// connectTimeoutMs and closes its socket. Prints one JSON line per check; exits 0 when all hold.
const { WebSocketServer } = require('ws');
const { Spoke } = require('../ops-spoke');

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function listen(greet, autoPong = true) {
  return new Promise((resolve) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'ops.v1', autoPong });
    server.sockets = [];
    server.on('connection', (ws) => {
      server.sockets.push(ws);
      if (greet) ws.send(Buffer.from('HELLO 1 1048576 {"subject":"anonymous","scopes":[]}\n'));
      // and nothing else: no ACK, no SUBOK
    });
    server.on('listening', () => resolve(server));
  });
}

async function main() {
  let ok = true;
  const mute = await listen(true);
  const url = 'ws://127.0.0.1:' + mute.address().port + '/ws';
  const spoke = await Spoke.connect(url, { ackTimeoutMs: 300 });
  const started = Date.now();
  try {
    await spoke.publish('anything', Buffer.from('x'));
    ok = false;
    out({ check: 'publish', error: 'acknowledged by a hub that never answers' });
  } catch (e) {
    const pass = e.code === 'UNAVAILABLE' && Date.now() - started < 5000;
    ok = ok && pass;
    out({ check: 'publish', code: e.code, pass });
  }
  await spoke.close();

  const silent = await listen(false);
  const url2 = 'ws://127.0.0.1:' + silent.address().port + '/ws';
  try {
    await Spoke.connect(url2, { connectTimeoutMs: 300 });
    ok = false;
    out({ check: 'connect', error: 'connected to a hub that never greets' });
  } catch (e) {
    // The socket the spoke gave up on is closed: the server sees it go.
    await new Promise((r) => setTimeout(r, 500));
    const open = silent.sockets.filter((ws) => ws.readyState === ws.OPEN).length;
    const pass = e.code === 'UNAVAILABLE' && open === 0;
    ok = ok && pass;
    out({ check: 'connect', code: e.code, open, pass });
  }
  // A hub that greets and then goes silent, pongs included (a network that stopped carrying the
  // connection): the spoke gives up after idleTimeoutMs and a call in flight fails with UNAVAILABLE.
  const dead = await listen(true, false);
  const url3 = 'ws://127.0.0.1:' + dead.address().port + '/ws';
  const lonely = await Spoke.connect(url3, { pingIntervalMs: 100, idleTimeoutMs: 400, ackTimeoutMs: 60000 });
  const since = Date.now();
  try {
    await lonely.publish('anything', Buffer.from('x'));
    ok = false;
    out({ check: 'silence', error: 'acknowledged by a silent hub' });
  } catch (e) {
    const ms = Date.now() - since;
    const pass = e.code === 'UNAVAILABLE' && lonely.closed && ms >= 300 && ms < 5000;
    ok = ok && pass;
    out({ check: 'silence', code: e.code, ms, message: e.message, pass });
  }
  mute.close();
  silent.close();
  dead.close();
  for (const ws of [...mute.sockets, ...silent.sockets, ...dead.sockets]) ws.terminate();
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  out({ error: String(e) });
  process.exit(1);
});

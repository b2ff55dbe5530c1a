'use strict';
// Driven by the Java test BrowserSpokeTest: a real browser (Debian's chromium, driven by
// playwright-core) on a page of an allowed origin connects to the hub with the bearer token as a
// subprotocol (browsers cannot set headers on a WebSocket), calls a Java operation with the frames
// of docs/websocket.md, and a page of another origin is refused at the handshake. Prints one JSON
// line per result.
const http = require('http');
const { chromium } = require('playwright-core');

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function servePage(port) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>ops</title><p>a page</p>');
    });
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

// Runs in the page: a minimal spoke on the browser's WebSocket.
async function callFromPage({ hubUrl, token, operationId, input }) {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const frame = (header, payload) => {
    const head = enc.encode(header + '\n');
    const body = payload ? enc.encode(payload) : new Uint8Array(0);
    const all = new Uint8Array(head.length + body.length);
    all.set(head, 0);
    all.set(body, head.length);
    return all;
  };
  const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(16)))
    .map((b) => b.toString(16).padStart(2, '0')).join('');
  return new Promise((resolve) => {
    const protocols = ['ops.v1'];
    if (token) protocols.push('ops.bearer.' + token);
    const ws = new WebSocket(hubUrl, protocols);
    ws.binaryType = 'arraybuffer';
    const inbox = 'ops.inbox.' + hex();
    const requestId = hex();
    let hello = null;
    ws.onerror = () => resolve({ outcome: 'refused' });
    ws.onclose = (e) => resolve({ outcome: 'closed', code: e.code });
    ws.onmessage = (event) => {
      const bytes = new Uint8Array(event.data);
      const nl = bytes.indexOf(10);
      const header = dec.decode(bytes.subarray(0, nl));
      const payload = dec.decode(bytes.subarray(nl + 1));
      if (header.startsWith('HELLO ')) {
        hello = header;
        ws.send(frame('SUB 1 ' + inbox));
      } else if (header === 'SUBOK 1') {
        const request = { v: 1, type: 'call.requested', requestId, replyTo: inbox, operationId,
          deadlineMs: 10000, input };
        ws.send(frame('PUB 2 ops.req.' + operationId, JSON.stringify(request)));
      } else if (header.startsWith('MSG 1 ')) {
        const event = JSON.parse(payload);
        ws.onclose = null;
        ws.close();
        resolve({ outcome: 'answered', protocol: ws.protocol, hello, event });
      }
    };
  });
}

async function main() {
  const allowed = await servePage(Number(process.env.PAGE_PORT));
  const foreign = await servePage(Number(process.env.OTHER_PORT));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const args = { hubUrl: process.env.HUB_URL, token: process.env.OPS_WS_TOKEN,
      operationId: 'java.greet', input: { name: 'browser' } };
    await page.goto('http://127.0.0.1:' + process.env.PAGE_PORT + '/');
    out({ page: 'allowed', result: await page.evaluate(callFromPage, args) });
    await page.goto('http://127.0.0.1:' + process.env.OTHER_PORT + '/');
    out({ page: 'foreign', result: await page.evaluate(callFromPage, args) });
    await page.goto('http://127.0.0.1:' + process.env.PAGE_PORT + '/');
    out({ page: 'no-token', result: await page.evaluate(callFromPage, { ...args, token: null }) });
  } finally {
    await browser.close();
    allowed.close();
    foreign.close();
  }
}

main().catch((e) => {
  out({ failed: String(e && e.stack || e) });
  process.exit(1);
});

// The console in a real Chromium, driven by playwright-core: list, search, describe, call with
// the form, the raw JSON editor, errors per field, a live subscription, stopping one, a token.
// Usage: node console.test.mjs <gateway url> <screenshot dir> <playwright-core dir>
// Prints one line per step; exits 0 when every step passed, 1 otherwise (with failure.png).
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';

const [url, shots, playwrightDir] = process.argv.slice(2);
const require = createRequire(join(playwrightDir, 'node_modules') + '/');
const { chromium } = require('playwright-core');
mkdirSync(shots, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), 'ops-console-'));

// A fresh profile (user data dir) per run.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  timeout: 30000,
  viewport: { width: 1280, height: 860 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
const page = browser.pages()[0] || await browser.newPage();
page.setDefaultTimeout(10000);
const problems = [];
page.on('pageerror', (e) => problems.push('page error: ' + e.message));
// The browser logs every failed response; the error steps make 400s on purpose.
page.on('console', (m) => {
  if (m.type() === 'error' && !/status of 400/.test(m.text())) problems.push('console error: ' + m.text());
});
const offsite = [];
page.on('request', (r) => { if (!r.url().startsWith(url)) offsite.push(r.url()); });

function check(condition, message) {
  if (!condition) throw new Error(message);
}
async function step(name, body) {
  await body();
  console.log('ok ' + name);
}
const op = (id) => page.locator(`.op[data-id="${id}"]`);
const field = (name) => page.locator(`.field[data-field="${name}"]`);

try {
  await step('list', async () => {
    await page.goto(url);
    await op('demo.echo').waitFor();
    check(await op('admin.stats').count() === 0, 'admin.stats is listed to an anonymous caller');
    const namespaces = await page.locator('.namespace').allTextContents();
    check(namespaces.includes('demo') && namespaces.includes('shop'), 'namespaces: ' + namespaces);
    await page.screenshot({ path: join(shots, '01-list.png'), fullPage: true });
  });

  await step('search', async () => {
    await page.fill('#search', 'count');
    await page.waitForFunction(() => document.querySelectorAll('.op').length === 1);
    check(await op('demo.ticks').count() === 1, 'search by description did not find demo.ticks');
    await page.screenshot({ path: join(shots, '02-search.png'), fullPage: true });
    await page.fill('#search', '');
    await op('demo.echo').waitFor();
  });

  await step('describe', async () => {
    await op('demo.echo').click();
    check((await page.textContent('#op-id')) === 'demo.echo', 'not selected');
    check((await page.textContent('#op-meta')).startsWith('QUERY'), 'type not shown');
    check((await page.textContent('#op-description')).includes('Echoes a message'), 'description');
    check((await page.textContent('#op-input-schema')).includes('minLength'), 'input schema');
  });

  await step('call with the form', async () => {
    await field('message').locator('input').fill('hi');
    await field('repeat').locator('input').fill('2');
    await page.click('#call');
    await page.locator('#result-section').waitFor({ state: 'visible' });
    const envelope = JSON.parse(await page.textContent('#result'));
    check(envelope.data === 'hihi', 'data: ' + JSON.stringify(envelope));
    check(envelope.meta.source === 'local', 'meta: ' + JSON.stringify(envelope.meta));
    check((await page.textContent('#call-status')).startsWith('HTTP 200'), 'status');
    await page.screenshot({ path: join(shots, '03-call.png'), fullPage: true });
  });

  await step('raw JSON editor', async () => {
    await page.check('#raw-toggle');
    const prefilled = JSON.parse(await page.inputValue('#raw'));
    check(prefilled.message === 'hi' && prefilled.repeat === 2, 'raw not filled from the form: ' + JSON.stringify(prefilled));
    await page.fill('#raw', '{"message": "raw"}');
    await page.click('#call');
    await page.waitForFunction(() => document.querySelector('#result').textContent.includes('"raw"'));
    await page.fill('#raw', '{"message": ');
    await page.click('#call');
    check((await page.textContent('#raw-error')).includes('not valid JSON'), 'bad raw JSON not reported');
  });

  await step('errors per field', async () => {
    await op('shop.order').click();
    await field('quantity').locator('input').fill('0');
    await field('address').locator('textarea').fill('{}');
    await page.click('#call');
    await page.locator('#error').waitFor({ state: 'visible' });
    check((await page.textContent('#error-code')) === 'INVALID_INPUT', 'code');
    const quantity = await field('quantity').locator('.field-error').textContent();
    const address = await field('address').locator('.field-error').textContent();
    const item = await field('item').locator('.field-error').textContent();
    check(quantity.length > 0, 'no error on quantity');
    check(address.includes('city'), 'no error on address: ' + address);
    check(item.includes('item'), 'no error on the missing item: ' + item);
    check(await page.locator('#error-fields li').count() >= 3, 'error list');
    await page.screenshot({ path: join(shots, '04-field-errors.png'), fullPage: true });
  });

  await step('a list of plain values is written one per line', async () => {
    await op('demo.sum').click();
    check((await field('numbers').locator('.hint').textContent()).includes('list of number'), 'list hint');
    await field('numbers').locator('textarea').fill('1\n2\n\n3.5');
    await page.click('#call');
    await page.locator('#result-section').waitFor({ state: 'visible' });
    const envelope = JSON.parse(await page.textContent('#result'));
    check(envelope.data === 6.5, 'sum: ' + JSON.stringify(envelope));
    await field('numbers').locator('textarea').fill('1\ntwo');
    await page.click('#call');
    const error = await field('numbers').locator('.field-error').textContent();
    check(error.includes('"two" is not a number'), 'no error on a bad item: ' + error);
  });

  await step('a subscription streams live', async () => {
    await op('demo.ticks').click();
    check((await page.textContent('#call')) === 'Subscribe', 'button');
    await field('count').locator('input').fill('6');
    await field('intervalMs').locator('input').fill('150');
    await page.click('#call');
    // Some items arrived while the stream is still open: it is live, not a final dump.
    await page.waitForFunction(() => document.querySelectorAll('#events li').length >= 2);
    check((await page.textContent('#call-status')) === 'Streaming', 'not streaming: ' + await page.textContent('#call-status'));
    check(await page.locator('#events li').count() < 6, 'all items at once');
    await page.screenshot({ path: join(shots, '05-stream-live.png'), fullPage: true });
    await page.waitForFunction(() => document.querySelector('#call-status').textContent === 'Completed');
    const items = await page.locator('#events li').allTextContents();
    check(items.length === 6, 'items: ' + items.length);
    check(items[0].includes('#1') && items[5].includes('"n":6'), 'items: ' + items);
    await page.screenshot({ path: join(shots, '06-stream-completed.png'), fullPage: true });
  });

  await step('stopping a subscription', async () => {
    await field('count').locator('input').fill('');
    await field('intervalMs').locator('input').fill('50');
    await page.click('#call');
    await page.waitForFunction(() => document.querySelectorAll('#events li').length >= 2);
    await page.click('#stop');
    check((await page.textContent('#call-status')) === 'Stopped', 'not stopped');
    console.log('stopped-stream');
  });

  await step('a stream refused at once shows its error', async () => {
    await field('count').locator('input').fill('-1');
    await page.click('#call');
    await page.locator('#error').waitFor({ state: 'visible' });
    check((await field('count').locator('.field-error').textContent()).length > 0, 'no error on count');
  });

  await step('a token shows and calls what it allows', async () => {
    await page.fill('#token', 'admin-token');
    await page.click('#token-apply');
    await op('admin.stats').waitFor();
    await op('admin.stats').click();
    check((await page.textContent('#op-meta')).includes('needs scopes: admin'), 'scopes');
    await page.click('#call');
    await page.locator('#result-section').waitFor({ state: 'visible' });
    check(JSON.parse(await page.textContent('#result')).data.who === 'root', 'identity');
    // With a token the stream is read with fetch (EventSource cannot send headers).
    await op('demo.ticks').click();
    await field('count').locator('input').fill('2');
    await page.click('#call');
    await page.waitForFunction(() => document.querySelector('#call-status').textContent === 'Completed');
    check(await page.locator('#events li').count() === 2, 'token stream items');
    await page.screenshot({ path: join(shots, '07-token.png'), fullPage: true });
  });

  check(offsite.length === 0, 'requests left the gateway: ' + offsite.join(', '));
  check(problems.length === 0, problems.join('\n'));
  console.log('ALL PASSED');
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(0);
} catch (e) {
  console.log('FAILED: ' + e.message);
  for (const p of problems) console.log(p);
  try { await page.screenshot({ path: join(shots, 'failure.png'), fullPage: true }); } catch (ignored) { /* */ }
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(1);
}

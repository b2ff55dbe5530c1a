'use strict';
// Driven by the Java test NodeSpokeInteropTest: serves node.upper, calls a Java operation,
// consumes a Java stream with demand, and prints one JSON line per result on stdout.
const { Spoke } = require('../ops-spoke');

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function main() {
  const spoke = await Spoke.connect(process.env.HUB_URL, { token: process.env.OPS_WS_TOKEN });
  out({ event: 'connected', identity: spoke.identity });

  await spoke.serve(
    'node.upper',
    async (input, { identity }) => ({
      text: String(input.text).toUpperCase(),
      caller: identity && identity.subject,
    }),
    { description: 'Upper-cases text', inputSchema: { type: 'object', required: ['text'] } });
  await spoke.announce({ heartbeatMs: 500 });
  await spoke.flush();
  out({ event: 'serving' });

  const greeting = await spoke.call('java.greet', { name: 'node' });
  out({ event: 'called', data: greeting.data, source: greeting.meta.source });

  try {
    await spoke.call('java.missing', {});
  } catch (e) {
    out({ event: 'missing', code: e.code });
  }

  const items = [];
  const stream = spoke.stream('java.count', {}, { demand: 2 });
  for await (const envelope of stream) {
    items.push(envelope.data);
    if (items.length === 5) {
      stream.cancel();
      break;
    }
  }
  out({ event: 'streamed', items });

  // Wait to be told to stop (stdin closes), serving node.upper meanwhile.
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await spoke.close();
    process.exit(0);
  });
}

main().catch((e) => {
  out({ event: 'failed', code: e.code, message: e.message });
  process.exit(1);
});

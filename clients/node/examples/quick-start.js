// The README's example, run by NodeSpokeInteropTest against a Java hub (HUB_URL and OPS_WS_TOKEN).
const { Spoke } = require('../ops-spoke');

async function main() {
  const url = process.env.HUB_URL || 'ws://127.0.0.1:8080/ws';
  const spoke = await Spoke.connect(url, { token: process.env.OPS_WS_TOKEN });
  // Serve an operation: the handler sees the identity the hub authenticated the caller as.
  await spoke.serve('node.upper', async (input, { identity }) => input.text.toUpperCase(),
    { description: 'Upper-cases text', inputSchema: { type: 'object', required: ['text'] } });
  // Join discovery: catalogs (a Java RemoteCatalog, `ops --ws URL list`) list and call it.
  await spoke.announce({ heartbeatMs: 2000 });
  // Call one, wherever it is served (the hub, another spoke).
  const envelope = await spoke.call('demo.echo', { message: 'hi' });   // { data, meta }
  console.log(envelope.data);
  // Consume a stream, two items in flight at most; cancel() sends call.aborted.
  const stream = spoke.stream('demo.clock', { ticks: 5, intervalMs: 100 }, { demand: 2 });
  for await (const item of stream) console.log(item.data);
  await spoke.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

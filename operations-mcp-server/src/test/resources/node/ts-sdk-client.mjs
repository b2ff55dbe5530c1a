// Usage: node ts-sdk-client.mjs <url> <legacy|auto|2026> <toolName> <argsJson>
// Uses @modelcontextprotocol/client 2.4.0 (TypeScript SDK v2); mode legacy, auto or 2026. Prints one JSON line on stdout.
// Set MCP_DEBUG=1 to dump raw HTTP exchanges to stderr.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const fail = (e) => {
    const msg = e instanceof Error ? `${e.name}: ${e.message}` + (e.code !== undefined ? ` (code ${e.code})` : '') : String(e);
    process.stdout.write(JSON.stringify({ error: msg }) + '\n');
    process.exit(1);
};
setTimeout(() => fail(new Error('overall timeout (20s)')), 20_000).unref();

const [url, mode, toolName, argsJson = '{}'] = process.argv.slice(2);
if (!url || !['legacy', 'auto', '2026'].includes(mode) || !toolName) fail(new Error('usage: ts-sdk-client.mjs <url> <legacy|auto|2026> <toolName> <argsJson>'));

const debugFetch = async (input, init) => {
    const res = await fetch(input, init);
    if (process.env.MCP_DEBUG) {
        const h = init?.headers instanceof Headers ? Object.fromEntries(init.headers) : init?.headers;
        const body = await res.clone().text().catch(() => '<stream>');
        console.error(`>> ${init?.method ?? 'GET'} ${input} ${JSON.stringify(h)} ${init?.body ?? ''}\n<< ${res.status} ${JSON.stringify(Object.fromEntries(res.headers))} ${body}`);
    }
    return res;
};

try {
    const args = JSON.parse(argsJson);
    const client = new Client(
        { name: 'java-interop-ts2-client', version: '1.0.0' },
        { versionNegotiation: { mode: mode === '2026' ? { pin: '2026-07-28' } : mode } }
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: debugFetch });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const progress = [];
    const result = await client.callTool(
        { name: toolName, arguments: args },
        { onprogress: (p) => progress.push(p), timeout: 15_000 }
    );
    const out = {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        era: client.getProtocolEra(),
        tools: tools.map((t) => t.name),
        result,
        progress
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    await client.close().catch(() => {});
    process.exit(0);
} catch (e) {
    fail(e);
}

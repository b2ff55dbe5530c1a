// Usage: node ts-sdk-v1-client.mjs <url> <legacy> <toolName> <argsJson>
// Uses @modelcontextprotocol/sdk 1.x (TypeScript SDK v1, which speaks the 2025 revisions only).
// Prints one JSON line on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const fail = (e) => {
    const msg = e instanceof Error ? `${e.name}: ${e.message}` + (e.code !== undefined ? ` (code ${e.code})` : '') : String(e);
    process.stdout.write(JSON.stringify({ error: msg }) + '\n');
    process.exit(1);
};
setTimeout(() => fail(new Error('overall timeout (20s)')), 20_000).unref();

const [url, mode, toolName, argsJson = '{}'] = process.argv.slice(2);
if (!url || mode !== 'legacy' || !toolName) fail(new Error('usage: ts-sdk-v1-client.mjs <url> legacy <toolName> <argsJson>'));

try {
    const args = JSON.parse(argsJson);
    const client = new Client({ name: 'java-interop-ts1-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const { tools } = await client.listTools();
    const progress = [];
    const result = await client.callTool(
        { name: toolName, arguments: args },
        undefined,
        { onprogress: (p) => progress.push(p), timeout: 15_000 }
    );
    const out = {
        protocolVersion: transport.protocolVersion ?? null,
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

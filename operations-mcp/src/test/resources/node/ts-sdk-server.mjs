// Tiny MCP server: @modelcontextprotocol/server 2.4.0, MCP revision 2026-07-28 ONLY, streamable HTTP at /mcp.
// Usage: node ts-sdk-server.mjs <port|0>   -> prints "listening <port>" once ready.
import { createServer } from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const PROTOCOL = '2026-07-28';
const sleep = (ms, signal) =>
    new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
        const onAbort = () => { clearTimeout(t); reject(signal.reason); };
        signal.addEventListener('abort', onAbort, { once: true });
    });

// One fresh McpServer per HTTP request (createMcpHandler calls the factory per exchange).
function buildServer() {
    const server = new McpServer(
        { name: 'ts-sdk-v2-interop', version: '2.4.0' },
        { supportedProtocolVersions: [PROTOCOL] }
    );

    server.registerTool(
        'echo',
        { description: 'Echo the text back', inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] })
    );

    server.registerTool(
        'add',
        {
            description: 'Add two numbers',
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            outputSchema: z.object({ sum: z.number() })
        },
        async ({ a, b }) => {
            const sum = a + b;
            return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
        }
    );

    server.registerTool(
        'slow',
        { description: 'Sleep ms milliseconds, reporting progress every 100 ms', inputSchema: z.object({ ms: z.number().int().min(0) }) },
        async ({ ms }, ctx) => {
            const signal = ctx.mcpReq.signal;
            const progressToken = ctx.mcpReq._meta?.progressToken;
            const start = Date.now();
            let step = 0;
            try {
                while (Date.now() - start < ms) {
                    await sleep(Math.min(100, ms - (Date.now() - start)), signal);
                    step++;
                    if (progressToken !== undefined && Date.now() - start < ms) {
                        await ctx.mcpReq.notify({
                            method: 'notifications/progress',
                            params: { progressToken, progress: Math.min(Date.now() - start, ms), total: ms, message: `tick ${step}` }
                        });
                    }
                }
            } catch (e) {
                if (signal.aborted) {
                    process.stderr.write(`slow: cancelled after ${Date.now() - start} ms\n`);
                    throw e;
                }
                throw e;
            }
            return { content: [{ type: 'text', text: 'done' }] };
        }
    );
    return server;
}

// legacy: 'reject' => modern-only strict endpoint (no 2025 initialize / stateless fallback).
const handler = createMcpHandler(() => buildServer(), {
    legacy: 'reject',
    onerror: (err) => process.stderr.write(`mcp: ${err.message}\n`)
});
const nodeHandler = toNodeHandler(handler);

const httpServer = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
    }
    nodeHandler(req, res).catch((err) => {
        process.stderr.write(`http: ${err?.stack ?? err}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
    });
});

const port = Number.parseInt(process.argv[2] ?? '0', 10) || 0;
httpServer.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening ${httpServer.address().port}\n`);
});

let stopping = false;
async function shutdown() {
    if (stopping) return;
    stopping = true;
    await handler.close().catch(() => {});
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

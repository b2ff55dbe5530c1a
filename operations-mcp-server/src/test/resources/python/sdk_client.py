#!/usr/bin/env python3
"""MCP interop client (official Python SDK, mcp==2.3.0).

usage: python sdk_client.py <url> <auto|2026|2025> <toolName> <argsJson>
Prints ONE JSON line: {"protocolVersion", "tools", "result", "progress"}; exit 0.
On error prints {"error": "..."} and exits 1. 20 s overall timeout.
"""
import json
import sys

import anyio
from mcp import Client

# Client(mode=...): "auto" = server/discover probe, fall back to initialize;
# "legacy" = initialize handshake (offers LATEST_HANDSHAKE_VERSION = 2025-11-25);
# "2026-07-28" = adopt the stateless era directly (no probe, no initialize).
MODES = {"auto": "auto", "2026": "2026-07-28", "2025": "legacy"}
TIMEOUT_S = 20


def _err_text(exc: BaseException) -> str:
    # Unwrap anyio/TaskGroup ExceptionGroups to the first real cause.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    err = getattr(exc, "error", None)  # mcp.shared.exceptions.MCPError carries ErrorData
    if err is not None and hasattr(err, "code"):
        return f"{type(exc).__name__}: code={err.code} message={err.message} data={err.data!r}"
    return f"{type(exc).__name__}: {exc}"


async def run(url: str, mode: str, tool: str, args: dict) -> dict:
    progress: list[dict] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append({"progress": p, "total": total, "message": message})

    async with Client(url, mode=mode, read_timeout_seconds=TIMEOUT_S) as client:
        tools = []
        cursor = None
        while True:
            listed = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
            tools += [t.name for t in listed.tools]
            cursor = listed.next_cursor
            if not cursor:
                break
        result = await client.call_tool(tool, args, progress_callback=on_progress)
        return {
            "protocolVersion": client.protocol_version,
            "tools": tools,
            "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
            "progress": progress,
        }


async def main() -> int:
    if len(sys.argv) != 5 or sys.argv[2] not in MODES:
        print(json.dumps({"error": "usage: sdk_client.py <url> <auto|2026|2025> <toolName> <argsJson>"}))
        return 1
    url, era, tool, args_json = sys.argv[1:]
    try:
        args = json.loads(args_json)
        with anyio.fail_after(TIMEOUT_S):
            out = await run(url, MODES[era], tool, args)
    except TimeoutError:
        print(json.dumps({"error": f"timeout after {TIMEOUT_S}s"}))
        return 1
    except BaseException as exc:  # noqa: BLE001 - report everything as one JSON line
        if isinstance(exc, KeyboardInterrupt):
            raise
        print(json.dumps({"error": _err_text(exc)}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))

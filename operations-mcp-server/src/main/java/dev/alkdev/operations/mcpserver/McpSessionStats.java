package dev.alkdev.operations.mcpserver;

/**
 * An HTTP endpoint's session table (docs/mcp.md, "Sessions").
 *
 * @param open sessions open now
 * @param expired sessions closed for being unused or idle past their timeout
 * @param evicted sessions closed to make room for a newer one (of the same client at its cap, or of
 *     anyone when the table was full)
 * @param refused initializes refused because nothing could be evicted (every candidate in use)
 */
public record McpSessionStats(int open, long expired, long evicted, long refused) {}

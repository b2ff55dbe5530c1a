/**
 * Response envelopes: every operation result, whatever its source, as a {@link
 * dev.alkdev.operations.envelope.ResponseEnvelope} of {@code data} and a {@code meta} that says
 * where it came from (a local handler, an HTTP response, an MCP tool result).
 *
 * <p>{@link dev.alkdev.operations.envelope.Envelopes} holds the seeds' functions: the factories
 * {@code localEnvelope}, {@code httpEnvelope} and {@code mcpEnvelope}, {@code unwrap}, {@code
 * isResponseEnvelope}, the JSON mapping and the JSON Schema of the envelope. See docs/envelopes.md.
 *
 * <p>JSON values inside envelopes ({@code data}, {@code structuredContent}, unknown fields) are
 * shared, not copied, when envelopes are built, read or written: treat them as read-only.
 */
package dev.alkdev.operations.envelope;

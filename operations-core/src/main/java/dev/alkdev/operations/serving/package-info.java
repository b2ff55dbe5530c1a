/**
 * The serving pipeline: how a call that comes from elsewhere (the call protocol, an HTTP gateway,
 * an MCP server) is served, in one place for every transport. An adapter reads a request its own
 * way, gives it to {@link dev.alkdev.operations.serving.OperationServer#serve} as a {@link
 * dev.alkdev.operations.serving.CallRequest} with the identity it authenticated, and writes what
 * its {@link dev.alkdev.operations.serving.CallSink} hears back its own way; the pipeline applies
 * the access rules, the concurrency cap, the context, the interceptors, dispatch and the result
 * pipeline.
 */
package dev.alkdev.operations.serving;

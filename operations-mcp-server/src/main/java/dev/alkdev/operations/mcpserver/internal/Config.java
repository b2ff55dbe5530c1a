package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.mcpserver.McpAuthenticator;
import dev.alkdev.operations.mcpserver.McpResourceMetadata;
import dev.alkdev.operations.mcpserver.McpTaskMode;
import dev.alkdev.operations.mcpserver.McpToolNames;
import dev.alkdev.operations.serving.ConnectionLimits;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/** What {@code McpServer.Builder} collected; validated there. */
public record Config(
    String serverName,
    String serverVersion,
    Optional<String> instructions,
    String toolPrefix,
    boolean namespaceInNames,
    McpToolNames toolNames,
    Predicate<String> selected,
    Duration defaultDeadline,
    int maxItems,
    long maxItemBytes,
    int pageSize,
    int maxRequestBytes,
    long maxQueuedStreamBytes,
    int maxSessions,
    Duration sessionIdleTimeout,
    int maxSessionsPerClient,
    Duration unusedSessionTimeout,
    ConnectionLimits connectionLimits,
    Set<String> allowedHosts,
    Set<String> allowedOrigins,
    Optional<McpAuthenticator> authenticator,
    Optional<McpResourceMetadata> resourceMetadata,
    Identity stdioIdentity,
    Duration idleTimeout,
    Function<OperationSpec, McpTaskMode> taskMode,
    Duration taskTtl,
    int maxTasks,
    Optional<TaskSharing> taskSharing,
    RequestObserver observer) {

  /** The transport and node id tasks are shared with the mesh's other MCP servers on. */
  public record TaskSharing(dev.alkdev.operations.pubsub.PubSub pubsub, String nodeId) {}
}

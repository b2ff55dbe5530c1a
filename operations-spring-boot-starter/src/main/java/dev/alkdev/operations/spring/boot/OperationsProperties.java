package dev.alkdev.operations.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The starter's settings, under {@code operations}. The three source sections ({@code
 * operations.openapi}, {@code operations.mcp-servers}, {@code operations.sources}) are read as
 * written and handed to {@code ops}' configuration rules, so their keys are ops' own ({@code
 * baseUrl}, {@code tokenEnv}) and secrets are referred to, never written ({@code ${TOKEN}} is read
 * from the environment by the source, not resolved by Spring).
 */
@ConfigurationProperties("operations")
public class OperationsProperties {

  /** Whether the starter configures anything at all. */
  private boolean enabled = true;

  /**
   * Whether the {@code @Operation} methods of every bean and every {@code OperationProvider} bean
   * are registered.
   */
  private boolean scanBeans = true;

  /**
   * An ops configuration file (YAML, or JSON if its name ends in .json) whose sources (openapi,
   * mcpServers, sources) load into the registry at start-up.
   */
  private String configFile;

  /** A file in the format MCP hosts write ({"mcpServers": {...}}) whose servers load as sources. */
  private String mcpServersFile;

  /**
   * OpenAPI documents by namespace, as ops' {@code openapi} section: {@code
   * operations.openapi.NAME.location} (a file or URL), {@code .baseUrl}, {@code .auth}.
   */
  private Map<String, Object> openapi = new LinkedHashMap<>();

  /**
   * MCP servers by namespace, as ops' {@code mcpServers} section: {@code command}, {@code args},
   * {@code env}, or {@code url}, {@code headers}.
   */
  private Map<String, Object> mcpServers = new LinkedHashMap<>();

  /**
   * Sources of any kind by namespace, as ops' {@code sources} section ({@code kind} and its
   * settings).
   */
  private Map<String, Object> sources = new LinkedHashMap<>();

  /** How long start-up waits for the sources (and remote catalogs) to load. */
  private Duration loadTimeout = Duration.ofSeconds(30);

  private final Serving serving = new Serving();
  private final Http http = new Http();
  private final Mcp mcp = new Mcp();
  private final Transport nats = new Transport();
  private final Transport redis = new Transport();
  private final Node node = new Node();
  private final Ai ai = new Ai();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isScanBeans() {
    return scanBeans;
  }

  public void setScanBeans(boolean scanBeans) {
    this.scanBeans = scanBeans;
  }

  public String getConfigFile() {
    return configFile;
  }

  public void setConfigFile(String configFile) {
    this.configFile = configFile;
  }

  public String getMcpServersFile() {
    return mcpServersFile;
  }

  public void setMcpServersFile(String mcpServersFile) {
    this.mcpServersFile = mcpServersFile;
  }

  public Map<String, Object> getOpenapi() {
    return openapi;
  }

  public void setOpenapi(Map<String, Object> openapi) {
    this.openapi = openapi;
  }

  public Map<String, Object> getMcpServers() {
    return mcpServers;
  }

  public void setMcpServers(Map<String, Object> mcpServers) {
    this.mcpServers = mcpServers;
  }

  public Map<String, Object> getSources() {
    return sources;
  }

  public void setSources(Map<String, Object> sources) {
    this.sources = sources;
  }

  public Duration getLoadTimeout() {
    return loadTimeout;
  }

  public void setLoadTimeout(Duration loadTimeout) {
    this.loadTimeout = loadTimeout;
  }

  public Serving getServing() {
    return serving;
  }

  public Http getHttp() {
    return http;
  }

  public Mcp getMcp() {
    return mcp;
  }

  /** NATS: {@code operations.nats.url}, {@code .serve}, {@code .import-operations}. */
  public Transport getNats() {
    return nats;
  }

  /**
   * Redis: as NATS; without {@code operations.redis.url} the URL is made from Boot's own {@code
   * spring.data.redis.*} properties.
   */
  public Transport getRedis() {
    return redis;
  }

  public Node getNode() {
    return node;
  }

  public Ai getAi() {
    return ai;
  }

  /** Spring AI: the operations as tools of chat clients, and Spring AI tools as operations. */
  public static class Ai {
    /** Whether a ToolCallbackProvider bean offers the registry's operations as tools. */
    private boolean tools = true;

    /** The subject the model calls as. */
    private String subject = "chat";

    /** The scopes the model has: only operations these allow are offered. */
    private List<String> scopes = new ArrayList<>();

    /** Globs of operation ids offered; empty for all the scopes allow. */
    private List<String> include = new ArrayList<>();

    /** Globs of operation ids never offered. */
    private List<String> exclude = new ArrayList<>();

    /** How many items of a subscription a tool call collects before it answers. */
    private int subscriptionItems = 20;

    /** How long a tool call collects a subscription's items before it answers. */
    private Duration subscriptionWindow = Duration.ofSeconds(5);

    /** Each tool call's deadline. */
    private Duration timeout = Duration.ofSeconds(30);

    /**
     * Whether the application's Spring AI tools (ToolCallbackProvider and ToolCallback beans) are
     * registered as operations, so they are served over HTTP, MCP and the transports.
     */
    private boolean importTools;

    /** The namespace of imported Spring AI tools. */
    private String importNamespace = "tools";

    /**
     * The scopes a caller needs for the imported tools; none by default, so keep the servers on
     * loopback or set an authenticator when the tools act on anything.
     */
    private List<String> importScopes = new ArrayList<>();

    public List<String> getImportScopes() {
      return importScopes;
    }

    public void setImportScopes(List<String> importScopes) {
      this.importScopes = importScopes;
    }

    public boolean isTools() {
      return tools;
    }

    public void setTools(boolean tools) {
      this.tools = tools;
    }

    public String getSubject() {
      return subject;
    }

    public void setSubject(String subject) {
      this.subject = subject;
    }

    public List<String> getScopes() {
      return scopes;
    }

    public void setScopes(List<String> scopes) {
      this.scopes = scopes;
    }

    public List<String> getInclude() {
      return include;
    }

    public void setInclude(List<String> include) {
      this.include = include;
    }

    public List<String> getExclude() {
      return exclude;
    }

    public void setExclude(List<String> exclude) {
      this.exclude = exclude;
    }

    public int getSubscriptionItems() {
      return subscriptionItems;
    }

    public void setSubscriptionItems(int subscriptionItems) {
      this.subscriptionItems = subscriptionItems;
    }

    public Duration getSubscriptionWindow() {
      return subscriptionWindow;
    }

    public void setSubscriptionWindow(Duration subscriptionWindow) {
      this.subscriptionWindow = subscriptionWindow;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public boolean isImportTools() {
      return importTools;
    }

    public void setImportTools(boolean importTools) {
      this.importTools = importTools;
    }

    public String getImportNamespace() {
      return importNamespace;
    }

    public void setImportNamespace(String importNamespace) {
      this.importNamespace = importNamespace;
    }
  }

  /** The serving pipeline's capacity (the HTTP gateway, the MCP server and nodes share it). */
  public static class Serving {
    /** Queries and mutations served at once; 0 for the pipeline's default. */
    private int maxConcurrentCalls;

    /** Subscriptions served at once; 0 for the pipeline's default. */
    private int maxConcurrentStreams;

    /** Calls one caller may have running at once; 0 for the pipeline's default. */
    private int maxCallsPerIdentity;

    /** How long stopping waits for calls in flight to finish. */
    private Duration drainTimeout = Duration.ofSeconds(10);

    public int getMaxConcurrentCalls() {
      return maxConcurrentCalls;
    }

    public void setMaxConcurrentCalls(int maxConcurrentCalls) {
      this.maxConcurrentCalls = maxConcurrentCalls;
    }

    public int getMaxConcurrentStreams() {
      return maxConcurrentStreams;
    }

    public void setMaxConcurrentStreams(int maxConcurrentStreams) {
      this.maxConcurrentStreams = maxConcurrentStreams;
    }

    public int getMaxCallsPerIdentity() {
      return maxCallsPerIdentity;
    }

    public void setMaxCallsPerIdentity(int maxCallsPerIdentity) {
      this.maxCallsPerIdentity = maxCallsPerIdentity;
    }

    public Duration getDrainTimeout() {
      return drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
      this.drainTimeout = drainTimeout;
    }
  }

  /** A server on a port of its own (the HTTP gateway, the MCP server). */
  public static class Listener {
    /** Whether it runs. */
    private boolean enabled;

    /** The address it binds: loopback unless set otherwise. */
    private String host = "127.0.0.1";

    /** Its port; 0 for any free port. */
    private int port;

    /** Host header values it accepts besides loopback names (DNS-rebinding protection). */
    private List<String> allowedHosts = new ArrayList<>();

    /** Origins whose browser requests it accepts. */
    private List<String> allowedOrigins = new ArrayList<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getHost() {
      return host;
    }

    public void setHost(String host) {
      this.host = host;
    }

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }

    public List<String> getAllowedHosts() {
      return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
      this.allowedHosts = allowedHosts;
    }

    public List<String> getAllowedOrigins() {
      return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
      this.allowedOrigins = allowedOrigins;
    }
  }

  /** The HTTP gateway: operations at /ops/{id}, the OpenAPI document and the console. */
  public static class Http extends Listener {
    /** Whether the web console is served at /. */
    private boolean console = true;

    public boolean isConsole() {
      return console;
    }

    public void setConsole(boolean console) {
      this.console = console;
    }
  }

  /** The MCP server over streamable HTTP: every operation as a tool. */
  public static class Mcp extends Listener {
    /** Globs of operation ids offered as tools; empty for all. */
    private List<String> include = new ArrayList<>();

    /** Globs of operation ids never offered. */
    private List<String> exclude = new ArrayList<>();

    public List<String> getInclude() {
      return include;
    }

    public void setInclude(List<String> include) {
      this.include = include;
    }

    public List<String> getExclude() {
      return exclude;
    }

    public void setExclude(List<String> exclude) {
      this.exclude = exclude;
    }
  }

  /** A remote transport (NATS, Redis). */
  public static class Transport {
    /** The server's URL, e.g. nats://127.0.0.1:4222 or redis://127.0.0.1:6379. */
    private String url;

    /** Whether this application serves its operations as a node on the transport. */
    private boolean serve;

    /** Whether the operations other nodes serve on the transport are registered here. */
    private boolean importOperations;

    /** How long start-up waits to connect. */
    private Duration connectTimeout = Duration.ofSeconds(10);

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public boolean isServe() {
      return serve;
    }

    public void setServe(boolean serve) {
      this.serve = serve;
    }

    public boolean isImportOperations() {
      return importOperations;
    }

    public void setImportOperations(boolean importOperations) {
      this.importOperations = importOperations;
    }

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }
  }

  /** This application as a node on NATS or Redis. */
  public static class Node {
    /** Its node id; empty for a generated one. */
    private String id;

    /** How often it announces itself. */
    private Duration heartbeat = Duration.ofSeconds(2);

    public String getId() {
      return id;
    }

    public void setId(String id) {
      this.id = id;
    }

    public Duration getHeartbeat() {
      return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
      this.heartbeat = heartbeat;
    }
  }
}

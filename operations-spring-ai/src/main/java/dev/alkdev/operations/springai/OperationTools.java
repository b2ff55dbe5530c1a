package dev.alkdev.operations.springai;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.ToolNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * A registry's operations as Spring AI tools: one {@link ToolCallback} per operation the caller may
 * call, offered to a chat model through {@code ChatClient...toolCallbacks(tools)}.
 *
 * <pre>{@code
 * OperationTools tools = OperationTools.builder(registry)
 *     .identity(Identity.of("ada", "billing:read"))
 *     .include("billing.*")
 *     .build();
 * String answer = chatClient.prompt("What do I owe?").toolCallbacks(tools).call().content();
 * }</pre>
 *
 * <h2>Which operations</h2>
 *
 * Those {@link Builder#identity the caller} may call ({@link OperationRegistry#listCallableBy}): a
 * caller without a required scope does not see the tool at all. The list is taken when {@link
 * Builder#build()} runs; build again to offer operations registered later.
 *
 * <h2>Names</h2>
 *
 * Model APIs accept tool names matching {@code ^[a-zA-Z0-9_-]{1,64}$}, so every other character of
 * an operation id becomes {@code _} ({@code billing.invoices.get} is {@code billing_invoices_get});
 * a name longer than 64 characters keeps its head and ends with {@code _} and the CRC-32 of the
 * whole ({@link #toolName}). Two operations that would get the same name ({@code a.b_c} and {@code
 * a_b.c}): the later in id order gets a name with a checksum of its id; one whose names are both
 * taken is left out, with a warning. The rule is core's {@link dev.alkdev.operations.ToolNames},
 * the MCP server's too (its model-safe names), so a model meets an operation under one name.
 *
 * <h2>Input</h2>
 *
 * The tool's input schema is the operation's input JSON Schema when it is an object schema ({@code
 * "type": "object"}). Model APIs take nothing else, so any other input schema (a string, an array,
 * a {@code oneOf}) is wrapped: the tool takes {@code {"input": <the operation's input>}}, and the
 * operation gets what is under {@code input}. An operation without an input schema takes an open
 * object. Validation is the registry's, against the operation's own schema.
 *
 * <h2>Results and errors</h2>
 *
 * The result is the response envelope's {@code data} as JSON text. A failed call never throws: the
 * model reads {@code error CODE: what happened. What to do.}, for instance {@code error
 * INVALID_INPUT: input is invalid: /count: string found, integer expected. Fix the arguments to
 * match the tool's input schema and call again.} This holds for unknown operations, ACCESS_DENIED,
 * INVALID_INPUT (every located schema error, up to ten), arguments that are not JSON, handler
 * failures (EXECUTION_ERROR, whose message never quotes the handler's exception), DEADLINE_EXCEEDED
 * after {@link Builder#timeout} and every other {@code CallError}.
 *
 * <p>Why text rather than a {@code ToolExecutionException}: in Spring AI 2.0.1, {@code
 * DefaultToolCallingManager} catches only {@code ToolExecutionException} and hands it to the {@code
 * ToolExecutionExceptionProcessor}, whose default turns it into the exception's message for the
 * model, unless the application sets {@code alwaysThrow} ({@code
 * spring.ai.tools.throw-exception-on-error}) or lists the cause's class to rethrow; then the whole
 * chat request fails. Any other exception escapes and fails the request. A refused or invalid call
 * is an answer the model can act on (fix the arguments, stop calling, tell the user), not a failure
 * of the application, so it must reach the model whatever the processor's settings, and it must say
 * what to do, which a bare exception message does not. Only a misuse by the application throws: a
 * tool context whose {@link #IDENTITY_KEY} holds something other than an {@link Identity}.
 *
 * <h2>Subscriptions</h2>
 *
 * A model cannot hold a stream open, so a SUBSCRIPTION becomes a tool that subscribes, collects
 * items until {@link Builder#subscriptionItems} have come or {@link Builder#subscriptionWindow} has
 * passed, whichever is first, then cancels the subscription (which releases the handler) and
 * returns {@code {"items": [...], "complete": true|false}}: {@code complete} is true when the
 * stream ended by itself. A stream that fails after some items adds {@code "error": "error CODE:
 * ..."}; one that fails before any is an error text. The tool's description tells the model so.
 *
 * <h2>Identity</h2>
 *
 * Calls run as {@link Builder#identity}, or as the {@link Identity} the request's tool context
 * holds under {@link #IDENTITY_KEY} ({@code .toolContext(Map.of(OperationTools.IDENTITY_KEY,
 * user))}): the tool context is the application's, never the model's. Access is checked again at
 * every call, with the identity of that call, so a tool offered to one caller is refused (as
 * ACCESS_DENIED text) to another without the scopes.
 */
public final class OperationTools implements ToolCallbackProvider {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(OperationTools.class);

  /**
   * The tool context key under which a request may give the {@link Identity} its tool calls run as,
   * in place of the builder's.
   */
  public static final String IDENTITY_KEY = "dev.alkdev.operations.identity";

  private final List<ToolCallback> callbacks;

  private OperationTools(List<ToolCallback> callbacks) {
    this.callbacks = List.copyOf(callbacks);
  }

  /** A builder of the tools of {@code registry}'s operations. */
  public static Builder builder(OperationRegistry registry) {
    return new Builder(registry);
  }

  /**
   * The tool name of an operation id: {@code [a-zA-Z0-9_-]} kept, anything else {@code _}, at most
   * 64 characters (see the class comment).
   */
  public static String toolName(String operationId) {
    Objects.requireNonNull(operationId, "operationId");
    return ToolNames.fit(ToolNames.modelSafe(operationId));
  }

  /** The tools, one per operation, in operation id order. */
  public List<ToolCallback> toolCallbacks() {
    return callbacks;
  }

  /** The tools, as Spring AI's {@link ToolCallbackProvider} gives them; a fresh array each time. */
  @Override
  public ToolCallback[] getToolCallbacks() {
    return callbacks.toArray(new ToolCallback[0]);
  }

  @Override
  public String toString() {
    return "OperationTools" + callbacks.stream().map(c -> c.getToolDefinition().name()).toList();
  }

  /** What every tool of one {@link OperationTools} shares. */
  record Settings(
      Identity identity, int subscriptionItems, Duration subscriptionWindow, Duration timeout) {}

  /** Configures {@link OperationTools}; {@link #build()} takes the operations. */
  public static final class Builder {
    /** Enough of a stream for a model to see what it carries, little enough for its context. */
    static final int DEFAULT_SUBSCRIPTION_ITEMS = 20;

    static final int MAX_SUBSCRIPTION_ITEMS = 10_000;
    static final Duration DEFAULT_SUBSCRIPTION_WINDOW = Duration.ofSeconds(5);

    /** A chat turn waits for its tool calls, so each gets a deadline. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final OperationRegistry registry;
    private Identity identity = Identity.anonymous();
    private final List<Pattern> includes = new ArrayList<>();
    private final List<Pattern> excludes = new ArrayList<>();
    private int subscriptionItems = DEFAULT_SUBSCRIPTION_ITEMS;
    private Duration subscriptionWindow = DEFAULT_SUBSCRIPTION_WINDOW;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder(OperationRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Who calls: only the operations this identity may call become tools, and calls run as it
     * unless the request's tool context gives another ({@link #IDENTITY_KEY}). Anonymous by
     * default, which sees only operations that need no scope.
     */
    public Builder identity(Identity identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /**
     * Offers only operations whose id matches one of these patterns ({@code *} matches any run of
     * characters: {@code billing.*}, {@code *.get}); called again, adds patterns. Without any,
     * every operation the identity may call is offered.
     */
    public Builder include(String... patterns) {
      includes.addAll(globs(patterns, "include"));
      return this;
    }

    /** Leaves out operations whose id matches one of these patterns (as in {@link #include}). */
    public Builder exclude(String... patterns) {
      excludes.addAll(globs(patterns, "exclude"));
      return this;
    }

    /**
     * The most items a SUBSCRIPTION's tool collects before it cancels the stream; 20 by default.
     */
    public Builder subscriptionItems(int max) {
      if (max < 1 || max > MAX_SUBSCRIPTION_ITEMS) {
        throw new IllegalArgumentException(
            "subscriptionItems must be 1 to " + MAX_SUBSCRIPTION_ITEMS + ", was " + max);
      }
      this.subscriptionItems = max;
      return this;
    }

    /**
     * The longest a SUBSCRIPTION's tool collects items before it cancels the stream; 5 seconds by
     * default. Keep it shorter than {@link #timeout}, which is the stream's deadline.
     */
    public Builder subscriptionWindow(Duration window) {
      this.subscriptionWindow = positive(window, "subscriptionWindow");
      return this;
    }

    /**
     * Each call's deadline (the context's, so the registry fails the call with DEADLINE_EXCEEDED
     * and cancels its handler); 30 seconds by default.
     */
    public Builder timeout(Duration timeout) {
      this.timeout = positive(timeout, "timeout");
      return this;
    }

    /**
     * Takes the operations the identity may call, filtered, and makes their tools. Two ids with one
     * tool name ({@code a.b_c}, {@code a_b.c}): the later id in id order is named with a checksum
     * ({@link ToolNames#distinct}); one that cannot be named so is left out, with a warning.
     */
    public OperationTools build() {
      Settings settings = new Settings(identity, subscriptionItems, subscriptionWindow, timeout);
      Map<String, String> idsByName = new HashMap<>();
      List<ToolCallback> callbacks = new ArrayList<>();
      List<OperationSpec> specs = new ArrayList<>(registry.listCallableBy(identity));
      specs.sort(java.util.Comparator.comparing(OperationSpec::id));
      for (OperationSpec spec : specs) {
        if (!offered(spec.id())) {
          continue;
        }
        String wanted = ToolNames.modelSafe(spec.id());
        String name = ToolNames.fit(wanted);
        if (idsByName.containsKey(name)) {
          // Two ids, one name (a.b_c and a_b.c): the later id, in id order, takes a name with
          // its hash; should that be taken too, it is left out rather than guessed. A registry
          // that changes (remote nodes come and go) never makes the whole set fail.
          String distinct = ToolNames.distinct(wanted, spec.id());
          if (idsByName.containsKey(distinct)) {
            LOG.warn(
                "operation {} is not offered as a tool: its names {} and {} are taken by {} and {}",
                spec.id(),
                name,
                distinct,
                idsByName.get(name),
                idsByName.get(distinct));
            continue;
          }
          name = distinct;
        }
        idsByName.put(name, spec.id());
        callbacks.add(new OperationToolCallback(registry, spec, name, settings));
      }
      return new OperationTools(callbacks);
    }

    private boolean offered(String operationId) {
      boolean included =
          includes.isEmpty() || includes.stream().anyMatch(p -> p.matcher(operationId).matches());
      return included && excludes.stream().noneMatch(p -> p.matcher(operationId).matches());
    }

    private static List<Pattern> globs(String[] patterns, String what) {
      Objects.requireNonNull(patterns, what);
      List<Pattern> compiled = new ArrayList<>();
      for (String pattern : patterns) {
        if (pattern == null || pattern.isBlank()) {
          throw new IllegalArgumentException(
              what + " pattern must be an operation id or a glob like billing.*, was blank");
        }
        StringBuilder regex = new StringBuilder();
        for (String part : pattern.split("\\*", -1)) {
          if (regex.length() > 0) {
            regex.append(".*");
          }
          regex.append(Pattern.quote(part));
        }
        compiled.add(Pattern.compile(regex.toString()));
      }
      return compiled;
    }

    private static Duration positive(Duration duration, String what) {
      Objects.requireNonNull(duration, what);
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + duration);
      }
      return duration;
    }
  }
}

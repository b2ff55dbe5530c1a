package dev.alkdev.operations.metrics;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.ProtocolStats;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.serving.ServingStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import tools.jackson.databind.JsonNode;

/**
 * Records every call a registry runs on a Micrometer {@link MeterRegistry}. Install it on the
 * registry's builder:
 *
 * <pre>{@code
 * OperationRegistry registry = OperationRegistry.builder()
 *     .interceptor(OperationMetrics.create(meterRegistry))
 *     .build();
 * }</pre>
 *
 * <p>Meters (tags {@code operation}, {@code origin} = {@code in_process} | {@code served}, and
 * {@code outcome} = {@code OK} or the {@link ErrorCode}):
 *
 * <ul>
 *   <li>{@code operations.calls} (timer): unary calls, their latency and outcome;
 *   <li>{@code operations.streams} (timer): streams, from subscription to their end, and outcome;
 *   <li>{@code operations.stream.items} (counter): items delivered to stream subscribers;
 *   <li>{@code operations.calls.active} (gauge, tag {@code kind} = {@code unary} | {@code stream}):
 *       calls started and not yet ended;
 *   <li>{@code operations.upstream.http.responses} (counter, tag {@code status}): upstream HTTP
 *       statuses of unary calls answered by an HTTP adapter (OpenAPI), read from the result's
 *       {@link HttpResponseMeta} or, for a non-2xx answer, from the EXECUTION_ERROR's details;
 *   <li>{@code operations.upstream.mcp.results} (counter, tag {@code is_error}): results of unary
 *       calls answered by an MCP tool, by their {@link McpResponseMeta#isError()}.
 * </ul>
 *
 * <p>Tags stay low-cardinality: a call for an operation the registry does not have is tagged {@code
 * operation="unknown"} (the id is the caller's text, and a caller must not be able to create
 * meters), and request ids never become tags. Immutable and thread-safe.
 */
public final class OperationMetrics implements OperationInterceptor {
  /** The tag value for calls to an operation the registry does not have. */
  public static final String UNKNOWN_OPERATION = "unknown";

  private static final String[] OUTCOMES = outcomes();

  private final MeterRegistry registry;
  private final double[] percentiles;
  private final boolean histogram;
  private final Duration[] slos;
  // operation id -> meters per origin and kind (index: origin * 2 + (stream ? 1 : 0)). Bounded by
  // the registered operations plus "unknown".
  private final ConcurrentHashMap<String, AtomicReferenceArray<Meters>> meters =
      new ConcurrentHashMap<>();

  private OperationMetrics(Builder b) {
    this.registry = b.registry;
    this.percentiles = b.percentiles.clone();
    this.histogram = b.histogram;
    this.slos = b.slos.clone();
  }

  /**
   * Metrics on {@code registry} with a percentile histogram on the timers (what Prometheus and most
   * backends aggregate), no client-side percentiles.
   */
  public static OperationMetrics create(MeterRegistry registry) {
    return builder(registry).build();
  }

  /** A builder for metrics on {@code registry}. */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  @Override
  public void intercept(Invocation invocation, Chain chain) {
    String operation = invocation.spec().isPresent() ? invocation.operationId() : UNKNOWN_OPERATION;
    Meters m = meters(operation, invocation.origin(), invocation.stream());
    m.active.incrementAndGet();
    chain.proceed(invocation.context(), new Observed(m, System.nanoTime()));
  }

  private Meters meters(String operation, Origin origin, boolean stream) {
    AtomicReferenceArray<Meters> row =
        meters.computeIfAbsent(
            operation, k -> new AtomicReferenceArray<>(Origin.values().length * 2));
    int index = origin.ordinal() * 2 + (stream ? 1 : 0);
    Meters m = row.get(index);
    if (m == null) {
      m = new Meters(operation, origin, stream);
      if (!row.compareAndSet(index, null, m)) {
        m = row.get(index);
      }
    }
    return m;
  }

  /**
   * Gauges and counters for a serving pipeline's statistics ({@code OperationServer.stats()},
   * {@code ServingNode}'s server), tagged {@code server}, and for the two lanes also {@code lane} =
   * {@code unary} | {@code stream}: {@code operations.serving.running} and {@code
   * operations.serving.capacity} (capacity in use and its bound, per lane), {@code
   * operations.serving.callers} (callers with work running), {@code operations.serving.waiting}
   * (handlers waiting for a thread: queued work), {@code operations.serving.saturated} (1 while a
   * lane is full: what readiness reports), {@code operations.serving.refused} (RESOURCE_EXHAUSTED
   * refusals, with {@code scope} = {@code server} for a full lane and {@code caller} for a caller
   * over its share) and {@code operations.serving.execution.errors}. The supplier is read when the
   * registry is scraped; it must be quick.
   */
  public static void bindServingStats(
      MeterRegistry registry, String server, Supplier<ServingStats> stats) {
    Objects.requireNonNull(stats, "stats");
    Tags tags = Tags.of("server", Objects.requireNonNull(server, "server"));
    Tags unary = tags.and("lane", "unary");
    Tags stream = tags.and("lane", "stream");
    Gauge.builder("operations.serving.running", stats, s -> s.get().calls())
        .description("Calls admitted by the serving pipeline and not yet ended")
        .tags(unary)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.running", stats, s -> s.get().streams())
        .description("Calls admitted by the serving pipeline and not yet ended")
        .tags(stream)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.capacity", stats, s -> s.get().maxConcurrentCalls())
        .description("The most calls of a lane the serving pipeline runs at once")
        .tags(unary)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.capacity", stats, s -> s.get().maxConcurrentStreams())
        .description("The most calls of a lane the serving pipeline runs at once")
        .tags(stream)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.callers", stats, s -> s.get().callers())
        .description("Callers (identities or anonymous clients) with a call or stream running")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.waiting", stats, s -> s.get().waiting())
        .description("Blocking handlers and emitters admitted and waiting for a thread")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    Gauge.builder("operations.serving.saturated", stats, s -> s.get().saturated() ? 1 : 0)
        .description("1 while a lane is full, so that new calls of its kind are refused")
        .tags(tags)
        .strongReference(true) // the supplier is often a method reference nothing else holds
        .register(registry);
    FunctionCounter.builder("operations.serving.refused", stats, s -> s.get().refusedServerFull())
        .description("Calls refused with RESOURCE_EXHAUSTED for capacity")
        .tags(tags.and("scope", "server"))
        .register(registry);
    FunctionCounter.builder("operations.serving.refused", stats, s -> s.get().refusedCallerShare())
        .description("Calls refused with RESOURCE_EXHAUSTED for capacity")
        .tags(tags.and("scope", "caller"))
        .register(registry);
    FunctionCounter.builder(
            "operations.serving.execution.errors", stats, s -> s.get().executionErrors())
        .description("Served calls whose handler failed (EXECUTION_ERROR)")
        .tags(tags)
        .register(registry);
  }

  /**
   * Gauges and counters for a call-protocol endpoint's statistics ({@code
   * PendingRequestMap.stats()}, {@code CallHandler.stats()}, {@code ServingNode.stats()}): {@code
   * operations.protocol.pending}, {@code operations.protocol.late} (answers that arrived after
   * their call ended) and {@code operations.protocol.malformed} (messages that were not valid
   * events), tagged {@code endpoint}.
   */
  public static void bindProtocolStats(
      MeterRegistry registry, String endpoint, Supplier<ProtocolStats> stats) {
    Objects.requireNonNull(stats, "stats");
    Tags tags = Tags.of("endpoint", Objects.requireNonNull(endpoint, "endpoint"));
    Gauge.builder("operations.protocol.pending", stats, s -> s.get().pending())
        .description("Calls waiting for their answer")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    FunctionCounter.builder("operations.protocol.late", stats, s -> s.get().late())
        .description("Answers that arrived after their call had ended")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("operations.protocol.malformed", stats, s -> s.get().malformed())
        .description("Messages dropped because they were not valid call events")
        .tags(tags)
        .register(registry);
  }

  /**
   * Counters for a transport's {@link PubSub#transportStats()}, tagged {@code transport} (a name
   * the application picks, low-cardinality: {@code nats}, {@code redis}, {@code hub}, ...): {@code
   * operations.transport.messages} and {@code operations.transport.bytes} (payload bytes), each
   * with {@code direction} = {@code published} | {@code received}; {@code
   * operations.transport.messages.dropped}; {@code operations.transport.reconnects}; {@code
   * operations.transport.slow.consumers}. Read when the registry is scraped; nothing is added to
   * the transport's own path beyond its counters.
   */
  public static void bindTransport(MeterRegistry registry, String transport, PubSub pubsub) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(pubsub, "pubsub");
    pubsub.transportStats(); // a transport that counts lazily (in-process) starts now
    Tags tags = Tags.of("transport", Objects.requireNonNull(transport, "transport"));
    Tags out = tags.and("direction", "published");
    Tags in = tags.and("direction", "received");
    transportCounter(
        registry, "operations.transport.messages", out, null, pubsub, TransportStats::published);
    transportCounter(
        registry, "operations.transport.messages", in, null, pubsub, TransportStats::received);
    transportCounter(
        registry,
        "operations.transport.bytes",
        out,
        "bytes",
        pubsub,
        TransportStats::publishedBytes);
    transportCounter(
        registry, "operations.transport.bytes", in, "bytes", pubsub, TransportStats::receivedBytes);
    transportCounter(
        registry,
        "operations.transport.messages.dropped",
        tags,
        null,
        pubsub,
        TransportStats::dropped);
    transportCounter(
        registry,
        "operations.transport.reconnects",
        tags,
        null,
        pubsub,
        TransportStats::reconnects);
    transportCounter(
        registry,
        "operations.transport.slow.consumers",
        tags,
        null,
        pubsub,
        TransportStats::slowConsumerEvents);
  }

  private static void transportCounter(
      MeterRegistry registry,
      String name,
      Tags tags,
      String unit,
      PubSub pubsub,
      ToLongFunction<TransportStats> count) {
    FunctionCounter.Builder<PubSub> builder =
        FunctionCounter.builder(name, pubsub, p -> count.applyAsLong(p.transportStats()))
            .description(TRANSPORT_DESCRIPTIONS.get(name))
            .tags(tags);
    if (unit != null) {
      builder.baseUnit(unit);
    }
    builder.register(registry);
  }

  private static final java.util.Map<String, String> TRANSPORT_DESCRIPTIONS =
      java.util.Map.of(
          "operations.transport.messages", "Messages the transport sent out or handed to receivers",
          "operations.transport.bytes", "Payload bytes of those messages",
          "operations.transport.messages.dropped",
              "Messages lost to a full buffer or a connection that could not take them",
          "operations.transport.reconnects", "Times the transport got its connection back",
          "operations.transport.slow.consumers",
              "Consumers a broker or peer reported or cut for falling behind");

  private static String[] outcomes() {
    ErrorCode[] codes = ErrorCode.values();
    String[] names = new String[codes.length + 1];
    for (ErrorCode code : codes) {
      names[code.ordinal()] = code.name();
    }
    names[codes.length] = "OK";
    return names;
  }

  /** The meters of one operation, origin and kind; timers per outcome are made on first use. */
  private final class Meters {
    final String operation;
    final String origin;
    final boolean stream;
    final AtomicInteger active = new AtomicInteger();
    final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(OUTCOMES.length);
    final Counter items;
    // Upstream HTTP statuses by code (at most 900 of them), MCP results by isError: made on first
    // use, since most operations are neither.
    final ConcurrentHashMap<Integer, Counter> httpStatuses = new ConcurrentHashMap<>();
    final AtomicReferenceArray<Counter> mcpResults = new AtomicReferenceArray<>(2);

    Meters(String operation, Origin origin, boolean stream) {
      this.operation = operation;
      this.origin = origin.name().toLowerCase(Locale.ROOT);
      this.stream = stream;
      Gauge.builder("operations.calls.active", active, AtomicInteger::get)
          .description("Calls started and not yet ended")
          .tags("operation", operation, "origin", this.origin, "kind", stream ? "stream" : "unary")
          .register(registry);
      this.items =
          stream
              ? Counter.builder("operations.stream.items")
                  .description("Items delivered to stream subscribers")
                  .tags("operation", operation, "origin", this.origin)
                  .register(registry)
              : null;
    }

    void httpStatus(int status) {
      httpStatuses
          .computeIfAbsent(
              status,
              code ->
                  Counter.builder("operations.upstream.http.responses")
                      .description("Upstream HTTP responses by status, of calls an adapter made")
                      .tags(
                          "operation", operation, "origin", origin, "status", String.valueOf(code))
                      .register(registry))
          .increment();
    }

    void mcpResult(boolean isError) {
      int index = isError ? 1 : 0;
      Counter counter = mcpResults.get(index);
      if (counter == null) {
        counter =
            Counter.builder("operations.upstream.mcp.results")
                .description("Results of upstream MCP tool calls, by isError")
                .tags("operation", operation, "origin", origin, "is_error", String.valueOf(isError))
                .register(registry);
        mcpResults.set(index, counter); // a race registers once: Micrometer returns the same one
      }
      counter.increment();
    }

    Timer timer(int outcome) {
      Timer timer = timers.get(outcome);
      if (timer == null) {
        Timer.Builder builder =
            Timer.builder(stream ? "operations.streams" : "operations.calls")
                .description(
                    stream
                        ? "Streams, from subscription to their end"
                        : "Unary calls, from start to result or error")
                .tags("operation", operation, "origin", origin, "outcome", OUTCOMES[outcome])
                .publishPercentileHistogram(histogram);
        if (percentiles.length > 0) {
          builder.publishPercentiles(percentiles);
        }
        if (slos.length > 0) {
          builder.serviceLevelObjectives(slos);
        }
        // Micrometer returns the same timer for the same name and tags: a race registers once.
        timer = builder.register(registry);
        timers.set(outcome, timer);
      }
      return timer;
    }
  }

  /** One call's end: its duration on the timer of its outcome. */
  private static final class Observed implements CallObserver {
    private final Meters meters;
    private final long start;

    Observed(Meters meters, long start) {
      this.meters = meters;
      this.start = start;
    }

    @Override
    public void onResult(ResponseEnvelope<JsonNode> result) {
      if (result.meta() instanceof HttpResponseMeta http) {
        meters.httpStatus(http.statusCode());
      } else if (result.meta() instanceof McpResponseMeta mcp) {
        meters.mcpResult(mcp.isError());
      }
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {
      if (meters.items != null) {
        meters.items.increment();
      }
    }

    @Override
    public void onEnd(Optional<CallError> failure) {
      long elapsed = System.nanoTime() - start;
      meters.active.decrementAndGet();
      int outcome = failure.isPresent() ? failure.get().code().ordinal() : OUTCOMES.length - 1;
      if (failure.isPresent() && !meters.stream) {
        upstreamStatus(failure.get()).ifPresent(meters::httpStatus);
      }
      meters.timer(outcome).record(elapsed, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The upstream status of an HTTP adapter's failed call: the OpenAPI adapter fails a non-2xx
   * answer with EXECUTION_ERROR and details {@code {status, contentType, body, truncated}}. Only
   * that shape counts, so a handler's own error details do not mint status tags.
   */
  static Optional<Integer> upstreamStatus(CallError error) {
    if (error.code() != ErrorCode.EXECUTION_ERROR || error.details().isEmpty()) {
      return Optional.empty();
    }
    JsonNode details = error.details().get();
    JsonNode status = details.get("status");
    if (status == null
        || !status.isInt()
        || status.intValue() < 100
        || status.intValue() > 999
        || details.get("contentType") == null
        || !details.get("contentType").isString()
        || details.get("body") == null) {
      return Optional.empty();
    }
    return Optional.of(status.intValue());
  }

  /** Options for {@link OperationMetrics}. */
  public static final class Builder {
    private final MeterRegistry registry;
    private double[] percentiles = new double[0];
    private boolean histogram = true;
    private Duration[] slos = new Duration[0];

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Client-side percentiles to publish on the timers (each in [0, 1], e.g. 0.5, 0.95, 0.99): they
     * cannot be aggregated across instances; prefer the histogram where the backend has one.
     */
    public Builder percentiles(double... percentiles) {
      for (double p : percentiles) {
        if (!(p >= 0 && p <= 1)) {
          throw new IllegalArgumentException("a percentile is between 0 and 1, was " + p);
        }
      }
      this.percentiles = percentiles.clone();
      return this;
    }

    /** Whether the timers publish a percentile histogram (default true). */
    public Builder histogram(boolean histogram) {
      this.histogram = histogram;
      return this;
    }

    /** Service-level objectives: the timers count calls under each of these durations. */
    public Builder serviceLevelObjectives(Duration... slos) {
      for (Duration slo : slos) {
        if (slo == null || slo.isNegative() || slo.isZero()) {
          throw new IllegalArgumentException("a service-level objective is positive, was " + slo);
        }
      }
      this.slos = slos.clone();
      return this;
    }

    public OperationMetrics build() {
      return new OperationMetrics(this);
    }
  }
}

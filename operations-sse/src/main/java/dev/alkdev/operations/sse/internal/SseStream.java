package dev.alkdev.operations.sse.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseOptions;
import dev.alkdev.operations.sse.SseParser;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One subscription to an SSE endpoint: connects, parses, reconnects, and hands events downstream as
 * the subscriber demands them.
 *
 * <p>Backpressure: the HTTP body is requested one chunk at a time, and only when every event of the
 * previous chunk has been delivered and the subscriber wants more; so at most one chunk's events
 * wait in the queue. Signals to the subscriber are serialised by a work-in-progress counter (the
 * usual drain loop), so onNext is never concurrent and never follows cancel.
 */
public final class SseStream<T> implements Flow.Subscription {
  private static final Logger LOG = LoggerFactory.getLogger(SseStream.class);
  private static final Object COMPLETE = new Object();

  private final HttpClient client;
  private final HttpRequest request;
  private final SseOptions options;
  private final Function<ResponseInfo, Function<SseEvent, T>> mapper;
  private final Flow.Subscriber<? super T> downstream;
  private final SseParser parser;

  private final Queue<T> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong demand = new AtomicLong();
  private final AtomicInteger wip = new AtomicInteger();
  private volatile boolean cancelled;
  private volatile boolean done;
  private volatile Object terminal;
  private volatile Connection current;
  private volatile CompletableFuture<?> pendingReconnect;
  private volatile boolean everConnected;
  // Reconnections since the last connection that delivered an event.
  private volatile int attempts;
  // When the reconnections of the last minute started: the budget events do not reset.
  private final java.util.ArrayDeque<Long> recentReconnects = new java.util.ArrayDeque<>();
  private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);
  // Releases the call context's cancellation listener and deadline timer.
  private volatile Runnable unbind = () -> {};

  private SseStream(
      HttpClient client,
      HttpRequest request,
      SseOptions options,
      Function<ResponseInfo, Function<SseEvent, T>> mapper,
      Flow.Subscriber<? super T> downstream) {
    this.client = client;
    this.request = request;
    this.options = options;
    this.mapper = mapper;
    this.downstream = downstream;
    this.parser = SseParser.create(options.limits(), this::onEvent);
  }

  /** A cold publisher: every subscriber gets its own connection. */
  public static <T> Flow.Publisher<T> publisher(
      HttpClient client,
      HttpRequest request,
      SseOptions options,
      Function<ResponseInfo, Function<SseEvent, T>> mapper) {
    return publisher(client, request, options, Optional.empty(), mapper);
  }

  /**
   * A cold publisher bound to a call: when the context is cancelled or its deadline passes, the
   * stream is closed and the subscriber gets the reason as error.
   */
  public static <T> Flow.Publisher<T> publisher(
      HttpClient client,
      HttpRequest request,
      SseOptions options,
      Optional<OperationContext> context,
      Function<ResponseInfo, Function<SseEvent, T>> mapper) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(mapper, "mapper");
    return subscriber -> {
      Objects.requireNonNull(subscriber, "subscriber");
      SseStream<T> stream = new SseStream<>(client, request, options, mapper, subscriber);
      subscriber.onSubscribe(stream);
      context.ifPresent(stream::bind);
      stream.connect();
    };
  }

  private void bind(OperationContext context) {
    // Lives as long as the stream: the context fails it when the call is cancelled or its deadline
    // passes, and completing it when the stream stops releases the timer and the listener.
    CompletableFuture<Void> life = new CompletableFuture<>();
    context
        .bind(life)
        .whenComplete(
            (ignored, error) -> {
              if (error != null) {
                // The cancellation's reason, or DEADLINE_EXCEEDED.
                terminate(CallError.from(error, ErrorCode.CANCELLED, "The call ended"));
              }
            });
    unbind = () -> life.complete(null);
    if (cancelled || terminal != null) {
      unbind.run();
    }
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      terminate(new IllegalArgumentException("request(n) needs n > 0, was " + n));
      return;
    }
    demand.getAndUpdate(d -> d + n < 0 ? Long.MAX_VALUE : d + n);
    drain();
  }

  @Override
  public void cancel() {
    cancelled = true;
    stopConnection();
    queue.clear();
  }

  private void stopConnection() {
    unbind.run();
    CompletableFuture<?> reconnect = pendingReconnect;
    if (reconnect != null) {
      reconnect.cancel(false);
    }
    Connection connection = current;
    if (connection != null) {
      connection.close();
    }
  }

  private void connect() {
    if (cancelled || terminal != null) {
      return;
    }
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(request, (name, value) -> true)
            .timeout(options.responseTimeout())
            .setHeader("Accept", "text/event-stream")
            .setHeader("Cache-Control", "no-cache");
    Optional<String> lastEventId;
    synchronized (parser) {
      lastEventId = parser.lastEventId();
    }
    lastEventId.ifPresent(id -> builder.setHeader("Last-Event-ID", id));
    Connection connection = new Connection();
    current = connection;
    try {
      connection.exchange = client.sendAsync(builder.build(), connection::handle);
    } catch (RuntimeException e) {
      connection.ended(e);
      return;
    }
    connection.exchange.whenComplete(
        (response, error) -> {
          if (error != null) {
            connection.ended(error);
          }
        });
    if (cancelled) {
      connection.close();
    }
  }

  private void onEvent(SseEvent event) {
    attempts = 0;
    queue.add(current.mapper.apply(event));
  }

  /** What to do when a connection is over: reconnect, complete or fail. */
  private void connectionEnded(Connection connection, Throwable error) {
    synchronized (parser) {
      parser.reset();
    }
    if (cancelled || terminal != null) {
      return;
    }
    if (!connection.started && !everConnected) {
      terminate(connectFailure(error));
      return;
    }
    if (options.reconnect() == SseOptions.Reconnect.NEVER
        || (error == null && options.reconnect() == SseOptions.Reconnect.ON_DROP)) {
      terminate(
          error == null
              ? COMPLETE
              : CallError.from(
                  error,
                  cause ->
                      CallError.of(
                          ErrorCode.UNAVAILABLE, "the SSE stream dropped: " + cause, cause)));
      return;
    }
    long now = System.nanoTime();
    synchronized (recentReconnects) {
      while (!recentReconnects.isEmpty() && now - recentReconnects.peekFirst() > MINUTE_NANOS) {
        recentReconnects.removeFirst();
      }
      if (recentReconnects.size() >= options.reconnectBudget()) {
        terminate(
            CallError.of(
                ErrorCode.UNAVAILABLE,
                "the SSE stream "
                    + request.uri()
                    + " needed "
                    + options.reconnectBudget()
                    + " reconnections within a minute (it keeps ending); raise"
                    + " SseOptions.reconnectBudget to allow more"));
        return;
      }
      recentReconnects.addLast(now);
    }
    int attempt = ++attempts;
    if (attempt > options.maxReconnects()) {
      CallError last =
          error == null
              ? null
              : CallError.from(
                  error, cause -> CallError.of(ErrorCode.UNAVAILABLE, cause.toString(), cause));
      CallError.Builder exhausted =
          CallError.builder(
              ErrorCode.UNAVAILABLE,
              "the SSE stream "
                  + request.uri()
                  + " ended and "
                  + options.maxReconnects()
                  + " reconnections delivered no event; raise SseOptions.maxReconnects to keep"
                  + " trying"
                  + (last == null ? "" : " (last error: " + last.getMessage() + ")"));
      if (last != null) {
        exhausted.cause(last);
      }
      terminate(exhausted.build());
      return;
    }
    long delay;
    synchronized (parser) {
      delay = parser.retryMillis().orElse(options.defaultRetry().toMillis());
    }
    // retry: 0 (or any tiny value) from the server does not make a tight loop.
    delay = Math.min(Math.max(delay, options.minRetry().toMillis()), options.maxRetry().toMillis());
    LOG.debug("SSE stream {} ended; reconnecting in {} ms", request.uri(), delay);
    pendingReconnect =
        CompletableFuture.runAsync(
            this::connect, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
    if (cancelled) {
      pendingReconnect.cancel(false);
    }
  }

  private CallError connectFailure(Throwable error) {
    if (error == null) {
      return CallError.of(
          ErrorCode.UNAVAILABLE, "could not connect to SSE endpoint " + request.uri());
    }
    return CallError.from(
        error,
        cause ->
            cause instanceof HttpTimeoutException
                ? CallError.of(
                    ErrorCode.DEADLINE_EXCEEDED,
                    "no response from SSE endpoint "
                        + request.uri()
                        + " within "
                        + options.responseTimeout()
                        + " (SseOptions.responseTimeout)",
                    cause)
                : CallError.of(
                    ErrorCode.UNAVAILABLE,
                    "could not connect to SSE endpoint " + request.uri() + ": " + cause,
                    cause));
  }

  private void terminate(Object signal) {
    synchronized (this) {
      if (terminal != null) {
        return;
      }
      terminal = signal;
    }
    stopConnection();
    drain();
  }

  private void drain() {
    if (wip.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      if (cancelled || done) {
        queue.clear();
        return;
      }
      long wanted = demand.get();
      long emitted = 0;
      while (emitted != wanted) {
        if (cancelled) {
          queue.clear();
          return;
        }
        T item = queue.poll();
        if (item == null) {
          break;
        }
        downstream.onNext(item);
        emitted++;
      }
      if (emitted > 0 && wanted != Long.MAX_VALUE) {
        demand.addAndGet(-emitted);
      }
      if (queue.isEmpty()) {
        Object signal = terminal;
        if (signal != null) {
          done = true;
          if (signal == COMPLETE) {
            downstream.onComplete();
          } else {
            downstream.onError((Throwable) signal);
          }
          return;
        }
        Connection connection = current;
        if (demand.get() > 0 && connection != null) {
          connection.requestMore();
        }
      }
      missed = wip.addAndGet(-missed);
    } while (missed != 0);
  }

  /** One HTTP exchange: the body subscriber of a good response and the bookkeeping around it. */
  private final class Connection implements Flow.Subscriber<List<ByteBuffer>> {
    private final AtomicBoolean finished = new AtomicBoolean();
    private final AtomicBoolean outstanding = new AtomicBoolean();
    private volatile Flow.Subscription subscription;
    private volatile boolean started;
    // Turns this connection's events into items; made once per connection from its response.
    volatile Function<SseEvent, T> mapper;
    volatile CompletableFuture<?> exchange;

    BodySubscriber<?> handle(ResponseInfo response) {
      int status = response.statusCode();
      String contentType = response.headers().firstValue("content-type").orElse("");
      if (status == 200 && isEventStream(contentType)) {
        mapper = SseStream.this.mapper.apply(response);
        started = true;
        everConnected = true;
        return BodySubscribers.fromSubscriber(this);
      }
      if (status == 204) {
        // The server asks the client to stop: complete, never reconnect.
        if (finished.compareAndSet(false, true)) {
          terminate(COMPLETE);
        }
        return BodySubscribers.discarding();
      }
      return BodySubscribers.fromSubscriber(
          new ErrorBody(options.maxErrorBodyBytes(), body -> fail(response, contentType, body)));
    }

    private void fail(ResponseInfo response, String contentType, String body) {
      if (!finished.compareAndSet(false, true)) {
        return;
      }
      int status = response.statusCode();
      ObjectNode details = JsonNodeFactory.instance.objectNode();
      details.put("statusCode", status);
      details.put("contentType", contentType);
      details.put("body", body);
      details.put("uri", request.uri().toString());
      CallError error;
      if (status == 200) {
        error =
            CallError.builder(
                    ErrorCode.PROTOCOL_ERROR,
                    "SSE endpoint "
                        + request.uri()
                        + " answered with Content-Type \""
                        + contentType
                        + "\", not text/event-stream")
                .details(details)
                .build();
      } else {
        error =
            CallError.builder(
                    codeFor(status),
                    "SSE endpoint " + request.uri() + " answered HTTP " + status + ", not 200")
                .details(details)
                .build();
      }
      terminate(error);
    }

    void requestMore() {
      Flow.Subscription s = subscription;
      if (s != null && !finished.get() && outstanding.compareAndSet(false, true)) {
        s.request(1);
      }
    }

    void close() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
      CompletableFuture<?> e = exchange;
      if (e != null) {
        e.cancel(true);
      }
      finished.set(true);
    }

    void ended(Throwable error) {
      if (finished.compareAndSet(false, true)) {
        connectionEnded(this, error);
      }
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (cancelled || finished.get() || current != this) {
        s.cancel();
        return;
      }
      drain();
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      outstanding.set(false);
      if (finished.get()) {
        return;
      }
      try {
        synchronized (parser) {
          for (ByteBuffer buffer : buffers) {
            parser.feed(buffer);
          }
        }
      } catch (RuntimeException e) {
        finished.set(true);
        subscription.cancel();
        terminate(e);
        return;
      }
      drain();
    }

    @Override
    public void onError(Throwable error) {
      ended(error);
    }

    @Override
    public void onComplete() {
      ended(null);
    }
  }

  private static boolean isEventStream(String contentType) {
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.trim().toLowerCase(Locale.ROOT).equals("text/event-stream");
  }

  private static ErrorCode codeFor(int status) {
    return switch (status) {
      case 401 -> ErrorCode.UNAUTHENTICATED;
      case 403 -> ErrorCode.ACCESS_DENIED;
      case 408, 504 -> ErrorCode.DEADLINE_EXCEEDED;
      case 429 -> ErrorCode.RESOURCE_EXHAUSTED;
      case 502, 503 -> ErrorCode.UNAVAILABLE;
      default -> ErrorCode.EXECUTION_ERROR;
    };
  }

  /** Collects at most a bounded prefix of an error response's body, then stops reading. */
  private static final class ErrorBody implements Flow.Subscriber<List<ByteBuffer>> {
    private final byte[] bytes;
    private final java.util.function.Consumer<String> whenDone;
    private int length;
    private Flow.Subscription subscription;
    private boolean reported;

    ErrorBody(int max, java.util.function.Consumer<String> whenDone) {
      this.bytes = new byte[max];
      this.whenDone = whenDone;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (bytes.length == 0) {
        report();
        return;
      }
      s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      for (ByteBuffer buffer : buffers) {
        int n = Math.min(buffer.remaining(), bytes.length - length);
        buffer.get(bytes, length, n);
        length += n;
      }
      if (length == bytes.length) {
        report();
      } else {
        subscription.request(1);
      }
    }

    @Override
    public void onError(Throwable error) {
      report();
    }

    @Override
    public void onComplete() {
      report();
    }

    private void report() {
      if (reported) {
        return;
      }
      reported = true;
      subscription.cancel();
      whenDone.accept(new String(bytes, 0, length, StandardCharsets.UTF_8));
    }
  }
}

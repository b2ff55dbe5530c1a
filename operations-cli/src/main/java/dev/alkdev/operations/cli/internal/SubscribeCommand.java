package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * {@code ops subscribe ID}: prints each item of a SUBSCRIPTION as it arrives, until the stream
 * ends, {@code --limit} items have come, {@code --timeout} passes, or Ctrl-C (which cancels the
 * subscription so the source releases what it holds).
 */
@Command(
    name = "subscribe",
    mixinStandardHelpOptions = true,
    description = {
      "Subscribes to a SUBSCRIPTION and prints each item as it arrives, one JSON line each.",
      "Stops at the end of the stream, after --limit items, after --timeout, or on Ctrl-C."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops subscribe demo.clock            3 ticks, a second apart",
      "  ops subscribe demo.clock --input '{\"ticks\":100,\"intervalMs\":100}' --limit 5",
      "  ops subscribe demo.clock --pretty --envelope"
    })
final class SubscribeCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "ID", description = "The subscription, e.g. demo.clock.")
  String id;

  @Option(
      names = {"-i", "--input"},
      paramLabel = "JSON|@FILE|-",
      description =
          "The input: JSON text, @FILE to read a file, - to read stdin (default: {} for an"
              + " operation whose input is an object, else null).")
  String input;

  @Option(
      names = {"-n", "--limit"},
      paramLabel = "N",
      description = "Stop after N items (default: no limit).")
  int limit;

  @Option(names = "--pretty", description = "Pretty-print each item instead of one line each.")
  boolean pretty;

  @Option(names = "--envelope", description = "Print each item's whole envelope.")
  boolean envelope;

  @Option(names = "--json", description = "Errors as JSON on stderr (items are JSON anyway).")
  boolean json;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Stop after this long, exit code 7 (default: no limit; Ctrl-C stops).")
  Duration timeout;

  @Override
  public Integer call() {
    if (limit < 0) {
      throw new Failure(
          ExitCodes.USAGE,
          "--limit " + limit + " is negative",
          "give a number of items (1 or more), or leave --limit out for no limit");
    }
    Output output = root.output();
    Session session = root.session();
    try {
      OperationSpec spec = session.require(id);
      if (spec.type() != OperationType.SUBSCRIPTION) {
        throw new Failure(
            ExitCodes.USAGE,
            id + " is a " + spec.type() + ", it does not stream",
            "run `ops call " + id + "` instead");
      }
      JsonNode in =
          input == null
              ? spec.noInput()
              : JsonInput.read(input, root.terminal().in(), java.util.Optional.ofNullable(timeout));
      OperationContext.Builder context = OperationContext.builder();
      if (timeout != null) {
        context.timeout(timeout);
      }
      return stream(session, output, in, context.build());
    } finally {
      session.close();
    }
  }

  private int stream(Session session, Output output, JsonNode in, OperationContext context) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    AtomicInteger count = new AtomicInteger();
    session
        .registry()
        .subscribe(id, in, context)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
                // One at a time: a slow terminal slows the source instead of filling memory.
                s.request(1);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                if (done.isDone()) {
                  return;
                }
                JsonNode shown =
                    envelope
                        ? Envelopes.toJson(item)
                        : item.data() == null ? NullNode.getInstance() : item.data();
                if (pretty) {
                  output.pretty(shown);
                } else {
                  output.line(shown);
                }
                if (output.out().checkError()) {
                  // stdout is gone (ops subscribe ... | head -1): stop the stream, don't run on.
                  subscription.get().cancel();
                  done.complete(null);
                  return;
                }
                int printed = count.incrementAndGet();
                if (limit > 0 && printed >= limit) {
                  subscription.get().cancel();
                  done.complete(null);
                } else {
                  subscription.get().request(1);
                }
              }

              @Override
              public void onError(Throwable error) {
                done.completeExceptionally(error);
              }

              @Override
              public void onComplete() {
                done.complete(null);
              }
            });
    // On Ctrl-C or SIGTERM the session cancels the subscription (so the source releases what it
    // holds), says how far it got, then closes the sources.
    session.onInterrupt(
        () -> {
          cancel(subscription);
          output.err().println();
          output
              .err()
              .println(
                  "stopped (signal) after "
                      + count.get()
                      + " items; the subscription was cancelled");
          output.err().flush();
        });
    try {
      if (timeout == null) {
        done.get();
      } else {
        done.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      }
      return ExitCodes.OK;
    } catch (ExecutionException e) {
      throw CallError.from(
          e, cause -> CallError.of(ErrorCode.EXECUTION_ERROR, String.valueOf(cause), cause));
    } catch (TimeoutException e) {
      cancel(subscription);
      throw CallError.of(
          ErrorCode.DEADLINE_EXCEEDED, "stopped after " + timeout.toMillis() + "ms (--timeout)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(subscription);
      throw CallError.of(ErrorCode.CANCELLED, "interrupted");
    }
  }

  private static void cancel(AtomicReference<Flow.Subscription> subscription) {
    Flow.Subscription s = subscription.get();
    if (s != null) {
      s.cancel();
    }
  }
}

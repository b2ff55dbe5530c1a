package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;

/**
 * A stream's sink: items as Server-Sent Events, written with Jetty's asynchronous writes.
 *
 * <p>No thread ever blocks here, on the pipeline's side or the client's: signals go into a queue
 * and a drain task on the server's pool (one at a time per stream) encodes them into a byte buffer
 * and hands that buffer to {@link Response#write} with a callback. While one write is under way the
 * next items collect in a second buffer, which goes out as one write when the first completes: a
 * busy stream is written in large batches, an idle one item by item. The caller's demand is a
 * window of {@link #WINDOW} items, given back {@link #REFILL} at a time as items are encoded, but
 * held back while the buffer waiting behind a write holds {@link #HIGH_WATER} bytes or more: a
 * client that reads slowly slows the handler, and a stream's memory stays bounded (two buffers of
 * about that size). A write that has not completed after the idle timeout (a client that stopped
 * reading) cuts the stream and cancels the handler; so does a failed write (the client went away).
 *
 * <p>Each item is an event with an id (its number in the stream, counted on from a numeric {@code
 * Last-Event-ID}) and its envelope (or data) as one {@code data:} line, written by a streaming
 * {@link JsonGenerator} straight into the buffer, with no tree built for the envelope. One line is
 * enough: compact JSON has no raw CR or LF (a string's line ends are escaped), and those are the
 * only line ends of {@code text/event-stream}. The end is an event {@code call.completed}, or
 * {@code call.error} with the error shape as data. A call refused before its stream began is
 * answered as a plain JSON error with its status instead.
 */
final class StreamExchange implements CallSink {
  /** Items the handler may send ahead of what the client has taken. */
  static final int WINDOW = 32;

  /**
   * Items encoded before their demand goes back: each request runs the pipeline's relay (two locks
   * and the handler's own bookkeeping), once per item when given back one by one.
   */
  static final int REFILL = WINDOW / 2;

  /** Bytes waiting behind a write at which demand is held back. */
  static final int HIGH_WATER = 64 * 1024;

  /**
   * Bytes at which the drain starts a write without waiting to catch up with the queue. Half the
   * high water: each write costs Jetty a chunk and a flush and the client a wake-up, and at 16 KiB
   * a stream of small items spent an eighth of the drain's time in Jetty's write path (D79).
   */
  private static final int BATCH = 32 * 1024;

  /**
   * The buffers' first size: they grow to what a busy stream batches (and stay so for the stream),
   * while an idle stream, one item at a time, holds two small ones.
   */
  private static final int FIRST_BUFFER = 512;

  /** Up to this size a buffer doubles; past it, it goes straight to a batch's size. */
  private static final int SMALL_BUFFER = 4 * 1024;

  /** A buffer's size once it outgrows the first: a batch, and the item that crossed the line. */
  private static final int GROWN_BUFFER = BATCH + BATCH / 4;

  // One writer for every stream: no root value separator, so raw framing and values alternate.
  private static final ObjectWriter WRITER = Inputs.JSON.writer().withRootValueSeparator("");

  // Raw text between values, kept as bytes (copied, not encoded, per item).
  private static final SerializableString ID = new SerializedString("id: ");
  private static final SerializableString DATA = new SerializedString("\ndata: ");
  private static final SerializableString EVENT_END = new SerializedString("\n\n");
  private static final SerializableString DATA_OPEN = new SerializedString("{\"data\":");
  private static final SerializableString META_OPEN = new SerializedString(",\"meta\":");
  private static final SerializableString CLOSE_ONE = new SerializedString("}");
  private static final SerializableString CLOSE_TWO = new SerializedString("}}");

  /** {@link #localMeta}'s prefixes by operation id; bounded, since operation ids can be made. */
  private static final ConcurrentHashMap<String, SerializableString> META_PREFIXES =
      new ConcurrentHashMap<>();

  private static final int META_PREFIXES_MAX = 4096;

  // A stream's constant headers, encoded once for every stream.
  private static final HttpField EVENT_STREAM =
      new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/event-stream");
  private static final HttpField NO_CACHE =
      new PreEncodedHttpField(HttpHeader.CACHE_CONTROL, "no-cache");
  private static final HttpField NO_BUFFERING = new HttpField("X-Accel-Buffering", "no");
  private static final HttpField MINIMAL = new HttpField("Preference-Applied", "return=minimal");

  private static final Object KEEP_ALIVE = new Object();
  private static final Object START = new Object();
  private static final Object GONE = new Object();
  private static final Object WRITTEN = new Object();
  private static final Object STALLED = new Object();

  private record End(CallError error) {}

  private record WriteFailed(Throwable failure) {}

  private final Request request;
  private final Response response;
  private final Callback callback;
  private final boolean dataOnly;
  private final Executor writers;
  private final StreamTicks ticks;
  private final long stallNanos;
  private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();
  private final Callback written = Callback.from(this::writeDone, this::writeFailed);
  private volatile ServedCall call;
  private volatile boolean open;
  private volatile boolean wroteSinceTick;
  private volatile long writingSince; // System.nanoTime() of the write under way, 0 when none

  // Only the drain task touches these (one at a time).
  private final Bytes bytes = new Bytes();
  private JsonGenerator json;
  private Encoder encoder; // the writer thread's, while this drain holds it
  private boolean started;
  private boolean writing;
  private boolean ending;
  private boolean finished;
  private int owed;
  private long nextId;

  StreamExchange(
      Request request,
      Response response,
      Callback callback,
      boolean dataOnly,
      Executor writers,
      StreamTicks ticks,
      Duration stallTimeout) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.dataOnly = dataOnly;
    this.writers = writers;
    this.ticks = ticks;
    this.stallNanos = stallTimeout.toNanos();
    this.nextId = firstId(request);
  }

  private static long firstId(Request request) {
    String last = request.getHeaders().get("Last-Event-ID");
    if (last != null) {
      try {
        long n = Long.parseLong(last.trim());
        if (n >= 0 && n < Long.MAX_VALUE) {
          return n + 1;
        }
      } catch (NumberFormatException e) {
        // not one of ours: count from 1
      }
    }
    return 1;
  }

  /** Before the call is served: a failure of the exchange (client gone, idle) cancels it. */
  void watch() {
    request.addFailureListener(failure -> clientGone());
  }

  @Override
  public void onStart(ServedCall call) {
    this.call = call;
  }

  /**
   * Called once {@code serve} has returned: a refusal that came meanwhile becomes a JSON error;
   * otherwise the stream starts (headers go out at once, so an EventSource opens).
   */
  void open(ServedCall served) {
    this.call = served;
    queue.add(START);
    open = true;
    ticks.add(this);
    schedule();
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    onItem(result);
    onComplete();
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    queue.add(item);
    schedule();
  }

  @Override
  public void onComplete() {
    queue.add(new End(null));
    schedule();
  }

  @Override
  public void onError(CallError error) {
    queue.add(new End(error));
    schedule();
  }

  /**
   * Each keep-alive period ({@link StreamTicks}): a keep-alive comment if nothing was written since
   * the last tick; the stream is cut if a write has been under way longer than the stall timeout.
   */
  void tick() {
    long since = writingSince;
    if (since != 0 && System.nanoTime() - since > stallNanos) {
      queue.add(STALLED);
      schedule();
      return;
    }
    if (!wroteSinceTick) {
      queue.add(KEEP_ALIVE);
      schedule();
    }
    wroteSinceTick = false;
  }

  private void writeDone() {
    writingSince = 0;
    queue.add(WRITTEN);
    schedule();
  }

  private void writeFailed(Throwable failure) {
    writingSince = 0;
    queue.add(new WriteFailed(failure));
    schedule();
  }

  private void schedule() {
    if (!open) {
      return;
    }
    if (pending.getAndIncrement() == 0) {
      try {
        writers.execute(this::drain);
      } catch (RejectedExecutionException e) {
        pending.set(0);
        clientGone();
      }
    }
  }

  private void drain() {
    int missed = 1;
    while (true) {
      Object next;
      while (!finished && (next = queue.poll()) != null) {
        try {
          take(next);
          if (!finished && owed >= REFILL && (!writing || buffered() < HIGH_WATER)) {
            // Demand goes back once the items are encoded, half a window at a time (the handler
            // still holds the other half, so it never waits for it), and before the batch is
            // judged: a producer that answers at once (on this thread) refills the queue, and the
            // loop goes on encoding into the same batch.
            int n = owed;
            owed = 0;
            call.request(n);
          }
          if (!finished && !writing && (queue.isEmpty() || buffered() >= BATCH)) {
            send();
          }
        } catch (RuntimeException e) {
          fail(e);
        }
      }
      if (finished) {
        queue.clear();
      }
      // Between drains a stream holds no generator (the writer thread's goes back, flushed, with
      // its buffers); and with nothing being written, it lets go of small byte arrays too, so an
      // idle stream holds no buffer at all.
      releaseGenerator();
      if (!writing) {
        bytes.releaseSmall();
      }
      missed = pending.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }

  /** Takes one signal: encodes it into the buffer, or acts on a write's outcome. */
  private void take(Object next) {
    if (next == WRITTEN) {
      writing = false;
      return;
    }
    if (next instanceof WriteFailed failed) {
      fail(failed.failure());
      return;
    }
    if (next == STALLED) {
      long since = writingSince;
      // Checked again here: the write the timer saw may have completed and another begun since.
      if (writing && since != 0 && System.nanoTime() - since > stallNanos) {
        fail(
            new TimeoutException(
                "the client read nothing of its stream for "
                    + Duration.ofNanos(stallNanos).toMillis()
                    + " ms"));
      }
      return;
    }
    if (next == GONE) {
      finish();
      callback.failed(UnaryExchange.CLIENT_GONE);
      return;
    }
    if (ending) {
      return; // the stream has ended: late keep-alives have nothing to keep
    }
    if (!started && next instanceof End end && end.error() != null) {
      // Refused before the stream began: a plain JSON error with its status.
      finish();
      GatewayHandler.writeError(request, response, callback, end.error(), GatewayHandler.BODY_READ);
      return;
    }
    start();
    if (json == null) {
      encoder = Encoder.take(bytes);
      json = encoder != null ? encoder.json : WRITER.createGenerator(bytes);
    }
    wroteSinceTick = true;
    if (next == START) {
      if (!writing) {
        sendNow(false); // the headers go out: the client's EventSource opens
      }
      return;
    }
    if (next == KEEP_ALIVE) {
      json.writeRaw(":\n");
      return;
    }
    if (next instanceof End end) {
      stop();
      if (end.error() == null) {
        json.writeRaw("event: call.completed\ndata: {}\n\n");
      } else {
        json.writeRaw("event: call.error\ndata: ");
        json.writeTree(Errors.body(end.error()));
        json.writeRaw("\n\n");
      }
      ending = true;
      return;
    }
    @SuppressWarnings("unchecked")
    ResponseEnvelope<JsonNode> item = (ResponseEnvelope<JsonNode>) next;
    json.writeRaw(ID);
    json.writeNumber(nextId++);
    json.writeRaw(DATA);
    if (dataOnly) {
      writeData(json, item.data(), 0);
    } else {
      writeEnvelope(item);
    }
    json.writeRaw(EVENT_END);
    owed++;
  }

  /**
   * The envelope's JSON as {@code ResponseEnvelope.toJson()} has it, without building that tree. A
   * local meta is the same text for every item of the stream but its timestamp: that text is
   * escaped once and copied as bytes, so only the data and the timestamp are encoded per item.
   */
  private void writeEnvelope(ResponseEnvelope<JsonNode> item) {
    json.writeRaw(DATA_OPEN);
    writeData(json, item.data(), 0);
    if (item.meta() instanceof LocalResponseMeta local) {
      json.writeRaw(localMeta(local.operationId()));
      json.writeNumber(local.timestamp());
      json.writeRaw(CLOSE_TWO);
    } else {
      json.writeRaw(META_OPEN);
      json.writeTree(item.meta().toJson());
      json.writeRaw(CLOSE_ONE);
    }
  }

  /** Nesting below which {@link #writeData} walks a tree itself. */
  private static final int DIRECT_DEPTH = 32;

  /**
   * An item's data, as {@code writeTree} writes it, walked directly for the common node kinds: the
   * generic path looks up a serializer and its context per node, which was a tenth of a stream's
   * CPU for a small object (docs/benchmarks.md, "HTTP gateway"). Every other kind (numbers other
   * than int and long, binary, POJO nodes), and what lies deeper than {@link #DIRECT_DEPTH}, goes
   * through {@code writeTree} so its text stays exactly Jackson's.
   */
  static void writeData(JsonGenerator json, JsonNode node, int depth) {
    if (depth > DIRECT_DEPTH) {
      json.writeTree(node);
      return;
    }
    switch (node.getNodeType()) {
      case OBJECT:
        json.writeStartObject();
        for (java.util.Map.Entry<String, JsonNode> field : node.properties()) {
          json.writeName(field.getKey());
          writeData(json, field.getValue(), depth + 1);
        }
        json.writeEndObject();
        return;
      case ARRAY:
        json.writeStartArray();
        for (JsonNode element : node.values()) {
          writeData(json, element, depth + 1);
        }
        json.writeEndArray();
        return;
      case STRING:
        json.writeString(node.stringValue());
        return;
      case BOOLEAN:
        json.writeBoolean(node.booleanValue());
        return;
      case NULL:
        json.writeNull();
        return;
      case NUMBER:
        if (node.isInt()) {
          json.writeNumber(node.intValue());
          return;
        }
        if (node.isLong()) {
          json.writeNumber(node.longValue());
          return;
        }
        json.writeTree(node);
        return;
      default:
        json.writeTree(node);
    }
  }

  /**
   * The start of a local item's meta, up to its timestamp: the same for every item of an operation,
   * so kept once per operation for all streams rather than once per stream.
   */
  private static SerializableString localMeta(String operationId) {
    SerializableString prefix = META_PREFIXES.get(operationId);
    if (prefix == null) {
      prefix =
          new SerializedString(
              ",\"meta\":{\"source\":\"local\",\"operationId\":"
                  + WRITER.writeValueAsString(operationId)
                  + ",\"timestamp\":");
      if (META_PREFIXES.size() < META_PREFIXES_MAX) {
        META_PREFIXES.putIfAbsent(operationId, prefix);
      }
    }
    return prefix;
  }

  /** Bytes encoded and not yet handed to Jetty: the buffer's, and those still in Jackson's. */
  private int buffered() {
    return json == null ? bytes.size : bytes.size + json.streamWriteOutputBuffered();
  }

  /** Starts a write of what the buffer holds, if it holds anything (or the stream ends). */
  private void send() {
    if (json != null) {
      json.flush();
    }
    if (bytes.size > 0 || ending) {
      sendNow(ending);
    }
  }

  private void sendNow(boolean last) {
    if (json != null) {
      json.flush();
    }
    ByteBuffer out = bytes.take();
    writing = true;
    writingSince = System.nanoTime() | 1; // never 0 while writing
    if (last) {
      finish();
      response.write(true, out, Callback.from(callback::succeeded, callback::failed));
    } else {
      response.write(false, out, written);
    }
  }

  private void start() {
    if (started) {
      return;
    }
    started = true;
    response.setStatus(200);
    HttpFields.Mutable headers = response.getHeaders();
    headers.put(EVENT_STREAM);
    headers.put(NO_CACHE);
    headers.put(NO_BUFFERING);
    if (dataOnly) {
      headers.put(MINIMAL);
    }
  }

  /** Flushes what Jackson still holds into the bytes, and lets go of the generator. */
  private void releaseGenerator() {
    if (json == null) {
      return;
    }
    if (encoder != null) {
      encoder.give(json);
      encoder = null;
    } else {
      json.close(); // flushes into the bytes (closing them is a no-op) and returns its buffers
    }
    json = null;
  }

  /**
   * A writer thread's generator, pointed at the stream being drained: a generator and its contexts
   * made per drain were most of what an idle stream allocated per event. A drain takes it and gives
   * it back flushed before it ends; one left inside a value (an encoding that failed) is dropped.
   */
  private static final class Encoder extends OutputStream {
    private static final ThreadLocal<Encoder> OF_THREAD = ThreadLocal.withInitial(Encoder::new);

    final JsonGenerator json = WRITER.createGenerator(this);
    private OutputStream target;

    /** This thread's encoder writing into {@code bytes}; null if it is taken (never expected). */
    static Encoder take(OutputStream bytes) {
      Encoder encoder = OF_THREAD.get();
      if (encoder.target != null) {
        return null;
      }
      encoder.target = bytes;
      return encoder;
    }

    void give(JsonGenerator used) {
      if (used.streamWriteContext().inRoot()) {
        try {
          used.flush();
        } finally {
          target = null;
        }
        return;
      }
      // The stream failed inside a value: its half is discarded with the generator.
      OF_THREAD.remove();
      target = OutputStream.nullOutputStream();
      try {
        used.close();
      } catch (RuntimeException e) {
        // nothing to keep of it
      } finally {
        target = null;
      }
    }

    @Override
    public void write(int b) throws java.io.IOException {
      target.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      target.write(b, off, len);
    }
  }

  /**
   * The stream broke (client gone, write failed or stalled): stop the handler, end the exchange.
   */
  private void fail(Throwable failure) {
    if (finished) {
      return;
    }
    finish();
    ServedCall c = call;
    if (c != null) {
      c.cancel(UnaryExchange.CLIENT_GONE);
    }
    callback.failed(failure);
  }

  private void finish() {
    finished = true;
    stop();
    releaseGenerator();
  }

  /** The exchange failed under us (client gone, idle timeout, server stopping). */
  private void clientGone() {
    ServedCall c = call;
    if (c != null && c.cancel(UnaryExchange.CLIENT_GONE)) {
      // The sink hears nothing more; wake the drain so it notices and ends.
      queue.add(GONE);
      stop();
      schedule();
    }
  }

  private void stop() {
    ticks.remove(this);
  }

  /**
   * Two byte arrays taken in turn: one being written by Jetty, the other filling. Jetty holds a
   * written buffer until its callback, so the filling one is never the one under way. Arrays are
   * made when first written to; small ones are let go while the stream is idle, grown ones (a busy
   * stream's batches) are kept.
   */
  private static final class Bytes extends OutputStream {
    private static final byte[] NONE = new byte[0];
    private byte[] filling = NONE;
    private byte[] spare = NONE;
    int size;

    @Override
    public void write(int b) {
      if (size == filling.length) {
        grow(size + 1);
      }
      filling[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (size + len > filling.length) {
        grow(size + len);
      }
      System.arraycopy(b, off, filling, size, len);
      size += len;
    }

    /**
     * Doubling while small (an idle stream's items are small, and each stream holds two buffers),
     * then straight to a batch's size (doubling from 4 KiB cost a busy stream five copies and as
     * many arrays per buffer), then doubling.
     */
    private void grow(int needed) {
      int length = Math.max(Math.max(filling.length * 2, FIRST_BUFFER), needed);
      if (length > SMALL_BUFFER) {
        length = Math.max(length, GROWN_BUFFER);
      }
      filling = Arrays.copyOf(filling, length);
    }

    /** Lets go of arrays no bigger than {@link #SMALL_BUFFER}; only while nothing is written. */
    void releaseSmall() {
      if (size == 0 && filling.length <= SMALL_BUFFER) {
        filling = NONE;
      }
      if (spare.length <= SMALL_BUFFER) {
        spare = NONE;
      }
    }

    /** What has filled, to be written; the other array fills next. */
    ByteBuffer take() {
      ByteBuffer out = ByteBuffer.wrap(filling, 0, size);
      byte[] next = spare;
      spare = filling;
      filling = next;
      size = 0;
      return out;
    }
  }
}

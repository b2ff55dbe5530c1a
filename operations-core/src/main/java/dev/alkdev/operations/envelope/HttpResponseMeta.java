package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The meta of an HTTP response (an OpenAPI operation, or one event of an SSE stream).
 *
 * <p>Header names are lower-cased, as the fetch {@code Headers} the seeds read them from has them.
 * {@link #headers()} is the seeds' {@code Record<string, string>}: a header that arrived several
 * times has its values joined with {@code ", "}. That join cannot be undone for {@code Set-Cookie}
 * (cookie dates contain commas), a limitation the seeds accept; here {@link #headerValues()} keeps
 * every value separately as well. On the wire, {@code headerValues} is an extra field written only
 * when some header arrived more than once, listing just those headers; peers that do not know it
 * ignore it and read {@code headers} as before.
 *
 * <p>Build it with {@link #of} (one value per header) or {@link #ofHeaderValues} (every value); the
 * canonical constructor checks that the two maps agree.
 *
 * @param statusCode the HTTP status code, three digits (100 to 999)
 * @param headers every header, lower-case name to its values joined with {@code ", "}
 * @param contentType the response's {@code Content-Type}, {@code ""} when it had none
 * @param headerValues every header, lower-case name to all its values in arrival order; the same
 *     names as {@code headers}
 * @param event for one event of a Server-Sent-Events stream: its type, id and retry (wire field
 *     {@code "event"}, written only when present); empty for an ordinary response
 */
public record HttpResponseMeta(
    int statusCode,
    Map<String, String> headers,
    String contentType,
    Map<String, List<String>> headerValues,
    Optional<SseEventMeta> event)
    implements ResponseMeta {

  /** The separator the fetch specification joins repeated header values with. */
  public static final String VALUE_SEPARATOR = ", ";

  public HttpResponseMeta {
    checkStatusCode(statusCode);
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(event, "event");
    headers = joinedByName(headers);
    headerValues = valuesByName(headerValues);
    if (!headers.keySet().equals(headerValues.keySet())) {
      throw new IllegalArgumentException(
          "headers and headerValues must name the same headers, were "
              + headers.keySet()
              + " and "
              + headerValues.keySet()
              + " (HttpResponseMeta.of and ofHeaderValues build both)");
    }
    for (Map.Entry<String, List<String>> header : headerValues.entrySet()) {
      String joined = String.join(VALUE_SEPARATOR, header.getValue());
      if (!joined.equals(headers.get(header.getKey()))) {
        throw new IllegalArgumentException(
            "headers[\""
                + header.getKey()
                + "\"] is \""
                + headers.get(header.getKey())
                + "\" but its headerValues join to \""
                + joined
                + "\"");
      }
    }
  }

  /**
   * A meta of an ordinary (not SSE) response; the constructor from before {@code event} existed.
   */
  public HttpResponseMeta(
      int statusCode,
      Map<String, String> headers,
      String contentType,
      Map<String, List<String>> headerValues) {
    this(statusCode, headers, contentType, headerValues, Optional.empty());
  }

  /** This meta for one Server-Sent Event: the same status and headers, with {@code event}. */
  public HttpResponseMeta withEvent(SseEventMeta event) {
    return new HttpResponseMeta(statusCode, headers, contentType, headerValues, Optional.of(event));
  }

  /** A meta whose headers each have one value (the seeds' form). */
  public static HttpResponseMeta of(
      int statusCode, Map<String, String> headers, String contentType) {
    Objects.requireNonNull(headers, "headers");
    Map<String, List<String>> values = new LinkedHashMap<>();
    headers.forEach(
        (name, value) ->
            values
                .computeIfAbsent(lowerCase(name), key -> new ArrayList<>())
                .add(Objects.requireNonNull(value, () -> "null value of header " + name)));
    return ofHeaderValues(statusCode, values, contentType);
  }

  /**
   * A meta that keeps every value of every header ({@code java.net.http.HttpHeaders.map()} has this
   * shape). Names that differ only in case are merged, their values in map order.
   */
  public static HttpResponseMeta ofHeaderValues(
      int statusCode, Map<String, ? extends List<String>> headerValues, String contentType) {
    Map<String, List<String>> values = valuesByName(headerValues);
    Map<String, String> joined = new LinkedHashMap<>();
    values.forEach((name, list) -> joined.put(name, String.join(VALUE_SEPARATOR, list)));
    return new HttpResponseMeta(statusCode, joined, contentType, values);
  }

  /** The value of header {@code name} (any case), its values joined with {@code ", "}. */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(lowerCase(name)));
  }

  /** Every value of header {@code name} (any case), in arrival order; empty when absent. */
  public List<String> headerValues(String name) {
    return headerValues.getOrDefault(lowerCase(name), List.of());
  }

  @Override
  public ResponseSource source() {
    return ResponseSource.HTTP;
  }

  @Override
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.put("source", source().wireName());
    json.put("statusCode", statusCode);
    ObjectNode headersJson = json.putObject("headers");
    headers.forEach(headersJson::put);
    json.put("contentType", contentType);
    ObjectNode repeated = null;
    for (Map.Entry<String, List<String>> header : headerValues.entrySet()) {
      if (header.getValue().size() > 1) {
        if (repeated == null) {
          repeated = json.putObject("headerValues");
        }
        header.getValue().forEach(repeated.putArray(header.getKey())::add);
      }
    }
    event.ifPresent(value -> json.set("event", value.toJson()));
    return json;
  }

  static void checkStatusCode(int statusCode) {
    if (statusCode < 100 || statusCode > 999) {
      throw new IllegalArgumentException(
          "statusCode must be a three-digit HTTP status (100 to 999), was " + statusCode);
    }
  }

  private static String lowerCase(String name) {
    Objects.requireNonNull(name, "header name");
    return name.toLowerCase(Locale.ROOT);
  }

  private static Map<String, String> joinedByName(Map<String, String> headers) {
    Objects.requireNonNull(headers, "headers");
    Map<String, String> result = new LinkedHashMap<>();
    headers.forEach(
        (name, value) -> {
          Objects.requireNonNull(value, () -> "null value of header " + name);
          result.merge(lowerCase(name), value, (a, b) -> a + VALUE_SEPARATOR + b);
        });
    return Collections.unmodifiableMap(result);
  }

  private static Map<String, List<String>> valuesByName(
      Map<String, ? extends List<String>> headerValues) {
    Objects.requireNonNull(headerValues, "headerValues");
    Map<String, List<String>> merged = new LinkedHashMap<>();
    headerValues.forEach(
        (name, values) -> {
          Objects.requireNonNull(values, () -> "null values of header " + name);
          if (values.isEmpty()) {
            throw new IllegalArgumentException(
                "header " + name + " has no values; leave it out instead");
          }
          for (String value : values) {
            merged
                .computeIfAbsent(lowerCase(name), key -> new ArrayList<>())
                .add(Objects.requireNonNull(value, () -> "null value of header " + name));
          }
        });
    Map<String, List<String>> result = new LinkedHashMap<>();
    merged.forEach((name, values) -> result.put(name, List.copyOf(values)));
    return Collections.unmodifiableMap(result);
  }
}

package dev.alkdev.operations.envelope;

import dev.alkdev.operations.internal.Json;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import tools.jackson.databind.JsonNode;

/** Envelopes in the seeds' JSON, well-formed and broken, shared by the envelope tests. */
final class EnvelopeFixtures {
  private EnvelopeFixtures() {}

  static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  /** One well-formed envelope of every meta kind and every content block kind. */
  static Stream<Arguments> wellFormed() {
    return Stream.of(
        Arguments.of(
            "local",
            """
            {"data": {"greeting": "hi", "n": [1, 2.5, null]},
             "meta": {"source": "local", "operationId": "demo.echo", "timestamp": 1715000000000}}
            """),
        Arguments.of(
            "local, no data (void handler)",
            """
            {"data": null,
             "meta": {"source": "local", "operationId": "demo.noop", "timestamp": 0}}
            """),
        Arguments.of(
            "local, scalar data",
            """
            {"data": "text", "meta": {"source": "local", "operationId": "a.b", "timestamp": 1}}
            """),
        Arguments.of(
            "http, JSON body",
            """
            {"data": [{"id": 1}, {"id": 2}],
             "meta": {"source": "http", "statusCode": 200,
                      "headers": {"content-type": "application/json",
                                  "date": "Tue, 15 Nov 1994 08:12:31 GMT"},
                      "contentType": "application/json"}}
            """),
        Arguments.of(
            "http, SSE event, no headers",
            """
            {"data": "tick",
             "meta": {"source": "http", "statusCode": 200, "headers": {},
                      "contentType": "text/event-stream"}}
            """),
        Arguments.of(
            "http, repeated Set-Cookie kept in headerValues",
            """
            {"data": {"ok": true},
             "meta": {"source": "http", "statusCode": 201,
                      "headers": {"set-cookie": "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2",
                                  "content-type": ""},
                      "contentType": "",
                      "headerValues": {"set-cookie": ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
                                                      "b=2"]}}}
            """),
        Arguments.of(
            "mcp, structured content and every block kind",
            """
            {"data": {"temperature": 21.5},
             "meta": {"source": "mcp", "isError": false,
                      "content": [
                        {"type": "text", "text": "21.5 degrees",
                         "annotations": {"audience": ["user", "assistant"], "priority": 1,
                                         "lastModified": "2025-01-12T15:00:58Z"}},
                        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png",
                         "annotations": {"priority": 0.25}},
                        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                        {"type": "resource",
                         "resource": {"uri": "file:///a.txt", "mimeType": "text/plain",
                                      "text": "hello"}},
                        {"type": "resource",
                         "resource": {"uri": "file:///b.bin", "blob": "AAEC"},
                         "annotations": {"audience": []}},
                        {"type": "resource_link", "uri": "file:///c.md", "name": "c.md",
                         "description": "notes", "mimeType": "text/markdown"},
                        {"type": "resource_link", "uri": "file:///d", "name": "d"}
                      ],
                      "structuredContent": {"temperature": 21.5},
                      "_meta": {"progressToken": 7}}}
            """),
        Arguments.of(
            "mcp, error result without structured content",
            """
            {"data": [{"type": "text", "text": "no such city"}],
             "meta": {"source": "mcp", "isError": true,
                      "content": [{"type": "text", "text": "no such city"}]}}
            """),
        Arguments.of(
            "mcp, unknown block types and extra fields are kept",
            """
            {"data": [],
             "meta": {"source": "mcp", "isError": false,
                      "content": [
                        {"type": "video", "url": "https://example.org/v.mp4",
                         "frames": [1, 2, {"at": 3}], "annotations": {"audience": ["robot"]}},
                        {"type": "text", "text": "t", "_meta": {"k": "v"},
                         "annotations": {"priority": 0.5, "x-weight": [1]}},
                        {"type": "image", "data": "AA==", "mimeType": "image/gif", "title": "g"},
                        {"type": "resource", "_meta": {"a": 1},
                         "resource": {"uri": "u:1", "text": "x", "_meta": {"b": 2}}},
                        {"type": "resource_link", "uri": "u:2", "name": "n", "size": 1024,
                         "title": "T", "annotations": {"priority": 0}}
                      ]}}
            """));
  }

  /**
   * Broken envelopes: the JSON, the JSON Pointer {@code fromJson} names, a fragment of its message,
   * and whether the JSON Schema can see the fault too (it cannot check that {@code headerValues}
   * agrees with {@code headers}).
   */
  static Stream<Arguments> broken() {
    return Stream.of(
        broken("an array", "[]", "", "must be a JSON object", true),
        broken("a string", "\"envelope\"", "", "must be a JSON object", true),
        broken("no data", "{\"meta\": " + local() + "}", "/data", "is missing", true),
        broken("no meta", "{\"data\": 1}", "/meta", "is missing", true),
        broken("meta a string", "{\"data\": 1, \"meta\": \"local\"}", "/meta", "object", true),
        broken("meta an array", "{\"data\": 1, \"meta\": []}", "/meta", "object", true),
        broken("meta null", "{\"data\": 1, \"meta\": null}", "/meta", "object", true),
        broken(
            "source other",
            "{\"data\": 1, \"meta\": {\"source\": \"other\"}}",
            "/meta/source",
            "expected one of",
            true),
        broken(
            "source upper case",
            "{\"data\": 1, \"meta\": {\"source\": \"LOCAL\", \"operationId\": \"a.b\","
                + " \"timestamp\": 1}}",
            "/meta/source",
            "\"LOCAL\"",
            true),
        broken("no source", "{\"data\": 1, \"meta\": {}}", "/meta/source", "is missing", true),
        broken(
            "source a number",
            "{\"data\": 1, \"meta\": {\"source\": 1}}",
            "/meta/source",
            "must be a string",
            true),
        broken(
            "local without operationId",
            "{\"data\": 1, \"meta\": {\"source\": \"local\", \"timestamp\": 1}}",
            "/meta/operationId",
            "is missing",
            true),
        broken(
            "local with empty operationId",
            "{\"data\": 1, \"meta\": {\"source\": \"local\", \"operationId\": \"\","
                + " \"timestamp\": 1}}",
            "/meta/operationId",
            "must not be empty",
            true),
        broken(
            "local timestamp a string",
            "{\"data\": 1, \"meta\": {\"source\": \"local\", \"operationId\": \"a.b\","
                + " \"timestamp\": \"now\"}}",
            "/meta/timestamp",
            "whole number",
            true),
        broken(
            "local timestamp with a fraction",
            "{\"data\": 1, \"meta\": {\"source\": \"local\", \"operationId\": \"a.b\","
                + " \"timestamp\": 1.5}}",
            "/meta/timestamp",
            "the number 1.5",
            true),
        broken(
            "http statusCode a string",
            http("\"200\"", "{}", "\"text/plain\""),
            "/meta/statusCode",
            "the string \"200\"",
            true),
        broken(
            "http statusCode not three digits",
            http("42", "{}", "\"text/plain\""),
            "/meta/statusCode",
            "100 to 999",
            true),
        broken(
            "http without headers",
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"contentType\": \"\"}}",
            "/meta/headers",
            "is missing",
            true),
        broken(
            "http header value a number",
            http("200", "{\"x-count\": 3}", "\"\""),
            "/meta/headers/x-count",
            "must be a string",
            true),
        broken(
            "http without contentType",
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"headers\": {}}}",
            "/meta/contentType",
            "is missing",
            true),
        broken(
            "http headerValues that disagree with headers",
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"headers\": {\"set-cookie\": \"a=1\"}, \"contentType\": \"\","
                + " \"headerValues\": {\"set-cookie\": [\"a=1\", \"b=2\"]}}}",
            "/meta/headerValues/set-cookie",
            "joins to \"a=1, b=2\"",
            false),
        broken(
            "http headerValues for a header not in headers",
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"headers\": {}, \"contentType\": \"\","
                + " \"headerValues\": {\"set-cookie\": [\"a\", \"b\"]}}}",
            "/meta/headerValues/set-cookie",
            "does not have",
            false),
        broken(
            "http headerValues with an empty list",
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"headers\": {\"a\": \"\"}, \"contentType\": \"\","
                + " \"headerValues\": {\"a\": []}}}",
            "/meta/headerValues/a",
            "at least one value",
            true),
        broken(
            "mcp isError a string", mcp("\"false\"", "[]"), "/meta/isError", "true or false", true),
        broken(
            "mcp without isError",
            "{\"data\": 1, \"meta\": {\"source\": \"mcp\", \"content\": []}}",
            "/meta/isError",
            "is missing",
            true),
        broken(
            "mcp content an object", mcp("false", "{}"), "/meta/content", "must be an array", true),
        broken(
            "mcp block a string",
            mcp("false", "[\"hello\"]"),
            "/meta/content/0",
            "must be an object",
            true),
        broken(
            "mcp block without type",
            mcp("false", "[{\"type\": \"text\", \"text\": \"a\"}, {\"text\": \"b\"}]"),
            "/meta/content/1/type",
            "is missing",
            true),
        broken(
            "mcp text block with a number",
            mcp("false", "[{\"type\": \"text\", \"text\": 5}]"),
            "/meta/content/0/text",
            "must be a string",
            true),
        broken(
            "mcp image without mimeType",
            mcp("false", "[{\"type\": \"image\", \"data\": \"AA==\"}]"),
            "/meta/content/0/mimeType",
            "is missing",
            true),
        broken(
            "mcp resource without uri",
            mcp("false", "[{\"type\": \"resource\", \"resource\": {\"text\": \"x\"}}]"),
            "/meta/content/0/resource/uri",
            "is missing",
            true),
        broken(
            "mcp resource_link without name",
            mcp("false", "[{\"type\": \"resource_link\", \"uri\": \"u:1\"}]"),
            "/meta/content/0/name",
            "is missing",
            true),
        broken(
            "mcp audience with an unknown role",
            mcp(
                "false",
                "[{\"type\": \"text\", \"text\": \"a\","
                    + " \"annotations\": {\"audience\": [\"user\", \"system\"]}}]"),
            "/meta/content/0/annotations/audience/1",
            "\"user\" or \"assistant\"",
            true),
        broken(
            "mcp priority a string",
            mcp(
                "false",
                "[{\"type\": \"text\", \"text\": \"a\", \"annotations\": {\"priority\":"
                    + " \"high\"}}]"),
            "/meta/content/0/annotations/priority",
            "must be a number",
            true),
        broken(
            "mcp structuredContent an array",
            "{\"data\": 1, \"meta\": {\"source\": \"mcp\", \"isError\": false, \"content\": [],"
                + " \"structuredContent\": [1]}}",
            "/meta/structuredContent",
            "must be an object",
            true),
        broken(
            "mcp _meta a string",
            "{\"data\": 1, \"meta\": {\"source\": \"mcp\", \"isError\": false, \"content\": [],"
                + " \"_meta\": \"x\"}}",
            "/meta/_meta",
            "must be an object",
            true));
  }

  /** The same broken envelopes, only those the JSON Schema can see. */
  static Stream<Arguments> brokenForSchema() {
    return broken().filter(arguments -> (Boolean) arguments.get()[4]);
  }

  static List<String> wellFormedJson() {
    return wellFormed().map(arguments -> (String) arguments.get()[1]).toList();
  }

  private static Arguments broken(
      String name, String json, String pointer, String message, boolean schemaSeesIt) {
    return Arguments.of(name, json, pointer, message, schemaSeesIt);
  }

  private static String local() {
    return "{\"source\": \"local\", \"operationId\": \"a.b\", \"timestamp\": 1}";
  }

  private static String http(String statusCode, String headers, String contentType) {
    return "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": "
        + statusCode
        + ", \"headers\": "
        + headers
        + ", \"contentType\": "
        + contentType
        + "}}";
  }

  private static String mcp(String isError, String content) {
    return "{\"data\": 1, \"meta\": {\"source\": \"mcp\", \"isError\": "
        + isError
        + ", \"content\": "
        + content
        + "}}";
  }
}

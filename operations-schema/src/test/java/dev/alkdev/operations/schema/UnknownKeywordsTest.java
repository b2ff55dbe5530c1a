package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.schema.internal.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Unknown keywords are annotations (JSON Schema's rule), kept and ignored without a warning. */
class UnknownKeywordsTest {
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void capture() {
    events.start();
    root.addAppender(events);
  }

  @AfterEach
  void release() {
    root.detachAppender(events);
  }

  @Test
  void extensionsAndOpenApiKeywordsCompileAndValidateWithoutAWarning() {
    String document =
        """
        {"type": "object", "x-vendor-%s": {"a": 1}, "discriminator": {"propertyName": "kind"},
         "xml": {"name": "pet"}, "example": {"kind": "cat"},
         "properties": {"kind": {"type": "string", "x-order-%s": 2, "example": "cat"}}}"""
            .formatted(System.nanoTime(), System.nanoTime());

    Schema schema = Schema.fromJson(document);
    Schema imported =
        FromSchema.convert(
            Json.mapper().readTree(document),
            FromSchema.Dialect.OPENAPI_3_0,
            SchemaOptions.defaults());

    assertThat(schema.validate(Json.mapper().readTree("{\"kind\": 3}")))
        .extracting(SchemaError::instancePath)
        .containsExactly("/kind");
    assertThat(imported.isValid(Json.mapper().readTree("{\"kind\": \"dog\"}"))).isTrue();
    assertThat(schema.json().has("discriminator")).isTrue();
    assertThat(events.list)
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
  }
}

package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.schema.Schema;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** The demo defers its schemas for start-up; this is where they are proven to compile. */
@Timeout(30)
class DemoSourceTest {

  private static List<OperationSpec> demoSpecs() {
    OperationRegistry registry = OperationRegistry.create();
    new DemoSource().load(registry).join();
    return registry.list();
  }

  /** A deferred schema says so until it is made (Schema.deferred's toString). */
  private static boolean notMade(Schema schema) {
    return schema.toString().equals("Schema(deferred, not made yet)");
  }

  @Test
  void listingCompilesNoSchema() {
    List<OperationSpec> specs = demoSpecs();

    assertThat(specs)
        .extracting(OperationSpec::id)
        .containsExactly("demo.clock", "demo.createNote", "demo.echo");
    for (OperationSpec spec : specs) {
      assertThat(notMade(spec.inputSchema())).as(spec.id()).isTrue();
      assertThat(notMade(spec.outputSchema())).as(spec.id()).isTrue();
    }
  }

  @Test
  void everyDemoSchemaCompilesToAnObjectSchema() {
    for (OperationSpec spec : demoSpecs()) {
      for (Schema schema : List.of(spec.inputSchema(), spec.outputSchema())) {
        JsonNode json = schema.json();
        assertThat(schema.isUnknown()).as(spec.id()).isFalse();
        assertThat(json.path("type").asString()).as(spec.id()).isEqualTo("object");
        assertThat(notMade(schema)).isFalse();
      }
    }
  }
}

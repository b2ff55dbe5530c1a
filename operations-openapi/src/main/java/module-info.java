/** Operations from OpenAPI documents: HTTP handlers on the JDK HttpClient. */
module dev.alkdev.operations.openapi {
  requires transitive dev.alkdev.operations.core;
  requires java.net.http;
  requires tools.jackson.databind;
  requires tools.jackson.dataformat.yaml;
  requires org.slf4j;

  exports dev.alkdev.operations.openapi;
}

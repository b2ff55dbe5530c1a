/**
 * operations for Java, testing: the transport contract kit that every pub/sub transport's tests
 * extend: {@code PubSubContractTest} (the PubSub SPI) and {@code TransportConformanceTest} (the
 * call protocol).
 */
module dev.alkdev.operations.testing {
  requires transitive dev.alkdev.operations.remote;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;

  exports dev.alkdev.operations.testing;

  // JUnit calls the suite's test methods reflectively when the tests run on the module path.
  opens dev.alkdev.operations.testing to
      org.junit.platform.commons;
}

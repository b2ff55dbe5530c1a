/**
 * operations for Java, testing: the transport conformance suite that every pub/sub transport's
 * tests extend.
 */
module dev.alkdev.operations.testing {
  requires transitive dev.alkdev.operations.core;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;

  exports dev.alkdev.operations.testing;

  // JUnit calls the suite's test methods reflectively when the tests run on the module path.
  opens dev.alkdev.operations.testing to
      org.junit.platform.commons;
}

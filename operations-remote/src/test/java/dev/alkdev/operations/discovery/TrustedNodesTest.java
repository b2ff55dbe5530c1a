package dev.alkdev.operations.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.OperationPattern;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Trusted nodes in discovery (docs/security.md, "Trusted nodes"; D103): a caller that requires
 * verified nodes routes only to nodes whose hello a trusted key signed, lists the others as
 * unverified, and is not fooled by copied, altered, old or unsigned announcements.
 */
class TrustedNodesTest {
  private static final int CALLS = 40;
  private static final KeyPair BILLING = NodeKeys.generate();
  private static final KeyPair OTHER = NodeKeys.generate();

  private final List<AutoCloseable> open = new ArrayList<>();
  private final InProcessPubSub bus = InProcessPubSub.create();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    bus.close();
  }

  private <T extends AutoCloseable> T open(T closeable) {
    open.add(closeable);
    return closeable;
  }

  private static TrustedNodes trusted(String... operations) {
    return TrustedNodes.builder().key("billing", BILLING.getPublic(), operations).build();
  }

  /** A node serving {@code ids}, counting the calls it runs; signed when a signer is given. */
  private ServingNode node(
      String nodeId, Optional<NodeSigner> signer, AtomicInteger ran, String... ids) {
    OperationRegistry registry = open(OperationRegistry.create());
    for (String id : ids) {
      int dot = id.indexOf('.');
      registry.register(
          OperationSpec.builder(id.substring(0, dot), id.substring(dot + 1)).build(),
          (in, ctx) -> {
            ran.incrementAndGet();
            return Map.of("by", nodeId);
          });
    }
    ServingNode.Builder builder =
        ServingNode.builder(registry, bus).nodeId(nodeId).heartbeatInterval(Duration.ofMillis(200));
    signer.ifPresent(builder::signer);
    return open(builder.start());
  }

  private RemoteCatalog catalog(TrustedNodes trust) {
    return open(RemoteCatalog.builder(bus).trustedNodes(trust).build());
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static RemoteNode node(RemoteCatalog catalog, String nodeId) {
    return catalog.nodes().stream()
        .filter(n -> n.nodeId().equals(nodeId))
        .findFirst()
        .orElseThrow(() -> new AssertionError(nodeId + " is not listed"));
  }

  @Test
  void onlyTheSignedNodeTakesCallsAndTheUnsignedOneIsListedAsUnverified() throws Exception {
    AtomicInteger signedRan = new AtomicInteger();
    AtomicInteger rogueRan = new AtomicInteger();
    node(
        "signed",
        Optional.of(NodeSigner.of("billing", BILLING.getPrivate())),
        signedRan,
        "billing.charge");
    node("rogue", Optional.empty(), rogueRan, "billing.charge");
    RemoteCatalog catalog = catalog(trusted("billing.*"));
    await("both nodes with their specs", () -> catalog.servers("billing.charge").size() == 2);

    RemoteNode signed = node(catalog, "signed");
    assertThat(signed.identity()).contains("billing");
    assertThat(signed.verified()).isTrue();
    RemoteNode rogue = node(catalog, "rogue");
    assertThat(rogue.identity()).isEmpty();
    assertThat(rogue.verified()).isFalse();
    assertThat(catalog.unverifiedHellos()).isPositive();

    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(catalog.call("billing.charge", Map.of()));
    }
    for (CompletableFuture<?> call : calls) {
      call.get(10, TimeUnit.SECONDS);
    }
    assertThat(signedRan).hasValue(CALLS);
    assertThat(rogueRan).hasValue(0);
  }

  @Test
  void anUnverifiedNodeAloneGetsNoCallsAndItsOperationIsNotListed() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    node("untrusted", Optional.of(NodeSigner.of("other", OTHER.getPrivate())), ran, "demo.echo");
    RemoteCatalog catalog = catalog(trusted("*"));
    await("the node is known", () -> !catalog.servers("demo.echo").isEmpty());
    RemoteNode untrusted = node(catalog, "untrusted");
    assertThat(untrusted.identity()).contains("other");
    assertThat(untrusted.verified()).isFalse();
    assertThat(catalog.list()).isEmpty();
    CallError refused = failure(catalog.call("demo.echo", Map.of()));
    assertThat(refused.code()).isIn(ErrorCode.NO_RESPONDERS, ErrorCode.OPERATION_NOT_FOUND);
    assertThat(ran).hasValue(0);
  }

  @Test
  void aVerifiedIdentityServesOnlyTheOperationsItsKeyIsTrustedFor() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    node(
        "billing-node",
        Optional.of(NodeSigner.of("billing", BILLING.getPrivate())),
        ran,
        "billing.charge",
        "demo.echo");
    RemoteCatalog catalog = catalog(trusted("billing.*"));
    await("billing.charge is listed", () -> catalog.spec("billing.charge").isPresent());
    assertThat(catalog.list()).extracting(OperationSpec::id).containsExactly("billing.charge");
    assertThat(failure(catalog.call("demo.echo", Map.of())).code())
        .isIn(ErrorCode.NO_RESPONDERS, ErrorCode.OPERATION_NOT_FOUND);
    catalog.call("billing.charge", Map.of()).get(10, TimeUnit.SECONDS);
    assertThat(ran).hasValue(1);
  }

  @Test
  void copiedAlteredOldAndUnsignedHellosAreNotBelieved() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    NodeSigner signer = NodeSigner.of("billing", BILLING.getPrivate());
    node("real", Optional.of(signer), ran, "billing.charge");
    RemoteCatalog catalog = catalog(trusted("*"));
    await("the real node is verified", () -> catalog.spec("billing.charge").isPresent());
    OperationSpec spec = catalog.spec("billing.charge").orElseThrow();
    String digest = NodeEvents.digest(List.of(spec));
    long now = System.currentTimeMillis();
    NodeEvent.Proof realProof = signer.prove("real", digest, now);

    // The real node's proof, copied onto another node id.
    hello("copy", digest, List.of(spec), realProof);
    // A proof for other specs than those sent: the digest covers the specs.
    OperationSpec other = OperationSpec.builder("billing", "refund").build();
    hello("altered", digest, List.of(other), signer.prove("altered", digest, now));
    // Signed long ago.
    long old = now - TrustedNodes.DEFAULT_MAX_AGE.toMillis() - 60_000;
    hello("old", digest, List.of(spec), signer.prove("old", digest, old));
    // Unsigned, under the real node's id: it must not unseat the real node.
    hello("real", "0".repeat(64), List.of(other), null);

    await("the copies are heard", () -> catalog.unverifiedHellos() >= 3);
    assertThat(node(catalog, "copy").verified()).isFalse();
    assertThat(node(catalog, "old").verified()).isFalse();
    assertThat(node(catalog, "real").verified()).isTrue();
    assertThat(node(catalog, "real").operations()).containsExactly("billing.charge");
    assertThat(catalog.spec("billing.refund")).isEmpty();
    for (int i = 0; i < CALLS; i++) {
      assertThat(
              catalog
                  .call("billing.charge", Map.of())
                  .get(10, TimeUnit.SECONDS)
                  .data()
                  .path("by")
                  .asString())
          .isEqualTo("real");
    }
    assertThat(ran).hasValue(CALLS);
  }

  @Test
  void withoutTrustedNodesIdentitiesAreShownAsClaimedAndEveryNodeIsRouted() throws Exception {
    AtomicInteger a = new AtomicInteger();
    AtomicInteger b = new AtomicInteger();
    node("a", Optional.of(NodeSigner.of("billing", BILLING.getPrivate())), a, "demo.echo");
    node("b", Optional.empty(), b, "demo.echo");
    RemoteCatalog catalog = open(RemoteCatalog.builder(bus).build());
    await("both serve demo.echo", () -> catalog.servers("demo.echo").size() == 2);
    assertThat(catalog.servers("demo.echo"))
        .extracting(RemoteNode::nodeId, RemoteNode::identity, RemoteNode::verified)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", Optional.of("billing"), false),
            org.assertj.core.groups.Tuple.tuple("b", Optional.empty(), false));
    for (int i = 0; i < 10; i++) {
      catalog.call("demo.echo", Map.of()).get(10, TimeUnit.SECONDS);
    }
    assertThat(a.get() + b.get()).isEqualTo(10);
    assertThat(catalog.unverifiedHellos()).isZero();
  }

  @Test
  void aSecondServerOfAnIdUnderAnotherIdentityIsReportedAndWarnedOf() throws Exception {
    ch.qos.logback.classic.Logger log =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(NodeTable.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    log.addAppender(lines);
    try {
      RemoteCatalog catalog = open(RemoteCatalog.builder(bus).build());
      node(
          "first",
          Optional.of(NodeSigner.of("billing", BILLING.getPrivate())),
          new AtomicInteger(),
          "billing.charge");
      await("the first node", () -> catalog.servers("billing.charge").size() == 1);
      assertThat(lines.list).noneMatch(e -> e.getFormattedMessage().contains("other identities"));
      node(
          "second",
          Optional.of(NodeSigner.of("other", OTHER.getPrivate())),
          new AtomicInteger(),
          "billing.charge");
      await("the second node", () -> catalog.servers("billing.charge").size() == 2);
      assertThat(catalog.servers("billing.charge"))
          .extracting(RemoteNode::identity)
          .containsExactly(Optional.of("billing"), Optional.of("other"));
      await(
          "the warning",
          () ->
              lines.list.stream()
                  .anyMatch(
                      e ->
                          e.getFormattedMessage()
                              .equals(
                                  "Node second as other serves operations other identities serve"
                                      + " too: billing.charge (node first as billing)")));
    } finally {
      log.detachAppender(lines);
    }
  }

  @Test
  void keysAndPatternsAreCheckedWhenGiven() {
    assertThatThrownBy(() -> NodeSigner.of("bad id", BILLING.getPrivate()))
        .hasMessageContaining("A key id is 1 to 64");
    assertThatThrownBy(() -> TrustedNodes.builder().key("billing", BILLING.getPublic()))
        .hasMessageContaining("Say which operations billing may serve");
    assertThatThrownBy(() -> TrustedNodes.builder().key("billing", BILLING.getPublic(), "bil*"))
        .hasMessageContaining("'bil*' is not an operation pattern");
    assertThatThrownBy(() -> TrustedNodes.builder().maxAge(Duration.ofSeconds(30)))
        .hasMessageContaining("maxAge must be at least 2 minutes");
    assertThatThrownBy(() -> TrustedNodes.builder().brokerIdentity("anonymous", "*"))
        .hasMessageContaining("anonymous identity proves nothing");
    String pem = NodeKeys.toPem(BILLING.getPublic());
    assertThat(NodeKeys.publicKey(pem)).isEqualTo(BILLING.getPublic());
    assertThat(NodeKeys.privateKey(NodeKeys.toPem(BILLING.getPrivate())).getEncoded())
        .isEqualTo(BILLING.getPrivate().getEncoded());
    assertThatThrownBy(() -> NodeKeys.privateKey(pem)).hasMessageContaining("expected PEM text");
    assertThat(OperationPattern.of("billing.*").matches("billing.cards.add")).isTrue();
    assertThat(OperationPattern.of("billing.*").matches("billingx.charge")).isFalse();
    assertThat(OperationPattern.of("billing.*").matches("billing")).isFalse();
  }

  private void hello(String nodeId, String digest, List<OperationSpec> specs, NodeEvent.Proof proof)
      throws Exception {
    bus.publish(
            ProtocolTopics.NODES,
            NodeEvents.encode(
                new NodeEvent.Hello(
                    nodeId, digest, 200, Optional.of(specs), Optional.ofNullable(proof))))
        .get(5, TimeUnit.SECONDS);
  }

  private static CallError failure(CompletableFuture<?> call) throws Exception {
    try {
      call.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      throw e;
    }
    throw new AssertionError("the call succeeded");
  }
}

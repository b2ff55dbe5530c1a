package dev.alkdev.operations.examples;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.NodeKeys;
import dev.alkdev.operations.discovery.NodeSigner;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.discovery.TrustedNodes;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Trusted nodes (docs/security.md): a node signs its announcements, a caller trusts its key and
 * routes only to it; an unsigned node serving the same operation is listed, unverified, and gets no
 * calls. {@code mvn -B -q compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.SecurityExamples}.
 */
public final class SecurityExamples {
  private SecurityExamples() {}

  public static void main(String[] args) throws Exception {
    System.out.println(run());
  }

  /** Runs the example; returns the nodes serving billing.charge, as the caller sees them. */
  public static List<RemoteNode> run() throws Exception {
    KeyPair pair = NodeKeys.generate(); // or: ops keygen billing
    String privatePem = NodeKeys.toPem(pair.getPrivate()); // billing.key, on the serving node
    String publicPem = NodeKeys.toPem(pair.getPublic()); // billing.pub, with the callers
    try (PubSub pubsub = InProcessPubSub.create();
        OperationRegistry billing = OperationRegistry.create();
        OperationRegistry rogue = OperationRegistry.create()) {
      OperationSpec charge = OperationSpec.builder("billing", "charge").build();
      billing.register(charge, (input, context) -> Map.of("charged", true));
      rogue.register(charge, (input, context) -> Map.of("charged", "by someone else"));

      // snippet: signed-node
      PrivateKey key = NodeKeys.privateKey(privatePem);
      ServingNode node =
          ServingNode.builder(billing, pubsub)
              .signer(NodeSigner.of("billing", key)) // every hello signed with Ed25519
              .start();
      // end-snippet
      ServingNode unsigned = ServingNode.start(rogue, pubsub);

      // snippet: trusted-catalog
      PublicKey billingKey = NodeKeys.publicKey(publicPem);
      RemoteCatalog catalog =
          RemoteCatalog.builder(pubsub)
              .trustedNodes(
                  TrustedNodes.builder()
                      .key("billing", billingKey, "billing.*") // what this key may serve
                      .build())
              .build();
      // calls go only to verified nodes; catalog.servers(id) lists every node with its identity
      // end-snippet
      long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (catalog.servers("billing.charge").size() < 2 && System.nanoTime() < end) {
        Thread.sleep(10);
      }
      for (int i = 0; i < 5; i++) {
        Object charged = catalog.call("billing.charge", Map.of()).join().data().get("charged");
        if (!charged.toString().equals("true")) {
          throw new IllegalStateException("a call reached the unverified node");
        }
      }
      List<RemoteNode> servers = catalog.servers("billing.charge");
      catalog.close();
      unsigned.close();
      node.close();
      return servers;
    }
  }
}

package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub.Subscription;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import io.nats.client.NKey;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * NKey authentication and TLS against a {@code nats-server} configured for them (the options were
 * wired before; these prove them against a real server).
 */
@Timeout(60)
class NatsSecurityTest {
  @TempDir Path dir;

  /** A message published by {@code client} comes back to its own subscription. */
  private static void roundTrip(NatsPubSub client) throws Exception {
    CompletableFuture<String> got = new CompletableFuture<>();
    try (Subscription subscription =
        client.subscribe(
            "secure.echo",
            SubscribeOptions.defaults(),
            (Message message) ->
                got.complete(new String(message.payload(), StandardCharsets.UTF_8)))) {
      client.flush(Duration.ofSeconds(5));
      assertThat(
              client
                  .publish("secure.echo", "hello".getBytes(StandardCharsets.UTF_8))
                  .get(5, TimeUnit.SECONDS))
          .isEqualTo(1);
      assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo("hello");
      assertThat(subscription.topic()).isEqualTo("secure.echo");
    }
  }

  @Test
  void anNKeySeedAuthenticatesAndAnotherUsersSeedIsRefused() throws Exception {
    NKey user = NKey.createUser(null);
    NKey stranger = NKey.createUser(null);
    Path config = dir.resolve("nkeys.conf");
    Files.writeString(
        config,
        "authorization { users = [ { nkey: \"" + new String(user.getPublicKey()) + "\" } ] }\n");
    try (NatsServer server = NatsServer.start("-c", config.toString())) {
      NatsOptions good = NatsOptions.builder(server.url()).nkeySeed(user.getSeed()).build();
      assertThat(good.toString()).doesNotContain(new String(user.getSeed()));
      try (NatsPubSub client = NatsPubSub.connect(good)) {
        assertThat(client.isConnected()).isTrue();
        roundTrip(client);
      }

      NatsOptions wrong =
          NatsOptions.builder(server.url())
              .nkeySeed(stranger.getSeed())
              .maxReconnects(0)
              .connectTimeout(Duration.ofSeconds(2))
              .build();
      assertThatThrownBy(() -> NatsPubSub.connect(wrong))
          .isInstanceOf(CallError.class)
          .hasMessageNotContaining(new String(stranger.getSeed()));
    }
  }

  @Test
  void tlsWithAGivenContextConnectsAndAnUntrustedCertificateIsRefused() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process openssl =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(openssl.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(openssl.exitValue()).as(Files.readString(dir.resolve("openssl.log"))).isZero();

    try (NatsServer server =
        NatsServer.start("--tls", "--tlscert", cert.toString(), "--tlskey", key.toString())) {
      String url = "tls://127.0.0.1:" + server.port();
      try (NatsPubSub client =
          NatsPubSub.connect(NatsOptions.builder(url).sslContext(trusting(cert)).build())) {
        assertThat(client.isConnected()).isTrue();
        roundTrip(client);
      }

      // The JDK's default trust store does not know a self-signed certificate.
      NatsOptions untrusted =
          NatsOptions.builder(url).maxReconnects(0).connectTimeout(Duration.ofSeconds(2)).build();
      assertThatThrownBy(() -> NatsPubSub.connect(untrusted)).isInstanceOf(CallError.class);
    }
  }

  private static SSLContext trusting(Path certificate) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(certificate)) {
      Certificate parsed = CertificateFactory.getInstance("X.509").generateCertificate(in);
      store.setCertificateEntry("test-server", parsed);
    }
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}

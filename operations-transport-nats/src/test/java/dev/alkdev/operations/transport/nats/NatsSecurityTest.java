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
import java.util.Base64;
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

      NatsOptions wrong = oneTry(server.url()).nkeySeed(stranger.getSeed()).build();
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
      NatsOptions untrusted = oneTry(url).build();
      assertThatThrownBy(() -> NatsPubSub.connect(untrusted)).isInstanceOf(CallError.class);
    }
  }

  /**
   * Operator mode, as {@code nsc} sets it up: an operator, an account it signed (preloaded into a
   * memory resolver) and a user the account signed, whose JWT and seed sit in a credentials file.
   * The JWTs are made here with jnats' {@link NKey} so the test needs no {@code nsc}.
   */
  @Test
  void aCredentialsFileAuthenticatesAndAUserOfAnUnknownAccountIsRefused() throws Exception {
    NKey operator = NKey.createOperator(null);
    NKey account = NKey.createAccount(null);
    NKey user = NKey.createUser(null);
    String operatorJwt =
        jwt(operator, operator, "test-operator", "{\"type\":\"operator\",\"version\":2}");
    String accountJwt =
        jwt(
            operator,
            account,
            "test-account",
            "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,\"imports\":-1,"
                + "\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1},"
                + "\"type\":\"account\",\"version\":2}");
    Path config = dir.resolve("operator.conf");
    Files.writeString(
        config,
        "operator: \""
            + operatorJwt
            + "\"\nresolver: MEMORY\nresolver_preload: {\n  "
            + publicKey(account)
            + ": \""
            + accountJwt
            + "\"\n}\n");
    Path creds = dir.resolve("node.creds");
    Files.writeString(creds, credentials(userJwt(account, user), user));

    try (NatsServer server = NatsServer.start("-c", config.toString())) {
      NatsOptions good = NatsOptions.builder(server.url()).credentialsFile(creds).build();
      assertThat(good.toString()).doesNotContain(new String(user.getSeed()));
      try (NatsPubSub client = NatsPubSub.connect(good)) {
        assertThat(client.isConnected()).isTrue();
        roundTrip(client);
      }

      // A user signed by an account the server does not know.
      NKey strangerAccount = NKey.createAccount(null);
      NKey stranger = NKey.createUser(null);
      Path strangerCreds = dir.resolve("stranger.creds");
      Files.writeString(strangerCreds, credentials(userJwt(strangerAccount, stranger), stranger));
      NatsOptions wrong = oneTry(server.url()).credentialsFile(strangerCreds).build();
      assertThatThrownBy(() -> NatsPubSub.connect(wrong))
          .isInstanceOf(CallError.class)
          .hasMessageNotContaining(new String(stranger.getSeed()));

      // A seed that does not match the JWT's subject: the server's nonce check fails.
      Path mismatched = dir.resolve("mismatched.creds");
      Files.writeString(mismatched, credentials(userJwt(account, user), NKey.createUser(null)));
      NatsOptions mismatch = oneTry(server.url()).credentialsFile(mismatched).build();
      assertThatThrownBy(() -> NatsPubSub.connect(mismatch)).isInstanceOf(CallError.class);
    }
  }

  @Test
  void aMissingCredentialsFileIsNamedInTheError() {
    Path missing = dir.resolve("absent.creds");
    NatsOptions options = oneTry("nats://127.0.0.1:" + 1).credentialsFile(missing).build();
    assertThatThrownBy(() -> NatsPubSub.connect(options))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("The credentials file " + missing + " does not exist");
  }

  /** Options that try once and give up quickly: a refused connection fails the test fast. */
  private static NatsOptions.Builder oneTry(String url) {
    return NatsOptions.builder(url).maxReconnects(0).connectTimeout(Duration.ofSeconds(2));
  }

  private static String userJwt(NKey account, NKey user) throws Exception {
    return jwt(
        account,
        user,
        "test-user",
        "{\"pub\":{},\"sub\":{},\"subs\":-1,\"data\":-1,\"payload\":-1,"
            + "\"type\":\"user\",\"version\":2}");
  }

  /** A NATS JWT: header, claims and an ed25519 signature by {@code issuer}, each base64url. */
  private static String jwt(NKey issuer, NKey subject, String name, String natsClaims)
      throws Exception {
    Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
    String header =
        base64.encodeToString(
            "{\"typ\":\"JWT\",\"alg\":\"ed25519-nkey\"}".getBytes(StandardCharsets.UTF_8));
    String claims =
        "{\"jti\":\""
            + java.util.UUID.randomUUID().toString().replace("-", "").toUpperCase()
            + "\",\"iat\":"
            + System.currentTimeMillis() / 1000
            + ",\"iss\":\""
            + publicKey(issuer)
            + "\",\"name\":\""
            + name
            + "\",\"sub\":\""
            + publicKey(subject)
            + "\",\"nats\":"
            + natsClaims
            + "}";
    String body = base64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
    String signed = header + "." + body;
    return signed
        + "."
        + base64.encodeToString(issuer.sign(signed.getBytes(StandardCharsets.UTF_8)));
  }

  /** A credentials file as {@code nsc} writes it. */
  private static String credentials(String userJwt, NKey user) throws Exception {
    return "-----BEGIN NATS USER JWT-----\n"
        + userJwt
        + "\n------END NATS USER JWT------\n\n"
        + "************************* IMPORTANT *************************\n"
        + "NKEY Seed printed below can be used to sign and prove identity.\n\n"
        + "-----BEGIN USER NKEY SEED-----\n"
        + new String(user.getSeed())
        + "\n------END USER NKEY SEED------\n";
  }

  private static String publicKey(NKey key) throws Exception {
    return new String(key.getPublicKey());
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

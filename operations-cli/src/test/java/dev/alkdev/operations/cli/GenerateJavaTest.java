package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.cli.internal.OneOffFlags;
import dev.alkdev.operations.cli.internal.SourceSet;
import dev.alkdev.operations.typed.TypedClient;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ops generate java} on a plain OpenAPI document: the sources compile, the interface fits
 * the operations it was made from, and calls through it reach a loopback server.
 */
class GenerateJavaTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @TempDir Path dir;
  private Path doc;
  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    doc = dir.resolve("pets.yaml");
    try (var in = GenerateJavaTest.class.getResourceAsStream("/generate/pets.yaml")) {
      Files.write(doc, in.readAllBytes());
    }
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/pets",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
          String path = exchange.getRequestURI().getPath();
          String reply;
          int status = 200;
          if (exchange.getRequestMethod().equals("POST")) {
            status = 201;
            reply = "{\"id\": 3, \"name\": \"kit\", \"tag\": null, \"status\": \"pending\"}";
          } else if (path.equals("/pets")) {
            reply =
                "[{\"id\": 1, \"name\": \"rex\", \"status\": \"available\"},"
                    + " {\"id\": 2, \"name\": \"tom\", \"tag\": \"cat\", \"status\": \"sold\"}]";
          } else {
            reply = "{\"id\": 2, \"name\": \"tom\", \"tag\": \"cat\"}";
          }
          byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
  }

  private Path generate(String out) {
    Path sources = dir.resolve(out);
    CliRun run =
        CliRun.run(
            "--no-demo",
            "--openapi",
            "pets=" + doc,
            "generate",
            "java",
            "--out",
            sources.toString(),
            "--package",
            "com.example.pets");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("wrote ", "3 operations, 1 interface", "com/example/pets");
    return sources;
  }

  @Test
  void theSourcesCompileFitTheOperationsAndCallTheApi() throws Exception {
    Path sources = generate("src");
    try (Stream<Path> files = Files.list(sources.resolve("com/example/pets"))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .contains("Pets.java", "Pet.java", "NewPet.java", "Status.java");
    }
    Path classes = dir.resolve("classes");
    assertThat(Javac.compile(sources, classes)).isEmpty();

    OpsConfig config =
        OneOffFlags.apply(
            OpsConfig.empty(),
            List.of("pets=" + doc),
            List.of("pets=http://127.0.0.1:" + server.getAddress().getPort()),
            List.of(),
            List.of());
    try (URLClassLoader loader = Javac.loader(classes);
        SourceSet set = SourceSet.create(false, config, Map.of(), Duration.ofSeconds(30));
        OperationRegistry registry = OperationRegistry.create()) {
      set.load(registry, Duration.ofSeconds(30), SourceSet.Progress.NONE);
      Class<?> pets = loader.loadClass("com.example.pets.Pets");
      assertThat(TypedClient.builder(pets, registry).check()).isEmpty();
      Object client = TypedClient.create(pets, registry);

      Object listed = call(client, pets, "listPets", "{\"limit\": 2, \"status\": \"available\"}");
      assertThat(listed).isInstanceOf(List.class);
      List<?> list = (List<?>) listed;
      assertThat(list).hasSize(2);
      assertThat(list.get(0).getClass().getName()).isEqualTo("com.example.pets.Pet");
      assertThat(MAPPER.writeValueAsString(list.get(1)))
          .contains("\"name\":\"tom\"", "\"tag\":\"cat\"", "\"status\":\"sold\"");

      Object created =
          call(
              client,
              pets,
              "createPet",
              "{\"body\": {\"name\": \"kit\", \"status\": \"pending\"}}");
      assertThat(MAPPER.writeValueAsString(created)).contains("\"id\":3", "\"name\":\"kit\"");
      Object one = call(client, pets, "getPet", "{\"petId\": 2}");
      assertThat(MAPPER.writeValueAsString(one)).contains("\"id\":2");

      assertThat(requests)
          .containsExactly(
              "GET /pets?limit=2&status=available ",
              "POST /pets {\"name\":\"kit\",\"status\":\"pending\"}",
              "GET /pets/2 ");
    }
  }

  /** Calls {@code name} of the client with its input record read from {@code json}. */
  private static Object call(Object client, Class<?> type, String name, String json)
      throws Exception {
    for (Method method : type.getMethods()) {
      if (method.getName().equals(name) && method.getParameterCount() == 1) {
        Object input = MAPPER.readValue(json, method.getParameterTypes()[0]);
        return method.invoke(client, input);
      }
    }
    throw new AssertionError("no method " + name + "(input) on " + type);
  }

  @Test
  void theSameDocumentGivesTheSameBytes() throws Exception {
    Path first = generate("one");
    Path second = generate("two");
    try (Stream<Path> files = Files.walk(first)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(Files.readString(second.resolve(first.relativize(file))))
            .as(file.toString())
            .isEqualTo(Files.readString(file));
      }
    }
  }

  @Test
  void specFilesFromListJsonGenerateTheSameInterface() throws Exception {
    CliRun listed = CliRun.run("--no-demo", "--openapi", "pets=" + doc, "list", "--json");
    assertThat(listed.code()).isZero();
    Path specs = dir.resolve("specs.json");
    Files.writeString(specs, listed.out());
    CliRun run =
        CliRun.run(
            "--no-demo",
            "generate",
            "java",
            "--specs",
            specs.toString(),
            "--out",
            dir.resolve("from-specs").toString(),
            "--package",
            "com.example.pets");
    assertThat(run.code()).as(run.err()).isZero();
    Path fromSource = generate("from-source");
    assertThat(Files.readString(dir.resolve("from-specs/com/example/pets/Pets.java")))
        .isEqualTo(Files.readString(fromSource.resolve("com/example/pets/Pets.java")));
  }

  @Test
  void badUsageIsRefusedWithTheReason() throws Exception {
    CliRun badPackage =
        CliRun.run(
            "--no-demo",
            "--openapi",
            "pets=" + doc,
            "generate",
            "java",
            "--out",
            "x",
            "--package",
            "com.1bad");
    assertThat(badPackage.code()).isEqualTo(2);
    assertThat(badPackage.err()).contains("--package com.1bad");

    CliRun nothing = CliRun.run("--no-demo", "generate", "java", "--out", "x", "--package", "p");
    assertThat(nothing.code()).isEqualTo(2);
    assertThat(nothing.err()).contains("no operations to generate from");

    CliRun demoOnly =
        CliRun.run(
            "generate",
            "java",
            "--out",
            dir.resolve("demo").toString(),
            "--package",
            "p",
            "--namespace",
            "demo");
    assertThat(demoOnly.code()).as(demoOnly.err()).isZero();

    Path notSpecs = dir.resolve("bad.json");
    Files.writeString(notSpecs, "{\"id\": 1}");
    CliRun badSpecs =
        CliRun.run(
            "--no-demo",
            "generate",
            "java",
            "--specs",
            notSpecs.toString(),
            "--out",
            "x",
            "--package",
            "p");
    assertThat(badSpecs.code()).isEqualTo(2);
    assertThat(badSpecs.err()).contains("expected a JSON array of specs");

    CliRun noOut = CliRun.run("--no-demo", "generate", "java", "--package", "p");
    assertThat(noOut.code()).isEqualTo(2);
    assertThat(noOut.err()).contains("--out");
  }
}

package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ops} launcher under an MCP host ({@code serve --mcp-stdio}), which waits for {@code
 * initialize} and shows nothing of a build: the script never builds there. Run on a copy of the
 * script in a folder laid out like the project, so nothing of the real build is touched.
 */
class OpsScriptTest {
  @TempDir Path root;

  @Test
  void underAnMcpHostAMissingJarIsRefusedWithHowToBuildIt() throws Exception {
    layOut();
    Result result = run("serve", "--mcp-stdio");
    assertThat(result.code()).isEqualTo(1);
    assertThat(result.err())
        .contains("is not built; an MCP host cannot wait for a build")
        .contains("ops --version")
        .doesNotContain("building");
  }

  @Test
  void underAnMcpHostAStaleJarServesAndSaysSoInsteadOfBuilding() throws Exception {
    layOut();
    Path jar = root.resolve("operations-cli/target/ops.jar");
    Files.createDirectories(jar.getParent());
    Files.write(jar, new byte[0]); // not a jar: what runs next fails, which is not what is checked
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
    Result result = run("--no-demo", "serve", "--mcp-stdio");
    assertThat(result.err())
        .contains("the jar is older than the sources; serving with it")
        .doesNotContain("building");
  }

  private void layOut() throws IOException {
    Files.copy(Path.of("..", "ops"), root.resolve("ops"));
    root.resolve("ops").toFile().setExecutable(true);
    Path source = root.resolve("operations-core/src/main/java/A.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "class A {}");
  }

  private record Result(int code, String err) {}

  private Result run(String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(List.of("bash", root.resolve("ops").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
    builder.environment().put("OPS_NO_CDS", "1");
    Process process = builder.start();
    process.getOutputStream().close();
    process.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(err).isTrue();
    return new Result(process.exitValue(), err);
  }
}

package dev.alkdev.operations.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** {@code ops --version}: the Maven project version, filtered into version.properties at build. */
public final class VersionProvider implements CommandLine.IVersionProvider {

  public static String version() {
    Properties properties = new Properties();
    try (InputStream in =
        VersionProvider.class.getResourceAsStream(
            "/dev/alkdev/operations/cli/version.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      // Falls through to "unknown": a version line is not worth failing over.
    }
    return properties.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "ops " + version() + " (operations for Java)",
      "Java " + System.getProperty("java.version") + ", " + System.getProperty("java.vm.name")
    };
  }
}

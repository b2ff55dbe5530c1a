package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.discovery.NodeKeys;
import dev.alkdev.operations.discovery.NodeSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ops keygen NAME}: an Ed25519 key pair for signing a node's announcements ({@code ops serve
 * --sign-key}) and for callers that trust it ({@code ops --trust-key}); docs/security.md.
 */
@Command(
    name = "keygen",
    mixinStandardHelpOptions = true,
    description = {
      "Makes an Ed25519 key pair for signed node announcements: NAME.key (private, mode 600: give",
      "it to the serving node) and NAME.pub (give it to the callers that trust NAME)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops keygen billing --out keys",
      "  ops serve --nats nats://127.0.0.1:4222 --sign-key keys/billing.key",
      "  ops --nats nats://127.0.0.1:4222 --trust-key billing=keys/billing.pub list"
    })
final class KeygenCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "NAME", description = "The key's id: who callers see.")
  String name;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = ".",
      description = "Where to write the two files (default: the current directory).")
  Path out;

  @Override
  public Integer call() {
    KeyPair pair = NodeKeys.generate();
    try {
      NodeSigner.of(name, pair.getPrivate()); // the one check of a key id
    } catch (IllegalArgumentException e) {
      throw new Failure(ExitCodes.USAGE, "keygen " + name + ": " + e.getMessage());
    }
    Path key = out.resolve(name + ".key");
    Path pub = out.resolve(name + ".pub");
    try {
      Files.createDirectories(out);
      write(key, NodeKeys.toPem(pair.getPrivate()), true);
      write(pub, NodeKeys.toPem(pair.getPublic()), false);
    } catch (FileAlreadyExistsException e) {
      throw new Failure(
          ExitCodes.USAGE, e.getFile() + " exists already", "remove it, or choose another --out");
    } catch (IOException e) {
      throw new Failure(ExitCodes.SOFTWARE, "could not write the keys: " + e.getMessage());
    }
    Output output = root.output();
    output.out().println("wrote " + key + " (private: keep it with the serving node)");
    output.out().println("wrote " + pub + " (public: give it to the callers)");
    output.out().flush();
    return ExitCodes.OK;
  }

  private static void write(Path file, String text, boolean secret) throws IOException {
    if (secret) {
      // Created private, so the key is never readable by others, not even for a moment.
      try {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file); // not a POSIX file system: its own access rules apply
      }
      Files.writeString(file, text, StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
    } else {
      Files.writeString(file, text, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW);
    }
  }
}

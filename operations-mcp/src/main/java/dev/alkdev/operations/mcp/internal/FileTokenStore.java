package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.mcp.McpOAuthTokens;
import dev.alkdev.operations.mcp.McpTokenStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link McpTokenStore#file}: one JSON object, keyed by resource URI. Every change rewrites the
 * file through a temporary file created with mode 0600 and moved over it, so a reader never sees
 * half a file and the secrets are never readable by others, not even for a moment. Calls are
 * serialized on the store; two processes sharing a file may lose each other's last change (the
 * loser logs in again), never corrupt it.
 */
public final class FileTokenStore implements McpTokenStore {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private final Path path;

  public FileTokenStore(Path path) {
    this.path = path.toAbsolutePath();
  }

  @Override
  public synchronized Optional<McpOAuthTokens> load(URI resource) {
    JsonNode entry = read().get(resource.toString());
    return entry == null || !entry.isObject()
        ? Optional.empty()
        : Optional.of(tokens(resource, entry));
  }

  @Override
  public synchronized void save(McpOAuthTokens tokens) {
    ObjectNode all = read();
    all.set(tokens.resource().toString(), json(tokens));
    write(all);
  }

  @Override
  public synchronized void remove(URI resource) {
    ObjectNode all = read();
    if (all.remove(resource.toString()) != null) {
      write(all);
    }
  }

  private ObjectNode read() {
    if (!Files.exists(path)) {
      return ToolMapper.JSON.createObjectNode();
    }
    try {
      PosixFileAttributeView posix = Files.getFileAttributeView(path, PosixFileAttributeView.class);
      if (posix != null) {
        Set<PosixFilePermission> permissions = posix.readAttributes().permissions();
        if (!OWNER_ONLY.containsAll(permissions)) {
          throw new IllegalStateException(
              "The token file "
                  + path
                  + " may be read or written by others (mode "
                  + PosixFilePermissions.toString(permissions)
                  + "); it is not used until only its owner can (chmod 600 "
                  + path
                  + ")");
        }
      }
      JsonNode all = ToolMapper.JSON.readTree(Files.readString(path, StandardCharsets.UTF_8));
      if (!all.isObject()) {
        throw new IllegalStateException("The token file " + path + " is not a JSON object");
      }
      return (ObjectNode) all;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the token file " + path, e);
    } catch (tools.jackson.core.JacksonException e) {
      throw new IllegalStateException("The token file " + path + " is not JSON", e);
    }
  }

  private void write(ObjectNode all) {
    try {
      Path dir = path.getParent();
      Files.createDirectories(dir);
      boolean posix = Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
      Path temp =
          posix
              ? Files.createTempFile(
                  dir, ".tokens", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY))
              : Files.createTempFile(dir, ".tokens", ".tmp");
      try {
        if (!posix) {
          ownerOnly(temp);
        }
        Files.writeString(temp, all.toPrettyString(), StandardCharsets.UTF_8);
        try {
          Files.move(
              temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write the token file " + path, e);
    }
  }

  /** Where there are no POSIX permissions: readable and writable by the owner only. */
  private static void ownerOnly(Path file) {
    java.io.File f = file.toFile();
    boolean ok =
        f.setReadable(false, false)
            && f.setWritable(false, false)
            && f.setReadable(true, true)
            && f.setWritable(true, true);
    if (!ok) {
      throw new IllegalStateException("Could not make " + file + " private to its owner");
    }
  }

  private static ObjectNode json(McpOAuthTokens tokens) {
    ObjectNode node = ToolMapper.JSON.createObjectNode();
    node.put("issuer", tokens.issuer());
    node.put("clientId", tokens.clientId());
    tokens.clientSecret().ifPresent(s -> node.put("clientSecret", s));
    node.put("accessToken", tokens.accessToken());
    tokens.refreshToken().ifPresent(t -> node.put("refreshToken", t));
    tokens.expiresAt().ifPresent(at -> node.put("expiresAt", at.toString()));
    tokens.scope().ifPresent(s -> node.put("scope", s));
    return node;
  }

  private McpOAuthTokens tokens(URI resource, JsonNode entry) {
    try {
      return new McpOAuthTokens(
          resource,
          required(entry, "issuer"),
          required(entry, "clientId"),
          optional(entry, "clientSecret"),
          required(entry, "accessToken"),
          optional(entry, "refreshToken"),
          optional(entry, "expiresAt").map(Instant::parse),
          optional(entry, "scope"));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "The token file "
              + path
              + " has an entry for "
              + resource
              + " that is not valid: "
              + e.getMessage(),
          e);
    }
  }

  private static String required(JsonNode entry, String key) {
    return optional(entry, key)
        .orElseThrow(() -> new IllegalArgumentException(key + " is missing"));
  }

  private static Optional<String> optional(JsonNode entry, String key) {
    JsonNode value = entry.get(key);
    return value != null && value.isString() && !value.stringValue().isEmpty()
        ? Optional.of(value.stringValue())
        : Optional.empty();
  }
}

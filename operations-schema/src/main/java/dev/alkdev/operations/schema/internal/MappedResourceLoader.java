package dev.alkdev.operations.schema.internal;

import com.networknt.schema.AbsoluteIri;
import com.networknt.schema.resource.InputStreamSource;
import com.networknt.schema.resource.ResourceLoader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/**
 * Loads referenced schema documents from the locations {@code SchemaOptions.mapPrefix} maps ids to,
 * and from nowhere else. networknt's own loader would fetch any URL once remote fetching is on,
 * follow redirects, and read without bound; this one checks the location after mapping and after
 * {@code ..} segments are resolved (so a {@code $ref} cannot climb out of a mapped folder), follows
 * no redirect, and stops reading a document larger than the schema size limit.
 */
final class MappedResourceLoader implements ResourceLoader {
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
  private static final int READ_TIMEOUT_MILLIS = 10_000;

  private final List<String> targets;
  private final long maxBytes;

  /**
   * @param targets the replacement prefixes of the mappings ({@code file:} or {@code http(s):})
   * @param maxDocumentChars the schema size limit; UTF-8 needs at most 3 bytes a char
   */
  MappedResourceLoader(Collection<String> targets, int maxDocumentChars) {
    // Locations are normalised before they are matched, so the targets must be too: a target
    // such as file:/work/app/../shared/ would otherwise match nothing.
    this.targets = targets.stream().map(MappedResourceLoader::normalized).toList();
    this.maxBytes = 3L * maxDocumentChars;
  }

  @Override
  public InputStreamSource getResource(AbsoluteIri iri) {
    URI uri;
    try {
      uri = new URI(iri.toString()).normalize();
    } catch (URISyntaxException e) {
      return null;
    }
    if (hasDotSegment(uri.getPath())) {
      return null; // "..", left over above the root or spelled %2e%2e: refuse rather than guess
    }
    String location = withoutFragment(uri);
    for (String target : targets) {
      if (!isUnder(location, target)) {
        continue;
      }
      if (target.startsWith("file:")) {
        return file(uri, target);
      }
      return () -> http(uri);
    }
    return null;
  }

  private InputStreamSource file(URI uri, String target) {
    Path path;
    Path root;
    try {
      // Path.of decodes %2e%2e and the like, so the containment check runs on the real path.
      path = Path.of(new URI(uri.getScheme(), uri.getSchemeSpecificPart(), null)).normalize();
      root = Path.of(URI.create(target)).normalize();
    } catch (IllegalArgumentException
        | URISyntaxException
        | java.nio.file.FileSystemNotFoundException e) {
      return null;
    }
    if (!path.startsWith(root)) {
      return null;
    }
    return () -> bounded(Files.newInputStream(path), uri);
  }

  private InputStream http(URI uri) throws IOException {
    URLConnection connection = uri.toURL().openConnection();
    if (!(connection instanceof HttpURLConnection http)) {
      throw new IOException("not an HTTP location: " + uri);
    }
    http.setInstanceFollowRedirects(false); // a redirect could lead anywhere
    http.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
    http.setReadTimeout(READ_TIMEOUT_MILLIS);
    int status = http.getResponseCode();
    if (status != HttpURLConnection.HTTP_OK) {
      http.disconnect();
      throw new IOException("GET " + uri + " answered HTTP " + status);
    }
    return bounded(http.getInputStream(), uri);
  }

  private InputStream bounded(InputStream in, URI uri) {
    return new FilterInputStream(in) {
      private long read;

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          count(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          count(n);
        }
        return n;
      }

      private void count(int n) throws IOException {
        read += n;
        if (read > maxBytes) {
          throw new IOException(
              "schema document at "
                  + uri
                  + " is larger than the limit of "
                  + maxBytes / 3
                  + " characters (SchemaLimits.maxDocumentChars)");
        }
      }
    };
  }

  /** Whether the decoded path still has a "." or ".." segment. */
  private static boolean hasDotSegment(String decodedPath) {
    if (decodedPath == null) {
      return false;
    }
    for (String segment : decodedPath.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return true;
      }
    }
    return false;
  }

  private static String normalized(String target) {
    try {
      return new URI(target).normalize().toString();
    } catch (URISyntaxException e) {
      return target; // SchemaOptions checked its form; matching the text as given is all we can do
    }
  }

  private static String withoutFragment(URI uri) {
    String text = uri.toString();
    int hash = text.indexOf('#');
    return hash < 0 ? text : text.substring(0, hash);
  }

  /** Whether {@code location} is {@code prefix} or below it, not merely sharing its characters. */
  static boolean isUnder(String location, String prefix) {
    if (!location.startsWith(prefix)) {
      return false;
    }
    if (prefix.endsWith("/") || location.length() == prefix.length()) {
      return true;
    }
    char next = location.charAt(prefix.length());
    return next == '/' || next == '?';
  }
}

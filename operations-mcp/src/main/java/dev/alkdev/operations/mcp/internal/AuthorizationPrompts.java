package dev.alkdev.operations.mcp.internal;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The prompts of {@link dev.alkdev.operations.mcp.McpAuthorizationPrompt}. */
public final class AuthorizationPrompts {
  private static final Logger LOG = LoggerFactory.getLogger(AuthorizationPrompts.class);
  private static final int MAX_REDIRECTS = 10;
  private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(30);

  private AuthorizationPrompts() {}

  /** Opens the browser (when there is one) and prints the address either way. */
  public static CompletableFuture<Optional<URI>> systemBrowser(URI authorizationUrl, URI redirect) {
    System.err.println(
        "To authorize this MCP client, open this address in a browser:\n  " + authorizationUrl);
    for (List<String> command : openCommands(authorizationUrl)) {
      try {
        Process process =
            new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        process.getOutputStream().close();
        break;
      } catch (IOException e) {
        LOG.debug("Could not run {} to open a browser", command.get(0), e);
      }
    }
    return CompletableFuture.completedFuture(Optional.empty());
  }

  private static List<List<String>> openCommands(URI url) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.contains("mac")) {
      return List.of(List.of("open", url.toString()));
    }
    if (os.contains("win")) {
      return List.of(List.of("rundll32", "url.dll,FileProtocolHandler", url.toString()));
    }
    if (System.getenv("DISPLAY") == null && System.getenv("WAYLAND_DISPLAY") == null) {
      return List.of(); // no desktop to open a browser on
    }
    return List.of(List.of("xdg-open", url.toString()));
  }

  /** Follows the authorization server's redirects until one leads to {@code redirect}. */
  public static CompletableFuture<Optional<URI>> headless(URI authorizationUrl, URI redirect) {
    HttpClient http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(FETCH_TIMEOUT)
            .build();
    return follow(http, authorizationUrl, redirect, 0);
  }

  private static CompletableFuture<Optional<URI>> follow(
      HttpClient http, URI url, URI redirect, int hops) {
    HttpRequest get = HttpRequest.newBuilder(url).timeout(FETCH_TIMEOUT).GET().build();
    return http.sendAsync(get, HttpResponse.BodyHandlers.discarding())
        .thenCompose(
            response -> {
              int status = response.statusCode();
              Optional<String> location = response.headers().firstValue("Location");
              if (status < 300 || status >= 400 || location.isEmpty()) {
                return CompletableFuture.failedFuture(
                    new IllegalStateException(
                        "The authorization server answered HTTP "
                            + status
                            + " at "
                            + withoutQuery(url)
                            + " instead of redirecting: headless authorization needs a server"
                            + " that approves at once (unset OPS_OAUTH_HEADLESS to use a"
                            + " browser)"));
              }
              URI next = url.resolve(location.get());
              if (leadsTo(next, redirect)) {
                return CompletableFuture.completedFuture(Optional.of(next));
              }
              if (hops + 1 >= MAX_REDIRECTS) {
                return CompletableFuture.failedFuture(
                    new IllegalStateException(
                        "The authorization server redirected "
                            + MAX_REDIRECTS
                            + " times without reaching the redirect URI"));
              }
              return follow(http, next, redirect, hops + 1);
            });
  }

  private static boolean leadsTo(URI next, URI redirect) {
    return redirect.getScheme().equalsIgnoreCase(String.valueOf(next.getScheme()))
        && redirect.getHost().equalsIgnoreCase(String.valueOf(next.getHost()))
        && redirect.getPort() == next.getPort()
        && redirect.getPath().equals(next.getPath());
  }

  private static String withoutQuery(URI url) {
    return url.getScheme() + "://" + url.getAuthority() + url.getPath();
  }
}

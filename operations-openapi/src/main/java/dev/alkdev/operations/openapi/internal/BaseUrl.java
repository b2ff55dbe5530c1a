package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.net.URI;
import java.util.Optional;

/**
 * Where an imported document's calls go, or why there is nowhere: a document with no usable {@code
 * servers} entry still imports, lists and describes (5 of 60 public documents had none); only a
 * call needs the URL, and its error says how to give one.
 */
record BaseUrl(Optional<URI> uri, String problem) {
  /** How a base URL is given, in the library and in {@code ops}. */
  static final String HOW_TO_SET =
      "HttpServiceConfig.baseUrl; in ops, --base-url NAME=URL or baseUrl in the configuration";

  static BaseUrl of(URI uri) {
    return new BaseUrl(Optional.of(uri), "");
  }

  static BaseUrl missing(String problem) {
    return new BaseUrl(Optional.empty(), problem);
  }

  /** The URL, or the error a call gets without one (not retryable: nothing will change). */
  URI require(String operationId) {
    return uri.orElseThrow(
        () ->
            CallError.builder(
                    ErrorCode.UNAVAILABLE,
                    operationId
                        + ": no base URL to call: "
                        + problem
                        + " (set one: "
                        + HOW_TO_SET
                        + ")")
                .retryable(false)
                .build());
  }
}

package dev.alkdev.operations.http.internal;

import java.util.function.Supplier;

/** An extra GET route: its content type, and the text it answers with, made at each request. */
public record TextRoute(String contentType, Supplier<String> body) {}

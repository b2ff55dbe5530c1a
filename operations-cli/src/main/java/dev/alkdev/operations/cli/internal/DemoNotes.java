package dev.alkdev.operations.cli.internal;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's typed operation: a record in, a record out, schemas derived by core's annotation
 * support. Notes live in memory for one run of {@code ops}; the point is to show a MUTATION with a
 * structured input, not to store anything.
 */
@Namespace("demo")
public final class DemoNotes {
  private final AtomicLong next = new AtomicLong(1);

  /** What {@code demo.createNote} takes: a title and body (required) and optional tags. */
  public record NoteInput(
      String title,
      String body,
      @JsonProperty(isRequired = OptBoolean.FALSE) Optional<List<String>> tags) {}

  /** A created note. */
  public record Note(String id, String title, String body, List<String> tags, Instant createdAt) {}

  @Operation(
      type = OperationType.MUTATION,
      description =
          "Creates a note from a title, a body and optional tags; returns it with its new id (kept"
              + " in memory for this run only)")
  public Note createNote(NoteInput input) {
    return new Note(
        "note-" + next.getAndIncrement(),
        input.title(),
        input.body(),
        input.tags().orElse(List.of()),
        Instant.now());
  }
}

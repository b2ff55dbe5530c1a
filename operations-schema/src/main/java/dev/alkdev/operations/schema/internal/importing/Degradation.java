package dev.alkdev.operations.schema.internal.importing;

/**
 * One change made to an imported schema so that it compiles: what was dropped or widened, and
 * where.
 *
 * @param pointer JSON Pointer into the normalised document; {@code ""} is the root
 * @param reason what was wrong and what was done about it
 */
record Degradation(String pointer, String reason) {
  @Override
  public String toString() {
    return "#" + pointer + ": " + reason;
  }
}

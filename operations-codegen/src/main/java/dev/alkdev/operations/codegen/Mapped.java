package dev.alkdev.operations.codegen;

import com.palantir.javapoet.TypeName;
import java.util.ArrayList;
import java.util.List;

/**
 * What a schema maps to: a Java type (a primitive when the schema admits no null, boxed by the
 * place that uses it when it must be), whether the schema admits null, whether it is an object that
 * can hold nothing (an input that needs no parameter), and the Javadoc lines (escaped) that the
 * element using it should carry.
 */
record Mapped(TypeName type, boolean nullable, boolean emptyObject, List<String> docs) {
  Mapped {
    docs = List.copyOf(docs);
  }

  static Mapped of(TypeName type) {
    return new Mapped(type, false, false, List.of());
  }

  static Mapped json() {
    return of(JavaTypes.JSON_NODE);
  }

  Mapped orNull(boolean more) {
    return more && !nullable ? new Mapped(type, true, emptyObject, docs) : this;
  }

  Mapped withDocs(List<String> more) {
    if (more.isEmpty()) {
      return this;
    }
    List<String> all = new ArrayList<>(docs);
    all.addAll(more);
    return new Mapped(type, nullable, emptyObject, all);
  }

  /** The type for a place that may hold null (an optional property, a type argument). */
  TypeName boxed() {
    return type.box();
  }
}

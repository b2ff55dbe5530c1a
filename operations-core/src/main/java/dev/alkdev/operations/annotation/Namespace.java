package dev.alkdev.operations.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The namespace of the {@link Operation}s of a class that do not name their own. Inherited, so the
 * operations of a subclass (an anonymous one, say) keep their class's namespace.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Namespace {
  String value();
}

package dev.alkdev.operations.annotation;

import dev.alkdev.operations.OperationType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as an operation; {@link AnnotatedOperations#of(Object)} turns every marked method
 * of an object into a spec and a handler. See {@link AnnotatedOperations} for the parameter and
 * return types a method may have.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Operation {
  /** The operation's name; the method's name when empty. */
  String name() default "";

  /** The namespace; the class's {@link Namespace} when empty. */
  String namespace() default "";

  /**
   * QUERY (the default) or MUTATION. A method that returns a {@link
   * java.util.concurrent.Flow.Publisher} or takes an {@link
   * dev.alkdev.operations.EmitterSubscriptionHandler.Emitter} streams, so it is a SUBSCRIPTION:
   * leave the default or say SUBSCRIPTION (MUTATION is refused). A method that does not stream
   * cannot be declared a SUBSCRIPTION.
   */
  OperationType type() default OperationType.QUERY;

  /** What the operation does, for people and for agents choosing a tool. */
  String description() default "";

  /** The spec's version. */
  String version() default "1.0.0";

  /** Scopes a caller must hold; none means anyone may call it. */
  String[] scopes() default {};
}

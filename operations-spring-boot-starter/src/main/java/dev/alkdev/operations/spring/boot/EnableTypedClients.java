package dev.alkdev.operations.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Makes each listed interface an injectable bean: a {@code TypedClient} over the application's
 * {@code OperationRegistry}, so its methods call the registry's operations (local, OpenAPI, MCP or
 * remote alike), checked against their specs the first time the bean is used.
 *
 * <pre>{@code
 * @SpringBootApplication
 * @EnableTypedClients(PetsApi.class)
 * class App {}
 * }</pre>
 *
 * The interfaces are those {@code ops generate java} writes, or any with {@code @Operation}
 * methods, as {@code TypedClient} describes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(TypedClientsRegistrar.class)
public @interface EnableTypedClients {
  /** The client interfaces. */
  Class<?>[] value();
}

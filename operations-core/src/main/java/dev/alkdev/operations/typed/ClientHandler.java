package dev.alkdev.operations.typed;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * Dispatches a typed client's methods: an operation's method to its {@link ClientMethod}, a default
 * method to its own code, and {@code equals}, {@code hashCode} and {@code toString} as an object of
 * its own identity.
 */
final class ClientHandler implements InvocationHandler {
  private final String description;
  private final Map<Method, ClientMethod> methods;

  ClientHandler(String description, Map<Method, ClientMethod> methods) {
    this.description = description;
    this.methods = methods;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    ClientMethod bound = methods.get(method);
    if (bound != null) {
      return bound.invoke(args);
    }
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "equals" -> proxy == args[0];
        case "hashCode" -> System.identityHashCode(proxy);
        default -> "TypedClient[" + description + "]";
      };
    }
    if (method.isDefault()) {
      return InvocationHandler.invokeDefault(proxy, method, args);
    }
    // Not reachable: every abstract method was bound when the client was built.
    throw new UnsupportedOperationException(method + " is not bound to an operation");
  }
}

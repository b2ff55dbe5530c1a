package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.typed.TypedClient;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers one bean per interface of {@link EnableTypedClients}: a client over the registry, which
 * a bean may take in its constructor, before the registry is filled. Start-up checks every such
 * interface against the registry once it is filled, and fails naming each mismatch.
 */
final class TypedClientsRegistrar implements ImportBeanDefinitionRegistrar {

  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry beans) {
    Map<String, Object> attributes =
        metadata.getAnnotationAttributes(EnableTypedClients.class.getName());
    if (attributes == null) {
      return;
    }
    for (Class<?> contract : (Class<?>[]) attributes.get("value")) {
      if (!contract.isInterface()) {
        throw new IllegalStateException(
            "@EnableTypedClients lists "
                + contract.getName()
                + ", which is not an interface; list the client interfaces");
      }
      String name = "typedClient." + contract.getName();
      if (beans.containsBeanDefinition(name)) {
        continue;
      }
      RootBeanDefinition definition = new RootBeanDefinition(contract);
      definition.setLazyInit(true);
      definition.setInstanceSupplier(() -> create(contract, (BeanFactory) beans));
      definition.setAttribute(CONTRACT, contract);
      beans.registerBeanDefinition(name, definition);
    }
  }

  /** The bean attribute that marks a typed client's definition with its interface. */
  static final String CONTRACT = "dev.alkdev.operations.typedClient";

  /**
   * A client checked against the interface's own specs, so it can be made before the registry is
   * filled; {@link OperationsLoader} checks it against the registry's once it is.
   */
  private static <T> T create(Class<T> contract, BeanFactory beans) {
    OperationRegistry registry = beans.getBean(OperationRegistry.class);
    try {
      return TypedClient.builder(contract, registry)
          .specs(AnnotatedOperations.specs(contract))
          .build();
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "@EnableTypedClients(" + contract.getSimpleName() + ".class): " + e.getMessage(), e);
    }
  }

  /**
   * Every mismatch between the typed-client interfaces of {@code beans} and the operations of
   * {@code registry}, one message per interface.
   */
  static java.util.List<String> check(
      ConfigurableListableBeanFactory beans, OperationRegistry registry) {
    java.util.List<String> problems = new java.util.ArrayList<>();
    for (String name : beans.getBeanDefinitionNames()) {
      Object contract = beans.getBeanDefinition(name).getAttribute(CONTRACT);
      if (contract instanceof Class<?> type) {
        java.util.List<String> mismatches = TypedClient.builder(type, registry).check();
        if (!mismatches.isEmpty()) {
          problems.add(
              "@EnableTypedClients("
                  + type.getSimpleName()
                  + ".class) does not fit the registry's operations:\n  "
                  + String.join("\n  ", mismatches));
        }
      }
    }
    return problems;
  }
}

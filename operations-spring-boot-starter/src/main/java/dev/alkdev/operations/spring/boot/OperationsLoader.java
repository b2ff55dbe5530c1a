package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.scan.OperationProvider;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Fills the registry once every singleton exists, before anything serves: the {@code @Operation}
 * methods of every bean, every {@link OperationProvider} bean, the Spring AI tools when {@code
 * operations.ai.import-tools} is set, the sources the properties name (by ops' rules), and the
 * operations other nodes serve on the transports marked {@code import-operations}, in that order. A
 * failure stops start-up with a message that names the bean or property. Closing the context closes
 * the sources and catalogs.
 */
public final class OperationsLoader implements SmartInitializingSingleton, DisposableBean {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(OperationsLoader.class);

  /** How long discovery waits for no new node before it counts the catalog as settled. */
  private static final Duration QUIET = Duration.ofMillis(250);

  private final ConfigurableListableBeanFactory beans;
  private final OperationRegistry registry;
  private final OperationsProperties properties;
  private final Environment environment;
  private final OperationsTransports transports;
  private final List<AutoCloseable> opened = new ArrayList<>();

  /** Written once, at start-up; read by health from any thread. */
  private volatile Map<String, RemoteCatalog> catalogs = Map.of();

  OperationsLoader(
      ConfigurableListableBeanFactory beans,
      OperationRegistry registry,
      OperationsProperties properties,
      Environment environment,
      OperationsTransports transports) {
    this.beans = beans;
    this.registry = registry;
    this.properties = properties;
    this.environment = environment;
    this.transports = transports;
  }

  @Override
  public void afterSingletonsInstantiated() {
    if (properties.isScanBeans()) {
      registerAnnotatedBeans();
      beans
          .getBeanProvider(OperationProvider.class)
          .orderedStream()
          .forEach(provider -> registry.registerAll(provider.operations()));
    }
    beans.getBeanProvider(RegistryFiller.class).orderedStream().forEach(f -> f.fill(registry));
    loadSources();
    importRemoteOperations();
    List<String> problems = TypedClientsRegistrar.check(beans, registry);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(String.join("\n", problems));
    }
  }

  private void registerAnnotatedBeans() {
    for (String name : beans.getBeanDefinitionNames()) {
      var definition = beans.getBeanDefinition(name);
      if (definition.isAbstract()
          || !definition.isSingleton()
          || definition.getAttribute(TypedClientsRegistrar.CONTRACT) != null) {
        // Prototypes and scoped beans have no one object to run operations on; typed clients
        // call operations rather than implement them.
        continue;
      }
      Class<?> type = beans.getType(name, false);
      if (type == null
          || type.isInterface()
          || java.lang.reflect.Proxy.isProxyClass(type)
          || !hasOperations(ClassUtils.getUserClass(type))) {
        continue;
      }
      Object bean = beans.getBean(name);
      // Advice does not apply to operations run on a proxied bean: they run on its target (use an
      // OperationInterceptor for cross-cutting work).
      if (AopUtils.isAopProxy(bean)) {
        Object target = AopProxyUtils.getSingletonTarget(bean);
        if (target != null) {
          LOG.warn(
              "bean '{}' is a proxy: its operations run on its target, so its advice"
                  + " (@Transactional, @PreAuthorize, ...) does not apply to them; use an"
                  + " OperationInterceptor or the operations' scopes instead",
              name);
          bean = target;
        }
      }
      try {
        registry.registerAll(AnnotatedOperations.of(bean));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "bean '" + name + "' (" + type.getName() + "): " + e.getMessage(), e);
      }
    }
  }

  private static boolean hasOperations(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method method : c.getDeclaredMethods()) {
        if (method.isAnnotationPresent(Operation.class)) {
          return true;
        }
      }
    }
    return false;
  }

  private void loadSources() {
    OpsConfig config =
        PropertySources.read(
            environment,
            properties,
            Path.of(""),
            new DefaultResourceLoader(beans.getBeanClassLoader()));
    if (config.sources().isEmpty()) {
      return;
    }
    try {
      opened.add(config.load(registry, System.getenv(), properties.getLoadTimeout()));
    } catch (ConfigException e) {
      throw new IllegalStateException(
          "operations sources (operations.openapi, operations.mcp-servers, operations.sources,"
              + " operations.config-file): "
              + e.getMessage(),
          e);
    }
  }

  private void importRemoteOperations() {
    Map<String, RemoteCatalog> imported = new LinkedHashMap<>();
    for (String kind : transports.kinds()) {
      if (!transports.settings(kind).isImportOperations()) {
        continue;
      }
      RemoteCatalog catalog = RemoteCatalog.create(transports.connect(kind));
      opened.add(catalog);
      imported.put(kind, catalog);
      catalog.awaitSettled(QUIET, properties.getLoadTimeout());
      Registration registration = catalog.registerInto(registry);
      opened.add(registration::remove);
    }
    catalogs = Map.copyOf(imported);
  }

  /** The nodes known on each importing transport, for health. */
  Map<String, List<RemoteNode>> nodes() {
    Map<String, List<RemoteNode>> nodes = new LinkedHashMap<>();
    new java.util.TreeMap<>(catalogs).forEach((kind, catalog) -> nodes.put(kind, catalog.nodes()));
    return nodes;
  }

  @Override
  public void destroy() {
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        // Closing the others matters more.
      }
    }
    opened.clear();
  }
}

package dev.alkdev.operations.discovery;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.CallOptions;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A catalog's operations registered in a local registry as proxies, kept in step as they come and
 * go: each proxy calls through the catalog with its caller's context (identity, deadline, signal,
 * metadata). An id the registry holds of its own is left alone.
 */
final class RemoteOperations implements OperationRegistry.Listener, Registration {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteOperations.class);

  private final RemoteCatalog catalog;
  private final OperationRegistry registry;
  private final Map<String, OperationSpec> registered = new HashMap<>(); // guarded by this
  private Registration listener;
  private boolean removed; // guarded by this

  private RemoteOperations(RemoteCatalog catalog, OperationRegistry registry) {
    this.catalog = catalog;
    this.registry = registry;
  }

  static RemoteOperations start(RemoteCatalog catalog, OperationRegistry registry) {
    RemoteOperations proxies =
        new RemoteOperations(catalog, java.util.Objects.requireNonNull(registry, "registry"));
    proxies.listener = catalog.addListener(proxies);
    catalog.list().forEach(proxies::added);
    return proxies;
  }

  @Override
  public synchronized void added(OperationSpec spec) {
    if (removed || spec.equals(registered.get(spec.id()))) {
      return; // the catalog told of it while the first listing ran
    }
    if (registered.remove(spec.id()) != null) {
      registry.unregister(spec.id()); // its spec changed
    }
    if (registry.getSpec(spec.id()).isPresent()) {
      LOG.debug("{} is served remotely and locally; the local one stays", spec.id());
      return;
    }
    registry.register(spec, proxy(spec));
    registered.put(spec.id(), spec);
  }

  @Override
  public synchronized void removed(OperationSpec spec) {
    if (registered.remove(spec.id()) != null) {
      registry.unregister(spec.id());
    }
  }

  @Override
  public void remove() {
    listener.remove();
    synchronized (this) {
      removed = true;
      registered.keySet().forEach(registry::unregister);
      registered.clear();
    }
  }

  private Handler proxy(OperationSpec spec) {
    String id = spec.id();
    if (spec.type() == OperationType.SUBSCRIPTION) {
      return Handler.publisher(
          (input, context) -> catalog.subscribe(id, input, CallOptions.of(context)));
    }
    return Handler.async((input, context) -> catalog.call(id, input, CallOptions.of(context)));
  }
}

package dev.alkdev.operations.remote.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.core.util.BufferRecycler;

class ThreadRecyclersTest {
  @Test
  void aPlatformThreadKeepsItsOwnRecycler() throws Exception {
    BufferRecycler first = ThreadRecyclers.POOL.acquireAndLinkPooled();
    first.releaseToPool();
    BufferRecycler again = ThreadRecyclers.POOL.acquireAndLinkPooled();
    again.releaseToPool();
    assertThat(again).isSameAs(first);
    assertThat(ThreadRecyclers.isVirtual(Thread.currentThread())).isFalse();

    CompletableFuture<BufferRecycler> other = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              BufferRecycler recycler = ThreadRecyclers.POOL.acquireAndLinkPooled();
              recycler.releaseToPool();
              other.complete(recycler);
            });
    thread.start();
    assertThat(other.get(5, TimeUnit.SECONDS)).isNotSameAs(first);
  }

  @Test
  void aVirtualThreadTakesFromTheSharedPoolWhereTheJdkHasThem() throws Exception {
    Method ofVirtual;
    try {
      ofVirtual = Thread.class.getMethod("ofVirtual");
    } catch (NoSuchMethodException jdkWithoutVirtualThreads) {
      return; // JDK 17 to 20: nothing to check
    }
    BufferRecycler platform = ThreadRecyclers.POOL.acquireAndLinkPooled();
    platform.releaseToPool();
    CompletableFuture<Object[]> seen = new CompletableFuture<>();
    Runnable task =
        () -> {
          BufferRecycler recycler = ThreadRecyclers.POOL.acquireAndLinkPooled();
          recycler.releaseToPool();
          seen.complete(new Object[] {ThreadRecyclers.isVirtual(Thread.currentThread()), recycler});
        };
    Object builder = ofVirtual.invoke(null);
    // Through the public interface: the builder's own class is not open to reflection.
    Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
    Thread virtual = (Thread) start.invoke(builder, task);
    virtual.join(5_000);
    Object[] result = seen.get(5, TimeUnit.SECONDS);
    assertThat(result[0]).isEqualTo(true);
    assertThat(result[1]).isNotSameAs(platform);
  }
}

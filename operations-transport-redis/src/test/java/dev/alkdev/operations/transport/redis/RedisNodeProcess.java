package dev.alkdev.operations.transport.redis;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.ServingNode;
import java.time.Duration;

/**
 * A serving node in a process of its own, for the test that kills one with SIGKILL mid-call: {@code
 * RedisNodeProcess <redis url> <heartbeat ms>} serves {@code fault.hang} (a MUTATION that prints
 * {@code RUNNING} and blocks for a minute) and prints {@code READY <nodeId>} once serving. It exits
 * by itself after two minutes, should the test that started it die first.
 */
public final class RedisNodeProcess {
  private RedisNodeProcess() {}

  public static void main(String[] args) throws Exception {
    RedisPubSub redis = RedisPubSub.connect(RedisOptions.builder(args[0]).build());
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("fault", "hang").type(OperationType.MUTATION).build(),
        Handler.blocking(
            (in, ctx) -> {
              System.out.println("RUNNING " + in.get("n").asInt());
              System.out.flush();
              Thread.sleep(60_000);
              return in;
            }));
    ServingNode node =
        ServingNode.builder(registry, redis)
            .heartbeatInterval(Duration.ofMillis(Long.parseLong(args[1])))
            .start();
    redis.flush(Duration.ofSeconds(5));
    System.out.println("READY " + node.nodeId());
    System.out.flush();
    Thread.sleep(120_000);
    System.exit(0);
  }
}

package dev.alkdev.operations.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallWatchTest {
  private final List<CallError> ends = new CopyOnWriteArrayList<>();

  @Test
  void removedBeforeTheEndItReportsNothing() throws Exception {
    Cancellation signal = Cancellation.create();
    Registration watch =
        CallWatch.watch(
            Optional.of(Deadline.after(Duration.ofMillis(50))),
            Optional.of(signal),
            "late",
            ends::add);

    watch.remove();
    Thread.sleep(200); // past the deadline: its timer was released
    signal.cancel(CallError.of(ErrorCode.CANCELLED, "after the work ended"));

    assertThat(ends).isEmpty();
  }

  @Test
  void reportsOnceWhicheverComesFirst() throws Exception {
    Cancellation signal = Cancellation.create();
    CountDownLatch reported = new CountDownLatch(1);
    CallWatch.watch(
        Optional.of(Deadline.after(Duration.ofMillis(50))),
        Optional.of(signal),
        "late",
        why -> {
          ends.add(why);
          reported.countDown();
        });

    assertThat(reported.await(5, TimeUnit.SECONDS)).isTrue();
    signal.cancel(CallError.of(ErrorCode.CANCELLED, "too late to matter"));
    Thread.sleep(100);

    assertThat(ends).singleElement().satisfies(e -> assertThat(e.getMessage()).isEqualTo("late"));
    assertThat(ends.get(0).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
  }

  @Test
  void theDeadlineIsReportedOffTheTimerThread() throws Exception {
    CountDownLatch reported = new CountDownLatch(1);
    List<String> threads = new CopyOnWriteArrayList<>();
    CallWatch.watch(
        Optional.of(Deadline.after(Duration.ofMillis(20))),
        Optional.empty(),
        "late",
        why -> {
          threads.add(Thread.currentThread().getName());
          reported.countDown();
        });

    assertThat(reported.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(threads).singleElement().asString().startsWith("operations-deadline-");
  }
}

package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ring of a count-based breaker: its running counts are exactly the ring's, however adds interleave. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallRingTest {

  @Test
  void keepsTheLastNOutcomes() {
    CallRing ring = new CallRing(4);
    ring.add(false, true);
    ring.add(false, true);
    assertThat(new long[] {ring.total(), ring.slow(), ring.errors()}).containsExactly(2, 0, 2);
    ring.add(true, false);
    ring.add(false, false);
    ring.add(false, false); // replaces the first failure
    assertThat(new long[] {ring.total(), ring.slow(), ring.errors()}).containsExactly(4, 1, 1);
    ring.add(false, false); // replaces the second failure
    ring.add(false, false); // replaces the slow call
    assertThat(new long[] {ring.total(), ring.slow(), ring.errors()}).containsExactly(4, 0, 0);
  }

  @Test
  void realThreadsLeaveCountsEqualToTheRing() throws Exception {
    // Small rings wrap many times while 8 threads add: two adds a whole ring apart often swap the
    // same slot, which is the case the running counts must survive.
    for (int size : new int[] {1, 3, 16, 100}) {
      CallRing ring = new CallRing(size);
      int threads = 8;
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread worker = new Thread(() -> {
          try {
            start.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          ThreadLocalRandom random = ThreadLocalRandom.current();
          for (int i = 0; i < 20_000; i++) {
            ring.add(random.nextInt(3) == 0, random.nextInt(4) == 0);
          }
        });
        workers.add(worker);
        worker.start();
      }
      for (Thread worker : workers) {
        worker.join(30_000);
        assertThat(worker.isAlive()).isFalse();
      }
      assertThat(new long[] {ring.total(), ring.slow(), ring.errors()}).as("ring of " + size)
          .containsExactly(ring.recount());
      assertThat(ring.total()).isEqualTo(size);
    }
  }
}

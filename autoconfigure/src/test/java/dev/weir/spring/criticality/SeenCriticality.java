package dev.weir.spring.criticality;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A slot of the engine that records the criticality of every call it sees, with the thread the call
 * was entered on: what the engine itself was told, read through the slot SPI.
 */
final class SeenCriticality extends ProcessorSlot {

  /** One call as the engine saw it. */
  record Seen(Criticality criticality, String thread) {
  }

  private final ConcurrentHashMap<String, BlockingQueue<Seen>> calls = new ConcurrentHashMap<>();

  @Override
  public int order() {
    return 0; // after the built-in slots: every call that gets here was admitted by them
  }

  @Override
  public @Nullable BlockException entry(Invocation invocation) {
    queue(invocation.resource()).add(new Seen(invocation.criticality(), Thread.currentThread().getName()));
    return null;
  }

  private BlockingQueue<Seen> queue(String resource) {
    return calls.computeIfAbsent(resource, name -> new LinkedBlockingQueue<>());
  }

  /** The next call of {@code resource}, waiting for it up to five seconds (asynchronous calls). */
  Seen next(String resource) throws InterruptedException {
    Seen seen = queue(resource).poll(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
    if (seen == null) {
      throw new AssertionError("no call of " + resource + " within 5 s");
    }
    return seen;
  }

  /** Forgets every call seen so far. */
  void clear() {
    calls.clear();
  }
}

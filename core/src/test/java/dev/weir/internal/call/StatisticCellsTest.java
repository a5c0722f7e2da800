package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.internal.Engine;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Statistics counted in cells the thread owns ({@link Cells}, {@link StatisticNode}): totals are
 * exact under real threads, whichever cells they share, and the cells stay within their bound
 * however many threads come and go. Counted, not timed: every assertion is on counts after joins.
 * The virtual-thread cases are in {@code StatisticCellsVirtualThreadTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatisticCellsTest {

  /**
   * Twice as many platform threads as there are cells, so that some own a cell, the others share
   * the shared ones several to a cell: each makes admitted inbound calls (a tenth recording an
   * error) and calls refused by a limit of 0, all on the real clock. Every count adds up exactly.
   */
  @Test
  void totalsAreExactUnderRealThreads() throws Exception {
    int threads = 2 * Cells.COUNT;
    int calls = 20_000;
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("open", 2e9), FlowRule.qps("closed", 0))).build();
    runAll(threads, () -> {
      for (int i = 0; i < calls; i++) {
        try (Entry entry = weir.entry("open", EntryType.IN)) {
          if (i % 10 == 0) {
            entry.recordError(new IllegalStateException("counted as failed"));
          }
        }
        if (weir.tryEntry("closed", EntryType.IN, 1) != null) {
          throw new AssertionError("a limit of 0 admits nothing");
        }
      }
    });
    long total = (long) threads * calls;
    ResourceNode open = (ResourceNode) weir.statistics("open");
    assertThat(open.totalPassed()).isEqualTo(total);
    assertThat(open.totalFailed()).isEqualTo(total / 10);
    assertThat(open.totalSucceeded()).isEqualTo(total - total / 10);
    assertThat(open.activeCalls()).isZero();
    ResourceNode closed = (ResourceNode) weir.statistics("closed");
    assertThat(closed.totalBlocked(RuleKind.FLOW)).isEqualTo(total);
    assertThat(closed.totalBlocked()).isEqualTo(total);
    assertThat(closed.totalPassed()).isZero();
    StatisticNode inbound = inbound(weir);
    assertThat(inbound.passedTotal()).isEqualTo(total);
    assertThat(inbound.blockedBy(RuleKind.FLOW)).isEqualTo(total);
    assertThat(inbound.succeededTotal() + inbound.failedTotal()).isEqualTo(total);
    assertThat(open.cellsInUse()).isBetween(1, Cells.COUNT);
  }

  /**
   * Eight threads add to one shared cell of one node: the adds are atomic, so none is lost. A
   * plain {@code x = x + 1} here (what an owned cell does, safe only with one writer) loses
   * thousands of the 1.6 million.
   */
  @Test
  void aSharedCellLosesNoCountToConcurrentWriters() throws Exception {
    StatisticNode node = new StatisticNode(2);
    int cell = Cells.OWNED; // the first shared cell
    int threads = 8;
    int adds = 200_000;
    runAll(threads, () -> {
      for (int i = 0; i < adds; i++) {
        node.onPass(0, 1, cell);
        node.onComplete(0, 3, 1, false, cell);
      }
    });
    assertThat(node.passedTotal()).isEqualTo((long) threads * adds);
    assertThat(node.succeededTotal()).isEqualTo((long) threads * adds);
    assertThat(node.rtNanosTotal()).isEqualTo(3L * threads * adds);
    assertThat(node.cellsInUse()).isEqualTo(1);
  }

  /**
   * Live threads claiming at once never get the same owned cell (each is taken by CAS): in each of
   * 2 000 rounds, twice as many threads as cells claim from a fresh table together; as many claims
   * succeed as there are cells, each cell once, and the other threads are told to share. Then the
   * owners of the last table write their cells together, plainly, and no count is lost.
   */
  @Test
  void twoLiveThreadsNeverOwnTheSameCell() throws Exception {
    int threads = 2 * Cells.OWNED;
    int rounds = 2_000;
    Cells[] tables = new Cells[rounds];
    for (int r = 0; r < rounds; r++) {
      tables[r] = new Cells(Cells.OWNED);
    }
    int[][] claims = new int[rounds][threads];
    StatisticNode node = new StatisticNode(2);
    int adds = 100_000;
    AtomicInteger ids = new AtomicInteger();
    CyclicBarrier round = new CyclicBarrier(threads);
    runAll(threads, () -> {
      int id = ids.getAndIncrement();
      for (int r = 0; r < rounds; r++) {
        round.await(); // all alive: no cell can be taken over from a dead owner
        claims[r][id] = tables[r].claim(Thread.currentThread());
      }
      round.await();
      int cell = claims[rounds - 1][id];
      if (cell >= 0) {
        for (int i = 0; i < adds; i++) {
          node.onPass(0, 1, cell);
        }
      }
    });
    for (int r = 0; r < rounds; r++) {
      List<Integer> owned = new ArrayList<>();
      for (int cell : claims[r]) {
        if (cell >= 0) {
          owned.add(cell);
        }
      }
      assertThat(owned).as("round %d", r).hasSize(Cells.OWNED).doesNotHaveDuplicates();
    }
    assertThat(node.passedTotal()).isEqualTo((long) Cells.OWNED * adds);
  }

  /**
   * The same race, interleaved: thread A finds the cell of a dead thread and is held just before
   * taking it; meanwhile this thread takes it. A's CAS then fails and A takes the next cell: the
   * cell has one owner. (A plain write there would give both threads cell 0.)
   */
  @Test
  void aClaimThatLosesTheRaceForADeadThreadsCellTakesAnother() throws Exception {
    Cells table = new Cells(2);
    Thread dead = new Thread(() -> { });
    dead.start();
    dead.join();
    CountDownLatch aFoundIt = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    int[] aClaim = new int[1];
    Thread a = new Thread(() -> aClaim[0] = table.claim(Thread.currentThread()));
    table.hold(0, new WeakReference<>(dead) {
      private int readsByA;

      @Override
      public Thread get() {
        if (Thread.currentThread() == a && ++readsByA == 2) { // its second scan: looking for a free cell
          aFoundIt.countDown();
          try {
            goOn.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return super.get();
      }
    });
    a.start();
    assertThat(aFoundIt.await(60, TimeUnit.SECONDS)).isTrue();
    int mine = table.claim(Thread.currentThread());
    goOn.countDown();
    a.join();
    assertThat(mine).isZero();
    assertThat(aClaim[0]).as("A's cell").isEqualTo(1);
  }

  /**
   * A thread that owns a cell finds it again (once per engine it calls), and a new thread takes
   * over the cell of one that died. 500 short-lived threads, one after the other, each adding to a
   * node in the cell it claimed from a table of two: every one of them owns a cell, they all use
   * the first (its owner is always dead by then), and the node keeps one row holding all their
   * counts: a dead thread's counts stay, its cell is not lost to later threads.
   */
  @Test
  void shortLivedThreadsTakeOverTheCellsOfDeadOnes() throws Exception {
    Cells table = new Cells(2);
    StatisticNode node = new StatisticNode(2);
    int threads = 500;
    int adds = 1_000;
    Set<Integer> cellsUsed = new HashSet<>();
    for (int t = 0; t < threads; t++) {
      int[] claims = new int[2];
      Thread thread = new Thread(() -> {
        claims[0] = table.claim(Thread.currentThread());
        claims[1] = table.claim(Thread.currentThread());
        for (int i = 0; i < adds; i++) {
          node.onPass(0, 1, claims[0]);
        }
      });
      thread.start();
      thread.join();
      assertThat(claims[0]).as("thread %d's cell", t).isNotNegative().isEqualTo(claims[1]);
      cellsUsed.add(claims[0]);
    }
    assertThat(cellsUsed).containsExactly(0);
    assertThat(table.liveOwners()).isZero();
    assertThat(node.cellsInUse()).isEqualTo(1);
    assertThat(node.passedTotal()).isEqualTo((long) threads * adds);
  }

  /**
   * The same churn through an engine: 300 short-lived platform threads, one after the other, each
   * making 200 calls. Totals are exact after they died, the resource's cells stay within the bound,
   * and the JVM's owned cells are held by live threads only (never one per thread ever seen).
   */
  @Test
  void threadChurnThroughAnEngineKeepsTotalsExactAndCellsBounded() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("r", 2e9))).build();
    int threads = 300;
    int calls = 200;
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < calls; i++) {
          weir.entry("r", EntryType.IN).close();
        }
      });
      thread.start();
      thread.join();
    }
    ResourceNode node = (ResourceNode) weir.statistics("r");
    assertThat(node.totalPassed()).isEqualTo((long) threads * calls);
    assertThat(node.totalSucceeded()).isEqualTo((long) threads * calls);
    assertThat(inbound(weir).passedTotal()).isEqualTo((long) threads * calls);
    assertThat(node.cellsInUse()).isBetween(1, Cells.COUNT);
    assertThat(Cells.OWNERS.liveOwners()).isLessThanOrEqualTo(Cells.OWNED);
  }

  /**
   * The cell count stays at its bound with more live threads than cells: 4 x {@link Cells#COUNT}
   * platform threads, all alive at once, each with a call in flight on one resource.
   */
  @Test
  void cellsStayAtTheBoundWithManyLiveThreads() throws Exception {
    Weir weir = Weir.builder().build();
    int threads = 4 * Cells.COUNT;
    CyclicBarrier allInside = new CyclicBarrier(threads);
    runAll(threads, () -> {
      try (Entry entry = weir.entry("r", EntryType.IN)) {
        allInside.await();
      }
    });
    ResourceNode node = (ResourceNode) weir.statistics("r");
    assertThat(node.totalPassed()).isEqualTo(threads);
    assertThat(node.cellsInUse()).isLessThanOrEqualTo(Cells.COUNT);
    assertThat(inbound(weir).cellsInUse()).isLessThanOrEqualTo(Cells.COUNT);
    assertThat(Cells.OWNERS.liveOwners()).isLessThanOrEqualTo(Cells.OWNED);
  }

  /**
   * A call opened on one thread and closed on another is counted in the closing thread's shared
   * cell, never in the opener's own: the opener keeps counting in its cell meanwhile, plainly, and
   * a second writer there would lose counts. The opener takes asynchronous entries and hands them
   * to a closer, and makes four calls of its own after each.
   */
  @Test
  void aCallClosedOnAnotherThreadIsNotCountedInTheOpenersCell() throws Exception {
    Weir weir = Weir.builder().build();
    int handed = 100_000;
    BlockingQueue<Entry> toClose = new ArrayBlockingQueue<>(1_024);
    boolean[] openerOwnsACell = new boolean[1];
    AtomicInteger role = new AtomicInteger();
    runAll(2, () -> {
      if (role.getAndIncrement() == 0) { // the opener
        openerOwnsACell[0] = Cells.OWNERS.claim(Thread.currentThread()) >= 0;
        for (int i = 0; i < handed; i++) {
          toClose.put(weir.asyncEntry("r", EntryType.OUT, 1));
          for (int own = 0; own < 4; own++) {
            weir.entry("r").close();
          }
        }
      } else { // the closer
        List<Entry> batch = new ArrayList<>();
        for (int done = 0; done < handed; done += batch.size()) {
          batch.clear();
          batch.add(toClose.take());
          toClose.drainTo(batch);
          batch.forEach(Entry::close);
        }
      }
    });
    ResourceNode node = (ResourceNode) weir.statistics("r");
    assertThat(node.totalPassed()).isEqualTo(5L * handed);
    assertThat(node.totalSucceeded()).isEqualTo(5L * handed);
    assertThat(node.activeCalls()).isZero();
    assumeTrue(openerOwnsACell[0], "every owned cell was held by a live thread of another test: the opener"
        + " counted in a shared cell, where a second writer is safe anyway");
  }

  /**
   * The same, step by step: a thread that owns a cell opens an asynchronous call and makes one of
   * its own, and dies; this thread closes the asynchronous call. The owner's cell holds its one
   * completion, this thread's shared cell the other.
   */
  @Test
  void aCallClosedOnAnotherThreadIsCountedInTheClosersSharedCell() throws Exception {
    Weir weir = Weir.builder().build();
    Entry[] opened = new Entry[1];
    int[] openerCell = new int[1];
    Thread opener = new Thread(() -> {
      opened[0] = weir.asyncEntry("r", EntryType.OUT, 1);
      weir.entry("r").close();
      openerCell[0] = Cells.OWNERS.claim(Thread.currentThread()); // the cell its stack took, if it owns one
    });
    opener.start();
    opener.join();
    assumeTrue(openerCell[0] >= 0, "every owned cell was held by a live thread of another test");
    opened[0].close();
    ResourceNode node = (ResourceNode) weir.statistics("r");
    assertThat(node.inCell(openerCell[0], Cells.PASSED)).isEqualTo(2);
    assertThat(node.inCell(openerCell[0], Cells.SUCCEEDED)).as("the opener's own cell").isEqualTo(1);
    assertThat(node.inCell(Cells.shared(Thread.currentThread()), Cells.SUCCEEDED)).as("the closer's shared cell")
        .isEqualTo(1);
    assertThat(node.totalSucceeded()).isEqualTo(2);
  }

  /**
   * A reset writes no cell (an owned cell keeps its one writer): it records the sums, which
   * readers subtract; the cell itself keeps counting from where it was.
   */
  @Test
  void aResetRecordsTheSumsAndWritesNoCell() {
    StatisticNode node = new StatisticNode(2);
    int cell = 0; // an owned cell, written here as its owner would
    node.onPass(0, 5, cell);
    node.onBlock(0, 2, RuleKind.FLOW, cell);
    node.onComplete(0, 7, 5, false, cell);
    node.reset();
    assertThat(node.passedTotal()).isZero();
    assertThat(node.blockedTotal()).isZero();
    assertThat(node.succeededTotal()).isZero();
    assertThat(node.rtNanosTotal()).isZero();
    node.onPass(0, 3, cell);
    node.onBlock(0, 1, RuleKind.DEGRADE, cell);
    assertThat(node.passedTotal()).isEqualTo(3);
    assertThat(node.blockedTotal()).isEqualTo(1);
    assertThat(node.blockedBy(RuleKind.DEGRADE)).isEqualTo(1);
    assertThat(node.blockedBy(RuleKind.FLOW)).isZero();
    assertThat(node.activeCalls()).isEqualTo(3);
    assertThat(node.inCell(cell, Cells.PASSED)).as("the cell itself").isEqualTo(8);
  }

  /** Starts {@code threads} platform threads running {@code body}, joins them, and rethrows the first failure. */
  static void runAll(int threads, ThrowingRunnable body) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
          body.run();
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      thread.start();
      started.add(thread);
    }
    start.countDown();
    for (Thread thread : started) {
      thread.join();
    }
    if (!failures.isEmpty()) {
      AssertionError error = new AssertionError("a thread failed", failures.peek());
      failures.stream().skip(1).forEach(error::addSuppressed);
      throw error;
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** The engine's statistics of inbound calls, which system rules read. */
  static StatisticNode inbound(Weir weir) {
    try {
      java.lang.reflect.Field field = Weir.class.getDeclaredField("engine");
      field.setAccessible(true);
      return ((Engine) field.get(weir)).system.inbound;
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}

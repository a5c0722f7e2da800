package dev.weir.internal.limit;

import dev.weir.Criticality;
import dev.weir.internal.time.EngineClock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The calls waiting for a place under a {@code threads} rule with a {@code max-queueing-time}: one
 * first-in-first-out queue per {@link Criticality}, the more critical served first. A freed place
 * is handed to the waiter at the head ({@link #handOff}), which then holds it: a call arriving while
 * others wait never takes a place ahead of them.
 *
 * <h2>Why no place stays free while a call waits</h2>
 * A waiter joins under the lock: it raises {@link #size} (a volatile write), then hands off any free
 * place, reading the calls inside. A releasing call lowers the calls inside (a volatile
 * read-modify-write), then reads {@link #size}. In the one total order of these volatile accesses
 * either the releaser reads a size that counts the waiter, and hands the place off itself, or the
 * waiter's hand-off reads the lowered count and takes the place. Both hand-offs run under the lock,
 * so a place is handed to exactly one waiter.
 *
 * <h2>Bounds</h2>
 * <ul>
 *   <li>Never more than the limit inside: a hand-off takes a place by the same CAS below the limit
 *       as an admission.
 *   <li>No waiter admitted after its deadline (the call's start reading plus
 *       {@code max-queueing-time}): a hand-off reads the engine's precise clock once and skips, and
 *       gives up, every waiter whose deadline has passed; a waiter whose own deadline passes leaves
 *       the queue under the lock, unless a hand-off granted it first, before its deadline. A start
 *       reading older than the present only makes the deadline earlier.
 *   <li>At most {@code max-queueing-count} waiting: a call that finds the queue that long is refused
 *       at once. Every waiter is one small node; removal is O(1) (the queues are linked both ways).
 *   <li>A thread that must never block ({@link NonBlockingThreads}: an event loop) never waits: its
 *       call is refused at once, as without a {@code max-queueing-time}.
 *   <li>A wait ends: at a hand-off, at its deadline, or when its thread is interrupted (then it is
 *       refused, and the interrupt is kept). A waiting thread parks in slices of at most
 *       {@link #SLICE_NANOS} and reads the engine clock after each, so the deadline holds on a
 *       clock a test drives as well. It parks with {@link LockSupport}, never inside a
 *       {@code synchronized} block: a waiting virtual thread leaves its carrier free.
 * </ul>
 */
final class Waiters {

  /** The longest a waiting thread parks before it looks at the engine clock again. */
  static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private static final int WAITING = 0;
  private static final int GRANTED = 1;
  private static final int GIVEN_UP = 2;

  static final class Node {
    final Thread thread;
    final long deadline;
    final int rank;
    Node prev;
    Node next;
    volatile int state = WAITING;

    Node(Thread thread, long deadline, int rank) {
      this.thread = thread;
      this.deadline = deadline;
      this.rank = rank;
    }
  }

  private final EngineClock clock;
  private final ReentrantLock lock = new ReentrantLock();
  /** Heads and tails per criticality, index {@link Criticality#ordinal()}: 0 is the most critical. */
  private final Node[] heads = new Node[Criticality.values().length];
  private final Node[] tails = new Node[Criticality.values().length];
  private volatile int size;

  Waiters(EngineClock clock) {
    this.clock = clock;
  }

  int size() {
    return size;
  }

  /**
   * Waits for a place under {@code limiter} until {@code deadline} (engine time); true when one was
   * handed to this call (it then holds it), false when refused: the queue held {@code maxWaiting}
   * calls, the deadline passed, or the thread was interrupted.
   */
  boolean await(ConcurrencyLimiter limiter, Criticality criticality, long deadline, int maxWaiting) {
    if (NonBlockingThreads.current()) {
      return false; // an event loop parked for the wait would stall every connection it serves
    }
    Node node = new Node(Thread.currentThread(), deadline, criticality.ordinal());
    lock.lock();
    try {
      if (size == 0 && limiter.tryTake()) {
        return true; // a place came free since the caller looked, and nobody waits ahead
      }
      if (size >= maxWaiting) {
        return false;
      }
      append(node);
      size = size + 1; // under the lock: the only writers hold it
      handOffLocked(limiter); // see the class comment: a place freed before the size was raised
    } finally {
      lock.unlock();
    }
    while (true) {
      int state = node.state;
      if (state != WAITING) {
        return state == GRANTED;
      }
      long left = deadline - clock.readFresh();
      boolean interrupted = Thread.interrupted();
      if (left <= 0 || interrupted) {
        boolean granted = giveUp(node);
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        return granted;
      }
      LockSupport.parkNanos(this, Math.min(left, SLICE_NANOS));
    }
  }

  /** Hands free places under {@code limiter} to waiters, first to the most critical, oldest. */
  void handOff(ConcurrencyLimiter limiter) {
    lock.lock();
    try {
      handOffLocked(limiter);
    } finally {
      lock.unlock();
    }
  }

  private void handOffLocked(ConcurrencyLimiter limiter) {
    long now = 0;
    boolean read = false;
    while (size > 0) {
      Node head = first();
      if (!read) {
        now = clock.readFresh(); // once per hand-off, and only while someone waits
        read = true;
      }
      if (now - head.deadline > 0) {
        finish(head, GIVEN_UP); // too late: it would be admitted after its deadline
        continue;
      }
      if (!limiter.tryTake()) {
        return;
      }
      finish(head, GRANTED);
    }
  }

  /** The waiter leaves at its deadline; true when a hand-off granted it a place first. */
  private boolean giveUp(Node node) {
    lock.lock();
    try {
      if (node.state == WAITING) {
        remove(node);
        size = size - 1;
        node.state = GIVEN_UP;
      }
      return node.state == GRANTED;
    } finally {
      lock.unlock();
    }
  }

  private void finish(Node node, int state) {
    remove(node);
    size = size - 1;
    node.state = state;
    LockSupport.unpark(node.thread);
  }

  private Node first() {
    for (Node head : heads) {
      if (head != null) {
        return head;
      }
    }
    throw new IllegalStateException("size " + size + " but no waiter");
  }

  private void append(Node node) {
    Node tail = tails[node.rank];
    node.prev = tail;
    if (tail == null) {
      heads[node.rank] = node;
    } else {
      tail.next = node;
    }
    tails[node.rank] = node;
  }

  private void remove(Node node) {
    if (node.prev == null) {
      heads[node.rank] = node.next;
    } else {
      node.prev.next = node.next;
    }
    if (node.next == null) {
      tails[node.rank] = node.prev;
    } else {
      node.next.prev = node.prev;
    }
    node.prev = null;
    node.next = null;
  }
}

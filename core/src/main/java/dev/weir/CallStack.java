package dev.weir;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One thread's open calls in one engine, and the context it runs in. Owned by that thread; other
 * threads only ever close a call through {@link Frame#finish(long)}, which is safe against the owner.
 *
 * <p>Frames are pooled here: {@code frames[i]} is reused for the i-th nested call once it is free.
 * A frame closed by another thread stays on the stack until it reaches the top, and is then popped
 * by the owner.
 *
 * <p>A stack is the value of its engine's thread-local, so it must not reach the engine (the
 * thread-local's key): it holds the engine's clock only, and its frames drop their rules and nodes
 * when they are released. A discarded engine is then collectable although every thread that used
 * it still holds its stack.
 */
final class CallStack {

  /**
   * The engine's thread-local of stacks. Its initial value captures the clock only, not the engine:
   * a stack must not reach the engine that owns the thread-local (see the class comment).
   */
  static final class PerThread extends ThreadLocal<CallStack> {
    private final EngineClock clock;

    PerThread(EngineClock clock) {
      this.clock = clock;
    }

    @Override
    protected CallStack initialValue() {
      return new CallStack(clock);
    }

    /** This thread's stack; a method of its own so that callers need no cast. */
    CallStack current() {
      return get();
    }
  }

  final EngineClock clock;
  private final Thread owner = Thread.currentThread();
  private Frame[] frames = new Frame[4];
  private int depth;
  String contextName = Weir.DEFAULT_CONTEXT;
  String origin = "";
  private @Nullable BlockException refusal;

  CallStack(EngineClock clock) {
    this.clock = clock;
  }

  /**
   * Opens a call of {@code resource} on this thread and runs its chain: returns the admitted frame,
   * or null with the refusal kept for {@link #takeRefusal}. A call of a resource beyond the engine's
   * bound (no node in {@code nodes}) is admitted unchecked. Exception-safe: when a slot throws, the chain
   * has undone what the call took, the frame is popped here, and the exception goes on.
   */
  @Nullable Frame enter(String resource, EntryType type, int acquireCount, Object @Nullable [] args,
      NodeRegistry nodes) {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(type, "type");
    if (acquireCount < 1) {
      throw new IllegalArgumentException("acquireCount must be at least 1, was " + acquireCount);
    }
    ResourceNode node = nodes.forCall(resource);
    Frame frame = push(resource, node, type, acquireCount, args, clock.read());
    if (node == null) {
      return frame;
    }
    ResourceRules rules = node.rules; // read once: every slot decides against the same rules
    frame.rules = rules;
    BlockException refusal;
    try {
      refusal = rules.chain.enter(frame);
    } catch (RuntimeException | Error e) {
      discard(frame);
      throw e;
    }
    if (refusal != null) {
      discard(frame);
      this.refusal = refusal;
      return null;
    }
    return frame;
  }

  /**
   * Enters a call ({@link #enter}) and returns its handle, or throws its refusal. At most 35 bytes
   * of bytecode, so that it is inlined into its callers: see the comment above {@code Weir.entry}.
   */
  Entry entry(String resource, EntryType type, int acquireCount, Object @Nullable [] args, NodeRegistry nodes) {
    Frame frame = enter(resource, type, acquireCount, args, nodes);
    if (frame != null) {
      return new Entry(frame);
    }
    throw takeRefusal();
  }

  private Frame push(String resource, @Nullable ResourceNode node, EntryType type, int acquireCount,
      Object @Nullable [] args, long now) {
    popFreed();
    if (depth == frames.length) {
      frames = Arrays.copyOf(frames, depth * 2);
    }
    Frame entry = frames[depth];
    if (entry == null || !entry.isFree()) {
      entry = new Frame(this);
      frames[depth] = entry;
    }
    entry.depth = depth++;
    entry.open(resource, node, type, acquireCount, args, now);
    return entry;
  }

  /** Takes back the top frame of a call that did not start. */
  private void discard(Frame entry) {
    entry.release();
    depth = entry.depth;
  }

  BlockException takeRefusal() {
    BlockException taken = refusal;
    refusal = null;
    return taken;
  }

  /** Closes {@code call} of {@code entry}; a no-op when that call is closed already. */
  void close(Frame entry, long call) {
    if (Thread.currentThread() != owner) {
      entry.finish(call);
      return;
    }
    if (!entry.isOpen(call)) {
      return;
    }
    int at = entry.depth;
    if (at == depth - 1) {
      entry.finish(call);
      depth = at;
      popFreed();
      return;
    }
    if (at >= depth || frames[at] != entry) {
      entry.finish(call); // not on this stack any more; still complete it
      return;
    }
    String openedLater = null;
    for (int i = depth - 1; i > at; i--) {
      if (frames[i].finish() && openedLater == null) {
        openedLater = frames[i].resource;
      }
    }
    entry.finish(call);
    depth = at;
    popFreed();
    if (openedLater != null) {
      throw new IllegalStateException("Entry of '" + entry.resource + "' closed while the entry of '" + openedLater
          + "', opened after it on the same thread, was still open; both are closed now. Close entries in the"
          + " reverse order of opening (try-with-resources does).");
    }
  }

  private void popFreed() {
    while (depth > 0 && frames[depth - 1].isFree()) {
      depth--;
    }
  }
}

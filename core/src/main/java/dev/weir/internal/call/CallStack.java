package dev.weir.internal.call;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.ParamFlowException;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.Rule;
import dev.weir.rule.RuleKind;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One thread's open calls in one engine, and the context it runs in. Owned by that thread; other
 * threads only ever close a call through {@link Call#finish(long, boolean)}, which is safe against the
 * owner.
 *
 * <p>Frames are pooled here: {@code frames[i]} is reused for the i-th nested call once it is free.
 * A frame closed by another thread stays on the stack until it reaches the top, and is then popped
 * by the owner.
 *
 * <p>A stack is the value of its engine's thread-local, so it must not reach the engine (the
 * thread-local's key): it holds the engine's clock only, and its frames drop their rules and nodes
 * when they are released. A discarded engine is then collectable although every thread that used
 * it still holds its stack.
 *
 * <h2>Virtual threads</h2>
 * A virtual thread usually makes a few calls and ends, and there may be hundreds of thousands of
 * them alive, each parked in its own request. Pooling frames for each would keep them per live
 * thread, so a virtual thread's stack is <em>transient</em>: it starts with room for one frame and
 * takes itself out of the thread-local as soon as the thread has no open call and no context
 * entered ({@link #leaveIfIdle}). It then costs its allocation during the call and nothing after.
 * Such a stack refers to its thread-local (to remove itself), which keeps the engine's clock
 * reachable from a virtual thread that is still alive with an open call; a platform thread's stack
 * never does.
 *
 * <h2>Detached frames</h2>
 * An asynchronous call ({@link Weir#asyncEntry}) completes on whatever thread its work completes
 * on, in any order with the calls of the thread that started it, so its frame is not pushed here:
 * it is a frame of its own ({@link Call#DETACHED} depth), never pooled, closed by whichever thread
 * completes it. It takes the stack's context and clock when it opens and nothing else.
 */
public final class CallStack {

  private static final @Nullable MethodHandle IS_VIRTUAL = isVirtualHandle();

  private static @Nullable MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // before JDK 21 there are no virtual threads
    }
  }

  /** Whether {@code thread} is a virtual thread (JDK 21+); false on older JDKs. */
  static boolean isVirtual(Thread thread) {
    if (IS_VIRTUAL == null) {
      return false;
    }
    try {
      return (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (Throwable e) {
      return false;
    }
  }

  /**
   * The engine's thread-local of stacks. Its initial value captures the clock only, not the engine:
   * a stack must not reach the engine that owns the thread-local (see the class comment).
   */
  public static final class PerThread extends ThreadLocal<CallStack> {
    private final EngineClock clock;

    public PerThread(EngineClock clock) {
      this.clock = clock;
    }

    @Override
    protected CallStack initialValue() {
      return isVirtual(Thread.currentThread()) ? new CallStack(clock, this) : new CallStack(clock, null);
    }

    /** This thread's stack; a method of its own so that callers need no cast. */
    public CallStack current() {
      return get();
    }
  }

  final EngineClock clock;
  final Thread owner = Thread.currentThread();
  /** The statistics cell this thread counts in: its own, or a shared one for a virtual thread (see {@link Cells}). */
  final int cell;
  /** The thread-local this stack removes itself from when idle; null for a platform thread's. */
  private final @Nullable PerThread transientIn;
  private Call[] frames;
  /** The calls this thread entered, wrapping; how the clock spaces its fresh readings ({@link EngineClock#read(int)}). */
  private int calls;
  private int depth;
  public String contextName = Call.DEFAULT_CONTEXT;
  public String origin = "";
  /**
   * The criticality the entered contexts gave the thread's calls, or null when none gave one: then
   * each call takes the one its caller passes (an annotation's), else {@link Criticality#CRITICAL}.
   */
  public @Nullable Criticality criticality;
  /** The refusal of this thread's last refused call, until taken: what its frame recorded. */
  private @Nullable RuleKind refusedKind;
  private @Nullable Rule refusedBy;
  private long refusedRetryAfterNanos;
  private boolean refusedMissingKey;
  private String refusedResource = "";
  private @Nullable BlockException refusal;

  /**
   * Creates the stack of the current thread.
   *
   * @param transientIn for a virtual thread, the thread-local to leave when idle; else null
   */
  CallStack(EngineClock clock, @Nullable PerThread transientIn) {
    this.clock = clock;
    this.transientIn = transientIn;
    this.cell = Cells.of(owner, transientIn != null);
    this.frames = new Call[transientIn == null ? 4 : 1];
  }

  /**
   * Opens a call of {@code resource} on this thread and runs its chain: returns the admitted frame,
   * or null with the refusal kept for {@link #takeRefusal}. {@code resolved} is the resource's node
   * when the caller holds it (a {@code Resource} handle), else null and the node is looked up in
   * {@code nodes}. A call of a resource beyond the engine's bound (no node) is admitted unchecked.
   * Exception-safe: when a slot throws, the chain has undone what the call took, the frame is popped
   * here, and the exception goes on.
   *
   * <p>The rules are read before the clock: they say which clock the call reads
   * ({@link ResourceRules#preciseTime}), and every slot then decides against the same rules.
   */
  @Nullable Call enter(@Nullable ResourceNode resolved, String resource, EntryType type, int acquireCount,
      Object @Nullable [] args, NodeRegistry nodes, Criticality fallback) {
    checkCall(resource, type, acquireCount);
    ResourceNode node = resolved != null ? resolved : nodes.forCall(resource);
    ResourceRules rules = node == null ? ResourceRules.NONE : node.rules;
    Call call = push(resource, node, type, acquireCount, args, rules.preciseTime ? clock.readFresh() : clock.read(++calls));
    call.criticality = criticality != null ? criticality : fallback;
    return node == null ? call : run(call, rules);
  }

  private static void checkCall(String resource, EntryType type, int acquireCount) {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(type, "type");
    if (acquireCount < 1) {
      throw new IllegalArgumentException("acquireCount must be at least 1, was " + acquireCount);
    }
  }

  /**
   * Opens an asynchronous call of {@code resource} in a {@linkplain Call#DETACHED detached} frame
   * and runs its chain; as {@link #enter} otherwise.
   */
  @Nullable Call enterDetached(@Nullable ResourceNode resolved, String resource, EntryType type, int acquireCount,
      Object @Nullable [] args, NodeRegistry nodes, Criticality fallback) {
    checkCall(resource, type, acquireCount);
    ResourceNode node = resolved != null ? resolved : nodes.forCall(resource);
    ResourceRules rules = node == null ? ResourceRules.NONE : node.rules;
    Call call = new Call(this);
    call.depth = Call.DETACHED;
    call.open(resource, node, type, acquireCount, args, rules.preciseTime ? clock.readFresh() : clock.read(++calls));
    call.criticality = criticality != null ? criticality : fallback;
    return node == null ? call : run(call, rules);
  }

  /** Runs the chain of an opened frame; returns it when admitted, else null with the refusal kept. */
  private @Nullable Call run(Call call, ResourceRules rules) {
    call.rules = rules; // read once, before the clock: every slot decides against the same rules
    boolean admitted;
    try {
      admitted = rules.chain.enter(call);
    } catch (RuntimeException | Error e) {
      discard(call);
      throw e;
    }
    if (!admitted) {
      keepRefusal(call);
      discard(call);
      return null;
    }
    return call;
  }

  /** Keeps what the refused call's frame recorded, before the frame is released. */
  private void keepRefusal(Call call) {
    refusedKind = call.refusedKind();
    refusedBy = call.refusedBy();
    refusedRetryAfterNanos = call.refusedRetryAfterNanos();
    refusedMissingKey = call.refusedMissingKey();
    refusedResource = call.resource;
    refusal = call.givenRefusal();
  }

  /** Enters an asynchronous call ({@link #enterDetached}) and returns its handle, or throws its refusal. */
  public Entry asyncEntry(@Nullable ResourceNode resolved, String resource, EntryType type, int acquireCount,
      Object @Nullable [] args, NodeRegistry nodes, Criticality fallback) {
    Call call;
    try {
      call = enterDetached(resolved, resource, type, acquireCount, args, nodes, fallback);
    } finally {
      leaveIfIdle(); // a detached frame is not on this stack: a virtual thread keeps nothing after it
    }
    if (call != null) {
      return call;
    }
    throw takeRefusal();
  }

  /**
   * Enters a call ({@link #enter}) and returns its handle, or throws its refusal. At most 35 bytes
   * of bytecode, so that it is inlined into its callers: see the comment above {@code Weir.entry}.
   */
  public Entry entry(@Nullable ResourceNode resolved, String resource, EntryType type, int acquireCount,
      Object @Nullable [] args, NodeRegistry nodes, Criticality fallback) {
    Call call = enter(resolved, resource, type, acquireCount, args, nodes, fallback);
    if (call != null) {
      return call;
    }
    throw takeRefusal();
  }

  /** Enters a call ({@link #enter}) and returns its handle, or null when refused; the refusal makes no exception. */
  public @Nullable Entry tryEntry(@Nullable ResourceNode resolved, String resource, EntryType type, int acquireCount,
      Object @Nullable [] args, NodeRegistry nodes, Criticality fallback) {
    Call call = enter(resolved, resource, type, acquireCount, args, nodes, fallback);
    if (call != null) {
      return call;
    }
    forgetRefusal();
    return null;
  }

  private Call push(String resource, @Nullable ResourceNode node, EntryType type, int acquireCount,
      Object @Nullable [] args, long now) {
    popFreed();
    if (depth == frames.length) {
      frames = Arrays.copyOf(frames, depth * 2);
    }
    Call call = frames[depth];
    if (call == null || !call.isFree()) {
      call = new Call(this);
      frames[depth] = call;
    }
    call.depth = depth++;
    call.open(resource, node, type, acquireCount, args, now);
    return call;
  }

  /** Takes back the frame of a call that did not start (the top one, unless detached). */
  private void discard(Call call) {
    call.release();
    if (call.depth != Call.DETACHED) {
      depth = call.depth;
      leaveIfIdle();
    }
  }

  /**
   * A transient stack (a virtual thread's) leaves its thread-local once the thread has no open
   * call and no context entered, so that the thread keeps nothing of the engine between calls. Its
   * frames may still be named by entries, which then find them closed.
   */
  public void leaveIfIdle() {
    if (transientIn != null && depth == 0 && contextName.equals(Call.DEFAULT_CONTEXT) && origin.isEmpty()
        && criticality == null) {
      transientIn.remove();
    }
  }

  /** The exception of the last refusal, made now unless a custom slot gave it; the refusal is forgotten. */
  BlockException takeRefusal() {
    BlockException taken = refusal;
    if (taken == null) {
      taken = refusedMissingKey ? new ParamFlowException(refusedResource, refusedBy, 0, true)
          : BlockException.of(Objects.requireNonNull(refusedKind), refusedResource, refusedBy, refusedRetryAfterNanos);
    }
    forgetRefusal();
    return taken;
  }

  /** Forgets the last refusal without making its exception: {@link Weir#tryEntry}'s refusal allocates nothing. */
  void forgetRefusal() {
    refusedKind = null;
    refusedBy = null;
    refusedMissingKey = false;
    refusedResource = "";
    refusal = null;
  }

  /**
   * Closes call {@code generation} of {@code entry}, as {@linkplain Entry#cancel() cancelled} when
   * {@code cancelled}; a no-op when that call is closed already.
   */
  void close(Call call, long generation, boolean cancelled) {
    if (call.depth == Call.DETACHED || Thread.currentThread() != owner) {
      call.finish(generation, cancelled);
      return;
    }
    if (!call.isOpen(generation)) {
      return;
    }
    int at = call.depth;
    if (at == depth - 1) {
      call.finish(generation, cancelled);
      depth = at;
      popFreed();
      leaveIfIdle();
      return;
    }
    if (at >= depth || frames[at] != call) {
      call.finish(generation, cancelled); // not on this stack any more; still complete it
      return;
    }
    String openedLater = null;
    for (int i = depth - 1; i > at; i--) {
      if (frames[i].finish() && openedLater == null) {
        openedLater = frames[i].resource;
      }
    }
    call.finish(generation, cancelled);
    depth = at;
    popFreed();
    leaveIfIdle();
    if (openedLater != null) {
      throw new IllegalStateException("Entry of '" + call.resource + "' closed while the entry of '" + openedLater
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

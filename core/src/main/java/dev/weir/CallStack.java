package dev.weir;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One thread's open entries in one engine, and the context it runs in. Owned by that thread; other
 * threads only ever close an entry through {@link Entry#finish()}, which is safe against the owner.
 *
 * <p>Entry objects are pooled here: {@code frames[i]} is reused for the i-th nested call once it is
 * free. A frame closed by another thread stays on the stack until it reaches the top, and is then
 * popped by the owner.
 */
final class CallStack {

  final Weir engine;
  private final Thread owner = Thread.currentThread();
  private Entry[] frames = new Entry[4];
  private int depth;
  String contextName = Weir.DEFAULT_CONTEXT;
  String origin = "";
  private @Nullable BlockException refusal;

  CallStack(Weir engine) {
    this.engine = engine;
  }

  Entry push(String resource, @Nullable ResourceNode node, EntryType type, int acquireCount, Object @Nullable [] args,
      long now) {
    popFreed();
    if (depth == frames.length) {
      frames = Arrays.copyOf(frames, depth * 2);
    }
    Entry entry = frames[depth];
    if (entry == null || !entry.isFree()) {
      entry = new Entry(this);
      frames[depth] = entry;
    }
    entry.depth = depth++;
    entry.open(resource, node, type, acquireCount, args, now);
    return entry;
  }

  /** Takes back the top entry of a refused call, and keeps the refusal for {@link #takeRefusal}. */
  void discard(Entry entry, BlockException refusal) {
    entry.release();
    depth = entry.depth;
    this.refusal = refusal;
  }

  BlockException takeRefusal() {
    BlockException taken = refusal;
    refusal = null;
    return taken;
  }

  void close(Entry entry) {
    if (Thread.currentThread() != owner) {
      entry.finish();
      return;
    }
    if (!entry.isOpen()) {
      return;
    }
    int at = entry.depth;
    if (at == depth - 1) {
      entry.finish();
      depth = at;
      popFreed();
      return;
    }
    if (at >= depth || frames[at] != entry) {
      entry.finish(); // not on this stack any more; still complete it
      return;
    }
    String openedLater = null;
    for (int i = depth - 1; i > at; i--) {
      if (frames[i].finish() && openedLater == null) {
        openedLater = frames[i].resource;
      }
    }
    entry.finish();
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

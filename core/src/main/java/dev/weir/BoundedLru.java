package dev.weir;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A map that keeps at most about {@code capacity} entries, dropping the least recently used. Split
 * into 16 segments, each an access-ordered {@link LinkedHashMap} under its own lock, so that
 * threads working on different keys rarely meet; the bound and the recency are per segment, so the
 * total stays within {@code capacity} and eviction is close to, not exactly, global LRU order.
 */
final class BoundedLru<K, V> {

  private static final int SEGMENTS = 16;

  private final Segment<K, V>[] segments;

  @SuppressWarnings("unchecked")
  BoundedLru(int capacity) {
    int perSegment = Math.max(1, capacity / SEGMENTS);
    segments = new Segment[SEGMENTS];
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment<>(perSegment);
    }
  }

  /** Returns the value of {@code key}, creating it with {@code create} when absent. */
  V get(K key, Function<? super K, ? extends V> create) {
    Segment<K, V> segment = segmentOf(key);
    synchronized (segment) {
      V value = segment.get(key);
      if (value == null) {
        value = create.apply(key);
        segment.put(key, value);
      }
      return value;
    }
  }

  /** Returns the value of {@code key} without creating one, or null; a found key counts as used. */
  @Nullable V peek(K key) {
    Segment<K, V> segment = segmentOf(key);
    synchronized (segment) {
      return segment.getOrDefault(key, null);
    }
  }

  private Segment<K, V> segmentOf(K key) {
    int hash = key.hashCode();
    return segments[(hash ^ (hash >>> 16)) & (SEGMENTS - 1)];
  }

  int size() {
    int size = 0;
    for (Segment<K, V> segment : segments) {
      synchronized (segment) {
        size += segment.size();
      }
    }
    return size;
  }

  private static final class Segment<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;
    private final int capacity;

    Segment(int capacity) {
      super(16, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
      return size() > capacity;
    }
  }
}

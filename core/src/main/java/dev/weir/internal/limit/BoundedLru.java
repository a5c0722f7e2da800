package dev.weir.internal.limit;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A map that keeps at most about {@code capacity} entries and {@code maxBytes} of estimated heap,
 * dropping the least recently used. Split into 16 segments, each an access-ordered
 * {@link LinkedHashMap} under its own lock, so that threads working on different keys rarely meet;
 * the bounds and the recency are per segment (each holds a sixteenth of both), so the totals stay
 * within {@code capacity} and {@code maxBytes}, and eviction is close to, not exactly, global LRU
 * order. An entry's bytes are what {@code weigher} estimates for its key when it is added.
 *
 * <p>What pushing an entry out costs: an entry leaves when a sixteenth of the capacity (or of the
 * byte budget) of newer entries has come into its segment without it being used meanwhile. A key
 * that keeps being used is never evicted. Keys land in a segment by their hash, which a caller who
 * chooses keys can aim; so the cost to evict one idle key is {@code capacity / 16} new keys aimed at
 * its segment, or about {@code capacity} keys not aimed.
 */
public final class BoundedLru<K, V> {

  private static final int SEGMENTS = 16;

  private final Segment<K, V>[] segments;

  @SuppressWarnings("unchecked")
  public BoundedLru(int capacity, long maxBytes, ToLongFunction<? super K> weigher) {
    int perSegment = Math.max(1, capacity / SEGMENTS);
    long bytesPerSegment = Math.max(1, maxBytes / SEGMENTS);
    segments = new Segment[SEGMENTS];
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment<>(perSegment, bytesPerSegment, weigher);
    }
  }

  /** Returns the value of {@code key}, creating it with {@code create} when absent. */
  public V get(K key, Function<? super K, ? extends V> create) {
    Segment<K, V> segment = segmentOf(key);
    synchronized (segment) {
      V value = segment.map.get(key);
      if (value == null) {
        value = create.apply(key);
        segment.add(key, value);
      }
      return value;
    }
  }

  /** Returns the value of {@code key} without creating one, or null; a found key counts as used. */
  public @Nullable V peek(K key) {
    Segment<K, V> segment = segmentOf(key);
    synchronized (segment) {
      return segment.map.getOrDefault(key, null);
    }
  }

  /** Whether {@code key} has an entry; unlike {@link #peek}, it does not count as a use. */
  public boolean contains(K key) {
    Segment<K, V> segment = segmentOf(key);
    synchronized (segment) {
      return segment.map.containsKey(key);
    }
  }

  private Segment<K, V> segmentOf(K key) {
    int hash = key.hashCode();
    return segments[(hash ^ (hash >>> 16)) & (SEGMENTS - 1)];
  }

  public int size() {
    int size = 0;
    for (Segment<K, V> segment : segments) {
      synchronized (segment) {
        size += segment.map.size();
      }
    }
    return size;
  }

  /** The estimated bytes of every entry. */
  public long bytes() {
    long bytes = 0;
    for (Segment<K, V> segment : segments) {
      synchronized (segment) {
        bytes += segment.bytes;
      }
    }
    return bytes;
  }

  /** One segment: an access-ordered map and its estimated bytes. Guarded by the segment's monitor. */
  private static final class Segment<K, V> {
    final LinkedHashMap<K, V> map = new LinkedHashMap<>(16, 0.75f, true);
    private final int capacity;
    private final long maxBytes;
    private final ToLongFunction<? super K> weigher;
    long bytes;

    Segment(int capacity, long maxBytes, ToLongFunction<? super K> weigher) {
      this.capacity = capacity;
      this.maxBytes = maxBytes;
      this.weigher = weigher;
    }

    /**
     * Adds an absent key, then drops the eldest entries while over a bound; the entry just added
     * stays even when it alone is over the byte bound (a key is never refused a limiter).
     */
    void add(K key, V value) {
      map.put(key, value);
      bytes += weigher.applyAsLong(key);
      Iterator<Map.Entry<K, V>> eldest = map.entrySet().iterator();
      while ((map.size() > capacity || bytes > maxBytes) && map.size() > 1) {
        K evicted = eldest.next().getKey();
        eldest.remove();
        bytes -= weigher.applyAsLong(evicted);
      }
    }
  }
}

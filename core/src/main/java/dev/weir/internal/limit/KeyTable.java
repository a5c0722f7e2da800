package dev.weir.internal.limit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The per-key table of a hot-parameter rule: at most {@code capacity} entries and {@code maxBytes}
 * of estimated heap, evicting with the CLOCK algorithm (second chance). A key that is found costs a
 * {@link ConcurrentHashMap} lookup and, at most, one write of its entry's "used" flag: no lock, so
 * threads deciding different keys, or the same one, never wait for each other. Only a new key takes
 * the table's lock, to find it a place.
 *
 * <h2>Eviction</h2>
 * Entries sit in a ring; a hand sweeps it when a new key needs room. An entry used since the hand
 * last passed has its flag set: the hand clears it and moves on (its second chance); an entry whose
 * flag is clear is evicted, and the new key takes its place. So a key used at least once per turn of
 * the hand is never evicted, and an idle key leaves within two turns. The bytes of an entry are what
 * {@code weigher} estimates for its key when it is added; while the table is over its byte budget the
 * hand evicts more. A new entry starts with its flag clear: a key seen once is the first to go.
 *
 * <h2>What pushing a key out costs</h2>
 * The ring is one for all keys, so no key can be aimed at by its hash: to evict an idle key, a caller
 * must bring between one and two turns of the hand of new keys, that is {@code capacity} to
 * {@code 2 x capacity} (fewer only as the byte budget binds, for keys of many bytes); a key that
 * keeps coming is never evicted.
 *
 * <h2>Races</h2>
 * A lookup may find an entry while the hand evicts it: the call then counts on a limiter that the
 * table forgets at once, as if it had come just before the eviction (the key's state starts afresh
 * at its next call either way). The flag is a plain volatile boolean, set by readers only when
 * clear, so a key in steady use costs readers one volatile read. Every loop below ends: each turn of
 * the hand clears every flag it passes, so a second turn finds an entry to evict or a free place.
 */
public final class KeyTable<K, V> {

  private final ConcurrentHashMap<K, Node<K, V>> map;
  private final int capacity;
  private final long maxBytes;
  private final ToLongFunction<? super K> weigher;
  /** Guarded by this: the ring of entries (null where free), the hand, and the totals. */
  private final Node<K, V>[] ring;
  private int hand;
  private int count;
  private long bytes;

  @SuppressWarnings("unchecked")
  public KeyTable(int capacity, long maxBytes, ToLongFunction<? super K> weigher) {
    this.capacity = Math.max(1, capacity);
    this.maxBytes = Math.max(1, maxBytes);
    this.weigher = weigher;
    this.ring = new Node[this.capacity];
    this.map = new ConcurrentHashMap<>(Math.min(this.capacity, 1024));
  }

  /** Returns the value of {@code key}, creating it with {@code create} (under the table's lock) when absent. */
  public V get(K key, Function<? super K, ? extends V> create) {
    Node<K, V> node = map.get(key);
    if (node != null) {
      if (!node.used) {
        node.used = true;
      }
      return node.value;
    }
    return add(key, create);
  }

  /** Returns the value of {@code key} without creating one, or null; a found key counts as used. */
  public @Nullable V peek(K key) {
    Node<K, V> node = map.get(key);
    if (node == null) {
      return null;
    }
    node.used = true;
    return node.value;
  }

  /** Whether {@code key} has an entry; unlike {@link #peek}, it does not count as a use. */
  public boolean contains(K key) {
    return map.containsKey(key);
  }

  public synchronized int size() {
    return count;
  }

  /** The estimated bytes of every entry. */
  public synchronized long bytes() {
    return bytes;
  }

  private synchronized V add(K key, Function<? super K, ? extends V> create) {
    Node<K, V> raced = map.get(key);
    if (raced != null) {
      return raced.value;
    }
    Node<K, V> node = new Node<>(key, create.apply(key), weigher.applyAsLong(key));
    int place = place(node.bytes);
    ring[place] = node;
    count++;
    bytes += node.bytes;
    map.put(key, node);
    return node.value;
  }

  /**
   * Finds a place for an entry of {@code needed} bytes: sweeps the ring from the hand, clearing the
   * flags of used entries and evicting unused ones, until the table holds fewer than its capacity
   * and the bytes fit (an empty table takes any entry), and the hand is at a free place. At most
   * two turns plus one: the first clears every flag, the second evicts what it must.
   */
  private int place(long needed) {
    while (true) {
      Node<K, V> at = ring[hand];
      if (at == null) {
        if (count < capacity && (count == 0 || bytes + needed <= maxBytes)) {
          int free = hand;
          hand = next(hand);
          return free;
        }
        hand = next(hand);
      } else if (at.used) {
        at.used = false;
        hand = next(hand);
      } else {
        ring[hand] = null;
        map.remove(at.key, at);
        count--;
        bytes -= at.bytes;
      }
    }
  }

  private int next(int index) {
    return index + 1 == capacity ? 0 : index + 1;
  }

  /** An entry: its key, its value, its estimated bytes, and whether it was used since the hand last passed. */
  private static final class Node<K, V> {
    final K key;
    final V value;
    final long bytes;
    volatile boolean used;

    Node(K key, V value, long bytes) {
      this.key = key;
      this.value = value;
      this.bytes = bytes;
    }
  }
}

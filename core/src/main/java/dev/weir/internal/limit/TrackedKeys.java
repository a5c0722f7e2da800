package dev.weir.internal.limit;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.UUID;

/**
 * What the per-key table of a hot-parameter rule keeps of a key, and what that costs in bytes.
 *
 * <p>A key comes from a call: an argument, or what a key expression makes of the request, so its
 * size is the caller's choice. A string key longer than {@link #MAX_KEPT_CHARS} is kept as its
 * SHA-256 digest, a {@link Digest}: a huge key then costs the table as little as a short one.
 * Exception values are compacted the same way, so a long exception value still matches its key; a
 * cluster-mode key reaches the store compacted too ({@code ClusterKeys} names a digest apart from
 * every string).
 *
 * <p>Two keys share a bucket only when they are equal: {@link #compact} is injective.
 * <ul>
 *   <li>A key it keeps as it is (any key but a string over {@link #MAX_KEPT_CHARS}) is never equal
 *       to a {@link Digest}: a digest is a type of its own, not a string, which only this class
 *       makes, and no string, box, enum or UUID equals an object of another class. So a caller who
 *       sends the text a digest would have (before, {@code sha256:} and its base64url, the very
 *       string the table kept) sends a short string, kept as it is, in a bucket of its own.
 *   <li>Two digests are equal only when their strings' SHA-256 are: the digest is taken over the
 *       string's UTF-16 code units, two bytes each, so two different strings are two different byte
 *       sequences (UTF-8 would not do: it writes an unpaired surrogate, which a Java string may
 *       hold, as {@code ?}), and two different byte sequences with one SHA-256 are beyond reach.
 * </ul>
 * Ordinary keys pay nothing for this: a string of at most {@link #MAX_KEPT_CHARS} is kept as it
 * is, after one length check, as before; no prefix of any key is looked at.
 *
 * <p>{@link #bytes} is the table's estimate of one entry: a fixed part measured for the entry and
 * its limiter, plus the key: a string's characters (two bytes each, an upper bound), a digest's
 * {@value Digest#BYTES} bytes, a box's header, and {@link #OTHER_KEY_BYTES} for any other type, whose size the engine cannot know (keys
 * of your own types should be small values).
 */
public final class TrackedKeys {

  /** The one key all null keys of a {@code null-key: shared} rule count under; matches no exception value. */
  public static final Object NULL_KEY = new Object() {
    @Override
    public String toString() {
      return "<null key>";
    }
  };

  /** The longest string key kept as it is. */
  static final int MAX_KEPT_CHARS = 128;

  /**
   * The estimated heap of one table entry without its key: the map entry, the limiter and its
   * state; an upper estimate (a token-bucket entry with a 13-character key measured about 181 bytes
   * in all, key included: {@code ParamFlowTest}, 10^5 distinct keys, JDK 17).
   */
  static final long ENTRY_BYTES = 176;

  /** The estimate for a key of a type other than a string, a box, an enum or a UUID. */
  static final long OTHER_KEY_BYTES = 64;

  private TrackedKeys() {
  }

  /** Returns {@code key} as the table keeps it: itself, or the {@link Digest} of a string longer than {@link #MAX_KEPT_CHARS}. */
  public static Object compact(Object key) {
    if (key instanceof String text && text.length() > MAX_KEPT_CHARS) {
      return new Digest(sha256(text));
    }
    return key;
  }

  /** Returns the estimated bytes an entry for {@code key} (compacted) holds. */
  public static long bytes(Object key) {
    long keyBytes;
    if (key instanceof String text) {
      keyBytes = 40 + 2L * text.length(); // header, hash, coder and array header, then the characters
    } else if (key instanceof Digest) {
      keyBytes = Digest.BYTES;
    } else if (key instanceof Enum<?>) {
      keyBytes = 0; // one instance, kept anyway
    } else if (key instanceof Number || key instanceof Boolean || key instanceof Character) {
      keyBytes = 24;
    } else if (key instanceof UUID) {
      keyBytes = 32;
    } else {
      keyBytes = OTHER_KEY_BYTES;
    }
    return ENTRY_BYTES + keyBytes;
  }

  /**
   * The SHA-256 of {@code text}'s UTF-16 code units, each as two bytes, high byte first: one byte
   * sequence per string (see the class comment). Fed in chunks, so a huge key costs one small
   * buffer, not a copy of its bytes.
   */
  private static byte[] sha256(String text) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException absent) {
      throw new IllegalStateException("every Java platform has SHA-256", absent);
    }
    byte[] chunk = new byte[512];
    int i = 0;
    while (i < text.length()) {
      int filled = 0;
      for (; filled < chunk.length && i < text.length(); i++) {
        char c = text.charAt(i);
        chunk[filled++] = (byte) (c >>> 8);
        chunk[filled++] = (byte) c;
      }
      sha256.update(chunk, 0, filled);
    }
    return sha256.digest();
  }

  /**
   * A string key longer than {@link #MAX_KEPT_CHARS} as the per-key table keeps it: its SHA-256, in
   * four longs (48 bytes with the header, less than the digest's text would take). Equal to another
   * digest of the same SHA-256 only, never to a string (see the class comment); made by
   * {@link #compact} only.
   */
  public static final class Digest {

    /** The estimated heap of one digest: header and four longs. */
    static final long BYTES = 48;

    private final long h0;
    private final long h1;
    private final long h2;
    private final long h3;

    private Digest(byte[] hash) {
      this.h0 = longAt(hash, 0);
      this.h1 = longAt(hash, 8);
      this.h2 = longAt(hash, 16);
      this.h3 = longAt(hash, 24);
    }

    private static long longAt(byte[] hash, int from) {
      long value = 0;
      for (int i = from; i < from + 8; i++) {
        value = value << 8 | (hash[i] & 0xFF);
      }
      return value;
    }

    /** The SHA-256, base64url without padding: 43 characters of {@code A-Za-z0-9-_}. */
    public String base64url() {
      byte[] hash = new byte[32];
      long[] words = {h0, h1, h2, h3};
      for (int i = 0; i < 32; i++) {
        hash[i] = (byte) (words[i / 8] >>> (56 - 8 * (i % 8)));
      }
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Digest digest && h0 == digest.h0 && h1 == digest.h1 && h2 == digest.h2 && h3 == digest.h3;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(h0); // bits of a SHA-256: as spread as any
    }

    /** For reading (a log, a debugger): {@code <key sha256:...>}; the engine compares no key by its text with it. */
    @Override
    public String toString() {
      return "<key sha256:" + base64url() + ">";
    }
  }
}

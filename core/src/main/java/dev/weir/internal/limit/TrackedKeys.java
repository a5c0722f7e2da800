package dev.weir.internal.limit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.UUID;

/**
 * What the per-key table of a hot-parameter rule keeps of a key, and what that costs in bytes.
 *
 * <p>A key comes from a call: an argument, or what a key expression makes of the request, so its
 * size is the caller's choice. A string key longer than {@link #MAX_KEPT_CHARS} is kept as its
 * SHA-256 digest ({@code sha256:} and 43 base64url characters): a huge key then costs the table as
 * little as a short one, and two keys share a bucket only when they are equal (finding two strings
 * with one digest is beyond reach). Exception values are compacted the same way, so a long
 * exception value still matches its key; a cluster-mode key reaches the store compacted too.
 *
 * <p>{@link #bytes} is the table's estimate of one entry: a fixed part measured for the entry and
 * its limiter, plus the key: a string's characters (two bytes each, an upper bound), a box's
 * header, and {@link #OTHER_KEY_BYTES} for any other type, whose size the engine cannot know (keys
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

  /** Returns {@code key} as the table keeps it: itself, or the digest of a string longer than {@link #MAX_KEPT_CHARS}. */
  public static Object compact(Object key) {
    if (key instanceof String text && text.length() > MAX_KEPT_CHARS) {
      return digest(text);
    }
    return key;
  }

  /** Returns the estimated bytes an entry for {@code key} (compacted) holds. */
  public static long bytes(Object key) {
    long keyBytes;
    if (key instanceof String text) {
      keyBytes = 40 + 2L * text.length(); // header, hash, coder and array header, then the characters
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

  private static String digest(String text) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException absent) {
      throw new IllegalStateException("every Java platform has SHA-256", absent);
    }
    byte[] hash = sha256.digest(text.getBytes(StandardCharsets.UTF_8));
    return "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
  }
}

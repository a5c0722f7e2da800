package dev.weir.internal.cluster;

import dev.weir.internal.limit.TrackedKeys;
import dev.weir.rule.ParamFlowRule;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a cluster store names one key of a per-key rule ({@link dev.weir.cluster.ClusterKeyLimit}):
 * the key's text and the rule's name, both made from input the engine does not choose (a key is a
 * caller's: a header, an argument; a key expression is an operator's).
 *
 * <h2>The key's text</h2>
 * Injective, and made of {@link dev.weir.cluster.ClusterKeyLimit#KEY_CHARACTERS} only, so no
 * character a caller chooses can be structural in a store's key (a Redis hash tag's braces, the
 * separators between a key's parts):
 * <ul>
 *   <li>a string (at most 128 characters, as the table keeps it): its UTF-8 bytes percent-encoded,
 *       letters, digits and {@code -._~} kept as they are ({@code api-key-7} stays
 *       {@code api-key-7}; <code>a}b</code> is {@code a%7Db});
 *   <li>a longer string, which the table keeps as its {@link TrackedKeys.Digest}:
 *       {@code !!sha256=} and that digest (52 characters);
 *   <li>the one key of the null keys of a {@code null-key: shared} rule: {@code !null}, which no
 *       string encodes to ({@code !} is always encoded);
 *   <li>a key of another type: {@code !}, its class name and {@code =}, then its
 *       {@code String.valueOf} encoded, so that {@code 7} and {@code "7"} are two keys, as they are
 *       two keys of the engine's own table;
 *   <li>any of these longer than {@link #MAX_TEXT}, or starting with {@code !sha256=}:
 *       {@code !sha256=} and the base64url SHA-256 of that encoding.
 * </ul>
 * A store key then stays short whatever the caller sent: a string the engine kept as it is (at most
 * 128 characters) encodes to up to 1,152 characters, which this caps at {@value #MAX_TEXT}.
 *
 * <p>Why no two keys share a text. Each key first gets its encoding: a string's has neither
 * {@code !} nor {@code =} (both are always percent-encoded) and every other starts with {@code !};
 * after it, a digest's has a second {@code !}, which neither {@code null} nor a class name's
 * encoding starts with; {@code !null} is the only one without {@code =}; a class name and its
 * value's text are split at the first {@code =}, which the name's encoding lacks. So encodings are
 * one per key (percent-encoding is injective, WTF-8 included, and the table's digests are:
 * {@link TrackedKeys}). The text is then the encoding, or {@code !sha256=} and the SHA-256 of the
 * encoding when it is longer than {@value #MAX_TEXT} or itself starts with {@code !sha256=} (the
 * encoding of a key of a class named {@code sha256}, which would otherwise pass for a digest): the
 * texts kept as they are and the digested ones are apart, and two digested ones are equal only for
 * one encoding (two with one SHA-256 are beyond reach). Before, a long key reached the store as
 * the string {@code sha256:<digest>} the table kept, which a caller could also send, as a short
 * key of that text, and so count in the long key's bucket.
 *
 * <h2>The rule's name</h2>
 * {@code param=<index>,<duration>ms}, or {@code key=<expression>,<duration>ms} for an expression of
 * at most {@value #MAX_TEXT} printable ASCII characters, else {@code key-sha256=<digest>,<duration>ms}:
 * an expression may be long, and every key of the rule carries the name. Then {@code ,shadow} for a
 * rule in shadow mode, and {@code ,#<n>} for the n-th (from 2) of the resource's cluster-mode rules
 * with the same name so far ({@link #ruleNames}): two rules never count in one store key, so none is
 * counted twice, and a shadow rule never takes a permit from a rule in force.
 *
 * <p>What the name leaves out is what a rule may change and keep its keys' counts: its count, burst,
 * exceptions, null-key policy and name. The ordinal is why it need not hold more: rules that differ
 * only there are told apart by their order, which every instance running the same list sees alike and
 * which a restart keeps. Reordering such rules, or inserting one before another, moves their counts
 * to other rules (each of which counted the same calls); during a rolling deploy of such a change,
 * old and new instances share each key between the rules at the same place. A rule appended after
 * the ones of its name moves none (docs/cluster.md, "Each rule its own Redis key").
 *
 * <p>A digest of the whole definition was not chosen: a count change would then give the rule new
 * keys, and its users full buckets; nor refusing two such rules: two token buckets of one key (a
 * sustained rate and a burst cap) are not one rule.
 *
 * <p>The name is read from the right without ambiguity, whatever an expression holds: its last
 * parts are {@code <digits>ms}, then optionally {@code shadow}, then optionally {@code #<digits>},
 * three forms no part of another can take.
 */
public final class ClusterKeys {

  /** The longest key text, and the longest expression kept as it is in a rule's name. */
  static final int MAX_TEXT = 128;

  /** How the text of a key starts when it is the SHA-256 of the key's encoding. */
  private static final String DIGESTED = "!sha256=";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private ClusterKeys() {
  }

  /** The text of {@code key} (as the per-key table keeps it, or {@link TrackedKeys#NULL_KEY}). */
  public static String text(Object key) {
    String encoded;
    if (key instanceof String string) {
      encoded = percentEncoded(string);
    } else if (key instanceof TrackedKeys.Digest digest) {
      encoded = "!!sha256=" + digest.base64url();
    } else if (key == TrackedKeys.NULL_KEY) {
      encoded = "!null";
    } else {
      encoded = "!" + percentEncoded(key.getClass().getName()) + "=" + percentEncoded(String.valueOf(key));
    }
    return encoded.length() <= MAX_TEXT && !encoded.startsWith(DIGESTED) ? encoded : DIGESTED + sha256(encoded);
  }

  /**
   * The names of {@code rules} (one resource's param-flow rules, in order) in a cluster store: for
   * each cluster-mode rule its {@link #ruleName}, with {@code ,#<n>} added for the n-th rule of that
   * name from the second on; null for a rule that is not in cluster mode (local rules do not shift
   * the ordinals, so making a rule local or clustered moves no other rule's keys).
   */
  public static @Nullable String[] ruleNames(List<ParamFlowRule> rules) {
    @Nullable String[] names = new String[rules.size()];
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < names.length; i++) {
      ParamFlowRule rule = rules.get(i);
      if (rule.clusterMode()) {
        String name = ruleName(rule);
        int nth = seen.merge(name, 1, Integer::sum);
        names[i] = nth == 1 ? name : name + ",#" + nth;
      }
    }
    return names;
  }

  /**
   * The name of {@code rule} when it is the first cluster-mode rule of its resource with this name:
   * its argument or expression, its duration, and whether it is in shadow mode.
   */
  public static String ruleName(ParamFlowRule rule) {
    String expression = rule.key();
    String which;
    if (expression == null) {
      which = "param=" + rule.paramIndex();
    } else if (expression.length() <= MAX_TEXT && printableAscii(expression)) {
      which = "key=" + expression;
    } else {
      which = "key-sha256=" + sha256(expression);
    }
    return which + "," + rule.duration().toMillis() + "ms" + (rule.shadow() ? ",shadow" : "");
  }

  private static boolean unreserved(int b) {
    return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
        || b == '-' || b == '.' || b == '_' || b == '~';
  }

  /**
   * The text's code points as UTF-8 bytes, unreserved ones as they are and every other as
   * {@code %XX}. An unpaired surrogate (a Java string may hold one) is encoded as the three bytes of
   * its code point, as WTF-8 does, where {@code String.getBytes} would write {@code ?}: so two
   * different strings never encode alike.
   */
  static String percentEncoded(String text) {
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().forEach(codePoint -> {
      if (codePoint < 0x80) {
        if (unreserved(codePoint)) {
          out.append((char) codePoint);
        } else {
          escape(out, codePoint);
        }
      } else if (codePoint < 0x800) {
        escape(out, 0xC0 | codePoint >>> 6);
        escape(out, 0x80 | codePoint & 0x3F);
      } else if (codePoint < 0x10000) {
        escape(out, 0xE0 | codePoint >>> 12);
        escape(out, 0x80 | codePoint >>> 6 & 0x3F);
        escape(out, 0x80 | codePoint & 0x3F);
      } else {
        escape(out, 0xF0 | codePoint >>> 18);
        escape(out, 0x80 | codePoint >>> 12 & 0x3F);
        escape(out, 0x80 | codePoint >>> 6 & 0x3F);
        escape(out, 0x80 | codePoint & 0x3F);
      }
    });
    return out.toString();
  }

  private static void escape(StringBuilder out, int octet) {
    out.append('%').append(HEX[octet >>> 4]).append(HEX[octet & 0xF]);
  }

  private static boolean printableAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        return false;
      }
    }
    return true;
  }

  private static String sha256(String text) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException absent) {
      throw new IllegalStateException("every Java platform has SHA-256", absent);
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}

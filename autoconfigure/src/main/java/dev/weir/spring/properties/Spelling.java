package dev.weir.spring.properties;

import java.util.Collection;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Finds what a misspelt name was meant to be: the closest of some known names, ignoring case,
 * within a few edits (insertions, deletions, substitutions and swaps of neighbours).
 */
public final class Spelling {

  private Spelling() {
  }

  /**
   * Returns the name of {@code names} closest to {@code name}, if it is within
   * {@code max(2, length / 4)} edits; otherwise null.
   */
  public static @Nullable String closest(String name, Collection<String> names) {
    String best = null;
    int bestDistance = Math.max(2, name.length() / 4) + 1;
    for (String candidate : names) {
      int distance = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best;
  }

  /** Returns {@code " (did you mean 'x'?)"} for the {@link #closest} name, else an empty string. */
  public static String suggestion(String name, Collection<String> names) {
    String closest = closest(name, names);
    return closest == null ? "" : didYouMean(closest);
  }

  /** Returns {@code " (did you mean 'x'?)"} for {@code x}, a name found some other way. */
  public static String didYouMean(String closest) {
    return " (did you mean '" + closest + "'?)";
  }

  /** Returns the edit distance of two strings, a swap of neighbours counting as one edit. */
  public static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}

package dev.weir;

import java.util.ArrayList;
import java.util.List;

/** Small helpers to drive calls in tests. */
public final class Calls {

  private Calls() {
  }

  /** Tries {@code attempts} calls of {@code resource}, closing each admitted one; returns the admitted count. */
  public static int admitted(Weir weir, String resource, int attempts) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      try (Entry entry = weir.entry(resource)) {
        admitted++;
      } catch (BlockException blocked) {
        // refused
      }
    }
    return admitted;
  }

  /** Tries one call; returns the refusal, or null when admitted (and closed). */
  public static BlockException tryOnce(Weir weir, String resource) {
    try (Entry entry = weir.entry(resource)) {
      return null;
    } catch (BlockException blocked) {
      return blocked;
    }
  }

  /** Opens {@code n} entries and keeps them open; returns them (null where refused). */
  static List<Entry> open(Weir weir, String resource, int n) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try {
        entries.add(weir.entry(resource));
      } catch (BlockException blocked) {
        entries.add(null);
      }
    }
    return entries;
  }
}

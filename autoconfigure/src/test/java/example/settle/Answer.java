package example.settle;

import java.util.List;

/**
 * A model's answer, or one chunk of a streamed one: its text and, when known, its usage.
 *
 * @param text the text
 * @param usage the tokens it used, null when not known (a chunk before the last)
 * @param parts parts of any number, for a walk over a large result
 */
public record Answer(String text, Usage usage, List<Answer> parts) {

  /** An answer of {@code tokens} tokens. */
  public static Answer of(long tokens) {
    return new Answer("answer", new Usage(tokens), List.of());
  }

  /** A chunk without usage. */
  public static Answer chunk(String text) {
    return new Answer(text, null, List.of());
  }

  /**
   * The tokens an answer used.
   *
   * @param totalTokens the total
   */
  public record Usage(long totalTokens) {
  }
}

package dev.weir.spring.rules;

import dev.weir.spring.properties.InputLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a rule file or a Sentinel file whole, but never more than {@link InputLimits#MAX_BYTES} of
 * it: at most one byte more is read, to tell a file of exactly that size from a larger one, so that
 * a huge file (or a device or pipe without end put where the file should be) costs no more memory
 * or time than the largest file allowed.
 */
final class BoundedFile {

  private BoundedFile() {
  }

  /**
   * Returns the bytes of {@code path}, following symbolic links.
   *
   * @throws TooLargeException when it has more than {@link InputLimits#MAX_BYTES} bytes
   * @throws IOException when it cannot be read ({@code NoSuchFileException} when it does not exist)
   */
  static byte[] read(Path path) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] content = in.readNBytes(InputLimits.MAX_BYTES + 1);
      if (content.length > InputLimits.MAX_BYTES) {
        throw new TooLargeException(path);
      }
      return content;
    }
  }

  /** A file over the size limit; its message says the file and the limit. */
  static final class TooLargeException extends IOException {

    private static final long serialVersionUID = 1L;

    TooLargeException(Path path) {
      super("the file " + path + " is larger than " + InputLimits.MAX_BYTES_TEXT + ", the most a rule file may "
          + "hold; it was not read");
    }
  }
}

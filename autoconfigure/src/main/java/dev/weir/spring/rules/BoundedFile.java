package dev.weir.spring.rules;

import dev.weir.spring.properties.InputLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a rule file or a Sentinel file whole, but never more than {@link InputLimits#MAX_BYTES} of
 * it: at most one byte more is read, to tell a file of exactly that size from a larger one, so that
 * a huge file costs no more memory or time than the largest file allowed.
 *
 * <p>Only a regular file is opened (after links are followed): opening a named pipe blocks until a
 * writer comes, which would hold the start, or the watcher's thread, forever, and a device such as
 * {@code /dev/zero} is no rule file. A pipe swapped in between the check and the open is not caught;
 * whoever can do that can also write the rule file itself.
 */
final class BoundedFile {

  private BoundedFile() {
  }

  /**
   * Returns the bytes of {@code path}, following symbolic links.
   *
   * @throws TooLargeException when it has more than {@link InputLimits#MAX_BYTES} bytes
   * @throws IOException when it cannot be read or is not a regular file ({@code NoSuchFileException}
   *     when it does not exist)
   */
  static byte[] read(Path path) throws IOException {
    if (!Files.isRegularFile(path) && Files.exists(path)) {
      throw new IOException("the file " + path.toAbsolutePath() + " is not a regular file (a pipe, a device or a"
          + " directory); it was not read");
    }
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

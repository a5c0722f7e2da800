package dev.weir.spring.rules;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When the content of a watched file may be trusted: once the file has stayed the same for
 * {@link #TIME}, same file (inode), size and modification time, across one pause of that length.
 * The watcher applies a file, and a write-back merges into it, only once it has settled.
 *
 * <p>Why: an editor or a tool that saves in place (truncate, write, close; {@code cp}, {@code >},
 * many editors' "write in place" modes) leaves the file half-written for as long as it pauses
 * between its writes, and half a YAML list is often a valid file that lacks the rest. Read at that
 * moment it would be applied (the missing rules removed from the engine), and a write-back would
 * merge into it and rename the result over the file, so the editor's remaining bytes went to the
 * replaced inode and were lost from file and engine. A write of the file raises its modification
 * time and usually its size, so a file unchanged across a pause was not being written during it.
 *
 * <p>The alternatives were weighed: a lock file is respected only by tools written to respect it
 * (no editor, {@code cp} or {@code sed -i} does), and one left by a crashed tool blocks every
 * write; refusing a write-back with {@code 409} whenever the file changed recently leaves the
 * watcher's half-read as it is and makes every client retry for what the server can wait for. A
 * settled read serves the watcher and the write-back with one rule and costs nothing when the
 * file is quiet. A write-back still answers {@code 409} when the file does not settle within
 * {@link #MAX_ROUNDS} pauses ({@link RuleFileChangingException}).
 *
 * <p>What it does not cover: a writer that pauses longer than {@link #TIME} between two of its
 * writes (its first part is trusted as the whole); and a save that begins in the instant between a
 * write-back's last comparison and its rename (see {@link RuleFile#writeBack}).
 */
final class Settle {

  /** How long a file must stay unchanged before its content is trusted. */
  static final Duration TIME = Duration.ofSeconds(1);

  /**
   * The most pauses waited for a file to settle, at most 5 s; then the watcher leaves it for the
   * event of its next change, and a write-back is refused.
   */
  static final int MAX_ROUNDS = 5;

  /** The file as it is seen, without reading it; {@link #MISSING} when there is none. */
  record Stamp(@Nullable Object fileKey, long size, @Nullable FileTime modified) {
  }

  /** The stamp of a file that does not exist. */
  static final Stamp MISSING = new Stamp(null, -1, null);

  /** Waits the settle time; tests replace it to interleave a writer deterministically. */
  interface Pause {
    void pause(Path file, Duration time) throws InterruptedException;
  }

  /** How the settle time is waited; tests replace it. */
  volatile Pause pause = (file, time) -> Thread.sleep(time.toMillis());

  /** The stamp of {@code file} now, symbolic links followed. */
  static Stamp stamp(Path file) throws IOException {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return new Stamp(attributes.fileKey(), attributes.size(), attributes.lastModifiedTime());
    } catch (NoSuchFileException missing) {
      return MISSING;
    }
  }

  /**
   * Returns the stamp of {@code file} once it is settled: at once when it is {@code trusted} (the
   * stamp of content known whole: written by a write-back, or read settled before); else when it
   * is the same before and after a pause of {@link #TIME}. Returns null when it still changed
   * after {@link #MAX_ROUNDS} pauses.
   */
  @Nullable Stamp await(Path file, @Nullable Stamp trusted) throws IOException, InterruptedException {
    Stamp before = stamp(file);
    if (before.equals(trusted)) {
      return before;
    }
    for (int round = 0; round < MAX_ROUNDS; round++) {
      pause.pause(file, TIME);
      Stamp after = stamp(file);
      if (after.equals(before)) {
        return after;
      }
      before = after;
    }
    return null;
  }
}

package dev.weir.spring.rules;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One daemon thread that watches the directories of the rule files with a {@link WatchService}
 * and runs a check when anything in them changes; the directories include those holding symbolic
 * links on the files' paths ({@link #directoriesOf}), registered again before each check.
 *
 * <p>It watches directories, not files, and reports no file names: the check re-reads every
 * watched file and compares its bytes with those last read. That is what makes a Kubernetes
 * ConfigMap work: the file there is a symbolic link {@code rules.yml -> ..data/rules.yml}, and an
 * update renames a new {@code ..data} link over the old one, so the event names {@code ..data},
 * never {@code rules.yml}; the link itself never changes. An editor's save (truncate and write,
 * or write elsewhere and rename) may arrive as several events: after the first, the thread waits
 * until the directory has been quiet for {@value #QUIET_MILLIS} ms, at most
 * {@value #MAX_QUIET_ROUNDS} times, so that one save runs one check. That quiet is not what keeps
 * a half-written file out: the check itself reads a file only once it has settled ({@link Settle},
 * unchanged for a second), because the first part of a file saved in place is often a valid file
 * that lacks the rest, and it was applied so, 50 ms after its write, until the rest arrived.
 */
final class FileWatcher implements AutoCloseable {

  private static final Log logger = LogFactory.getLog(FileWatcher.class);

  static final long QUIET_MILLIS = 50;
  static final int MAX_QUIET_ROUNDS = 40;
  private static final long JOIN_MILLIS = 5_000;

  /** The most symbolic links followed along one file's path. */
  static final int MAX_LINKS = 40;

  private final List<Path> files;
  private final WatchService service;
  private final Thread thread;

  /**
   * Watches the directories of {@code files} ({@link #directoriesOf}) and starts the thread.
   *
   * @param files the watched files, as configured
   * @param check what to run after changes; whatever it throws is logged and the thread goes on
   * @throws IOException when not one of the directories can be watched
   */
  FileWatcher(Collection<Path> files, Runnable check) throws IOException {
    this.files = List.copyOf(files);
    this.service = FileSystems.getDefault().newWatchService();
    try {
      if (watchDirectories() == 0) {
        throw new IOException("none of the directories " + directoriesOf(this.files) + " can be watched");
      }
    } catch (IOException | RuntimeException ex) {
      service.close();
      throw ex;
    }
    this.thread = new Thread(() -> run(check), "weir-rule-files");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Returns the directories whose changes may change what the path of a watched file leads to:
   * the directory of the file, and for each symbolic link on its path (the file itself, or any
   * directory above it) the directory that holds the link, and so on along where the link leads.
   * A directory is watched where it leads when it is registered, so a path whose directory is a
   * link ({@code current/rules.yml}, {@code current -> releases/1}) is watched in
   * {@code releases/1}; the swap of {@code current} happens in the directory above, which is why
   * that one is watched too, and the new target is watched before the next check reads it. At most
   * {@value #MAX_LINKS} links are followed per file.
   */
  static Set<Path> directoriesOf(Collection<Path> files) {
    Set<Path> directories = new LinkedHashSet<>();
    for (Path file : files) {
      Deque<Path> paths = new ArrayDeque<>();
      paths.add(file.toAbsolutePath());
      for (int links = 0; !paths.isEmpty() && links <= MAX_LINKS; ) {
        Path path = paths.poll();
        if (path.getParent() != null) {
          directories.add(path.getParent());
        }
        for (Path at = path; at != null && at.getParent() != null; at = at.getParent()) {
          if (Files.isSymbolicLink(at)) {
            directories.add(at.getParent());
            try {
              paths.add(at.resolveSibling(Files.readSymbolicLink(at)).resolve(at.relativize(path)));
              links++;
            } catch (IOException | RuntimeException unreadable) {
              // Watched as far as it can be read.
            }
            break; // the rest of this path is followed from where the link leads
          }
        }
      }
    }
    return directories;
  }

  /** Registers every directory of the files that exists now; returns how many are registered. */
  private int watchDirectories() {
    int watched = 0;
    for (Path directory : directoriesOf(files)) {
      try {
        directory.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
            StandardWatchEventKinds.ENTRY_DELETE);
        watched++;
      } catch (IOException | RuntimeException notNow) {
        // Not there (a link's target not yet created, say): registered after a later check, if it is then.
      }
    }
    return watched;
  }

  private void run(Runnable check) {
    try {
      while (true) {
        consume(service.take());
        // Bounded: at most MAX_QUIET_ROUNDS polls of QUIET_MILLIS each.
        for (int round = 0; round < MAX_QUIET_ROUNDS; round++) {
          WatchKey more = service.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS);
          if (more == null) {
            break;
          }
          consume(more);
        }
        try {
          // Register first, read second. A link on a path may lead elsewhere now (a deploy swapped
          // it), and its new target must be watched before the check reads the file there: an edit
          // made after the registration raises an event, and one made before it is in what the check
          // reads. Registered after the check, an edit landing between the two would be lost until
          // some other change. (Registering a directory twice changes nothing.)
          watchDirectories();
          check.run();
        } catch (Throwable failure) {
          // Whatever a check throws, this thread goes on: if it ended, every later edit would be
          // ignored until a restart. (RuleSources reports a file's failures itself; this is the
          // last line.) Even the log may fail here, after an OutOfMemoryError, so it is tried apart.
          try {
            logger.error("Checking the rule files failed; watching goes on", failure);
          } catch (Throwable ignored) {
            // Nothing more can be done; the next event checks again.
          }
        }
      }
    } catch (ClosedWatchServiceException | InterruptedException closed) {
      // close(): the thread ends.
    }
  }

  private static void consume(WatchKey key) {
    key.pollEvents();
    key.reset();
  }

  /** Stops the thread: closing the service wakes it from {@code take()}, and it ends. */
  @Override
  public void close() {
    try {
      service.close();
    } catch (IOException ex) {
      logger.debug("Closing the watch service failed", ex);
    }
    thread.interrupt();
    try {
      thread.join(JOIN_MILLIS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  boolean isAlive() {
    return thread.isAlive();
  }
}

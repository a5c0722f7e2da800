package dev.weir.spring.rules;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One daemon thread that watches the directories of the rule files with a {@link WatchService}
 * and runs a check when anything in them changes.
 *
 * <p>It watches directories, not files, and reports no file names: the check re-reads every
 * watched file and compares its bytes with those last read. That is what makes a Kubernetes
 * ConfigMap work: the file there is a symbolic link {@code rules.yml -> ..data/rules.yml}, and an
 * update renames a new {@code ..data} link over the old one, so the event names {@code ..data},
 * never {@code rules.yml}; the link itself never changes. An editor's save (truncate and write,
 * or write elsewhere and rename) may arrive as several events: after the first, the thread waits
 * until the directory has been quiet for {@value #QUIET_MILLIS} ms, at most
 * {@value #MAX_QUIET_ROUNDS} times, so that a half-written file is rarely read (and a file read
 * half-written is only refused, then read again on the next event).
 */
final class FileWatcher implements AutoCloseable {

  private static final Log logger = LogFactory.getLog(FileWatcher.class);

  static final long QUIET_MILLIS = 50;
  static final int MAX_QUIET_ROUNDS = 40;
  private static final long JOIN_MILLIS = 5_000;

  private final WatchService service;
  private final Thread thread;

  /**
   * Watches {@code directories} and starts the thread.
   *
   * @param directories the directories of the watched files
   * @param check what to run after changes; whatever it throws is logged and the thread goes on
   * @throws IOException when a directory cannot be watched
   */
  FileWatcher(Set<Path> directories, Runnable check) throws IOException {
    this.service = FileSystems.getDefault().newWatchService();
    try {
      for (Path directory : directories) {
        directory.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
            StandardWatchEventKinds.ENTRY_DELETE);
      }
    } catch (IOException | RuntimeException ex) {
      service.close();
      throw ex;
    }
    this.thread = new Thread(() -> run(check), "weir-rule-files");
    thread.setDaemon(true);
    thread.start();
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

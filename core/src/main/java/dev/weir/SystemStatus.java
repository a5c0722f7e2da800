package dev.weir;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * Where system protection reads the machine's load and CPU usage. The engine samples it once a
 * second on a daemon thread, and only while a system rule limits load or CPU; tests pass their own.
 */
public interface SystemStatus {

  /** Returns the one-minute system load average, or a negative value when unavailable. */
  double loadAverage();

  /** Returns the machine's recent CPU usage as a fraction in {@code [0, 1]}, or negative when unavailable. */
  double cpuUsage();

  /** Returns the status read from the JVM's operating-system management bean. */
  static SystemStatus jvm() {
    return new SystemStatus() {
      private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();

      @Override
      public double loadAverage() {
        return os.getSystemLoadAverage();
      }

      @Override
      public double cpuUsage() {
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getCpuLoad() : -1;
      }
    };
  }
}

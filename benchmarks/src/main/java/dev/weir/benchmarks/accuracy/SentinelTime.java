package dev.weir.benchmarks.accuracy;

import com.alibaba.csp.sentinel.util.TimeUtil;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Drives the clock of Sentinel 1.8.9 for every thread of the JVM.
 *
 * <p>Sentinel reads all of its time through {@code TimeUtil.currentTimeMillis()}, which returns
 * {@code TimeUtil.INSTANCE.getTime()}. Its own tests stub that static method with Mockito's
 * {@code mockStatic}, which only affects the thread that created the stub: fine for one thread, not
 * for the multi-threaded trace. What the jar holds instead (see {@code javap -p -c}): {@code getTime()}
 * returns the field {@code currentTimeMillis} as it is when {@code state} is {@code RUNNING}, and the
 * instance's own "sentinel-time-tick-thread" refreshes that field from the system clock every
 * millisecond in that state. So this class creates a second {@code TimeUtil} without running its
 * constructor (no tick thread, ever), gives it its own read/write statistics array (which
 * {@code getTime()} updates), puts it in {@code RUNNING}, and makes it {@code TimeUtil.INSTANCE}
 * (a private static field, not final). From then on every thread reads the value {@link #set}
 * writes (a volatile write). The original instance and its tick thread live on, unused.
 *
 * <p>{@link #install()} checks that a value set is the value read back, so a Sentinel release
 * that changes these internals fails loudly here instead of silently reading the system clock.
 */
final class SentinelTime {

  private static Object original;
  private static Object driven;
  private static Field instanceField;
  private static VarHandle millis;

  private SentinelTime() {
  }

  /** Installs the driven clock (once per JVM; later calls do nothing). */
  static synchronized void install() {
    if (driven != null) {
      return;
    }
    try {
      Class<TimeUtil> type = TimeUtil.class;
      instanceField = type.getDeclaredField("INSTANCE");
      instanceField.setAccessible(true);
      original = instanceField.get(null);

      Object fresh = allocateWithoutConstructor(type);
      Class<?> statisticsType = Class.forName(type.getName() + "$1");
      Constructor<?> statistics = statisticsType.getDeclaredConstructor(type, int.class, int.class);
      statistics.setAccessible(true);
      // The same shape as TimeUtil's constructor gives its own: 3 buckets over 3 s.
      set(type, fresh, "statistics", statistics.newInstance(fresh, 3, 3000));
      @SuppressWarnings({"unchecked", "rawtypes"})
      Object running = Enum.valueOf((Class) Class.forName(type.getName() + "$STATE"), "RUNNING");
      set(type, fresh, "state", running);
      millis = MethodHandles.privateLookupIn(type, MethodHandles.lookup())
          .findVarHandle(type, "currentTimeMillis", long.class);
      millis.setVolatile(fresh, 0L);
      instanceField.set(null, fresh);
      driven = fresh;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot drive Sentinel's TimeUtil (internals changed?)", e);
    }
    for (long probe : new long[] {1_234_567L, 7_654_321L}) {
      set(probe);
      if (TimeUtil.currentTimeMillis() != probe) {
        throw new IllegalStateException("Sentinel's TimeUtil does not read the driven clock");
      }
    }
  }

  /** Sets what {@code TimeUtil.currentTimeMillis()} returns on every thread. */
  static void set(long epochMillis) {
    millis.setVolatile(driven, epochMillis);
  }

  /** Puts Sentinel's own clock back. */
  static synchronized void uninstall() {
    if (driven == null) {
      return;
    }
    try {
      instanceField.set(null, original);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
    driven = null;
  }

  private static void set(Class<?> type, Object target, String name, Object value)
      throws ReflectiveOperationException {
    Field field = type.getDeclaredField(name);
    field.setAccessible(true);
    field.set(target, value);
  }

  /** {@code sun.misc.Unsafe.allocateInstance}, reached by reflection (module jdk.unsupported opens it). */
  private static Object allocateWithoutConstructor(Class<?> type) throws ReflectiveOperationException {
    Class<?> unsafeType = Class.forName("sun.misc.Unsafe");
    Field theUnsafe = unsafeType.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    Method allocate = unsafeType.getMethod("allocateInstance", Class.class);
    return allocate.invoke(theUnsafe.get(null), type);
  }
}

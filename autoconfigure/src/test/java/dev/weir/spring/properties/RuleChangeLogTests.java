package dev.weir.spring.properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.RuleKind;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationEventPublisher;

/**
 * {@link RuleChangeLog}: the line it logs and the audit event it publishes for any source; and,
 * loaded where the actuator's classes cannot be found, that it still loads and logs, and publishes
 * nothing.
 */
@ExtendWith(OutputCaptureExtension.class)
class RuleChangeLogTests {

  @Test
  void logsTheSourceAndPrincipalAndPublishesAnAuditEvent(CapturedOutput output) {
    List<Object> published = new ArrayList<>();
    RuleChangeLog changes = new RuleChangeLog(published::add);

    changes.changed("file", null, "orders", List.of(RuleKind.FLOW, RuleKind.PARAM_FLOW), "flow [] -> [..]");
    changes.changed("endpoint", "alice", "orders", List.of(RuleKind.DEGRADE), "degrade [] -> [..]");

    assertThat(output).contains("Rules of 'orders' replaced (source: file, principal: anonymous, kinds: flow,"
        + " param-flow): flow [] -> [..]");
    assertThat(output).contains("Rules of 'orders' replaced (source: endpoint, principal: alice, kinds: degrade):"
        + " degrade [] -> [..]");
    assertThat(published).hasSize(2).allSatisfy(event -> assertThat(event).isInstanceOf(AuditApplicationEvent.class));
    AuditEvent first = ((AuditApplicationEvent) published.get(0)).getAuditEvent();
    assertThat(first.getType()).isEqualTo("WEIR_RULES_CHANGED");
    assertThat(first.getPrincipal()).isEqualTo("anonymous");
    assertThat(first.getData()).isEqualTo(Map.of("source", "file", "resource", "orders",
        "kinds", List.of("flow", "param-flow")));
    assertThat(((AuditApplicationEvent) published.get(1)).getAuditEvent().getPrincipal()).isEqualTo("alice");
  }

  @Test
  void withoutAPublisherItOnlyLogs(CapturedOutput output) {
    new RuleChangeLog(null).changed("refresh", "", "orders", List.of(RuleKind.AUTHORITY), "authority [] -> []");
    assertThat(output).contains("Rules of 'orders' replaced (source: refresh, principal: anonymous, kinds: authority)");
  }

  @Test
  void withoutTheActuatorItLoadsLogsAndPublishesNothing(CapturedOutput output) throws Exception {
    ClassLoader withoutActuator = new WithoutActuator(RuleChangeLog.class.getClassLoader());
    Class<?> isolated = Class.forName(RuleChangeLog.class.getName(), true, withoutActuator);
    assertThat(isolated.getClassLoader()).isSameAs(withoutActuator);
    assertThatThrownBy(() -> withoutActuator.loadClass(AuditApplicationEvent.class.getName()))
        .isInstanceOf(ClassNotFoundException.class);

    List<Object> published = new ArrayList<>();
    ApplicationEventPublisher publisher = published::add;
    Object changes = isolated.getConstructor(ApplicationEventPublisher.class).newInstance(publisher);
    Method changed = isolated.getMethod("changed", String.class, String.class, String.class,
        java.util.Collection.class, String.class);
    changed.invoke(changes, "endpoint", "bob", "orders", List.of(RuleKind.FLOW), "flow [] -> []");

    assertThat(published).isEmpty();
    assertThat(output).contains("Rules of 'orders' replaced (source: endpoint, principal: bob, kinds: flow)");
  }

  /**
   * Defines {@code RuleChangeLog} and its nested classes itself, hides the actuator's classes, and
   * leaves every other class to the parent: the class as an application without the actuator sees it.
   */
  private static final class WithoutActuator extends ClassLoader {

    WithoutActuator(ClassLoader parent) {
      super(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (name.startsWith("org.springframework.boot.actuate.")) {
          throw new ClassNotFoundException(name);
        }
        if (!name.startsWith(RuleChangeLog.class.getName())) {
          return super.loadClass(name, resolve);
        }
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          String resource = name.replace('.', '/') + ".class";
          try (InputStream in = getParent().getResourceAsStream(resource)) {
            if (in == null) {
              throw new ClassNotFoundException(name);
            }
            byte[] bytes = in.readAllBytes();
            loaded = defineClass(name, bytes, 0, bytes.length);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return loaded;
      }
    }
  }
}

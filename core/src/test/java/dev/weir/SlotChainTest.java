package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

public class SlotChainTest {

  /** Records what it sees; when it denies, refuses calls whose first argument is "deny". */
  public static final class RecordingSlot extends ProcessorSlot {
    final List<String> events = new ArrayList<>();
    private final int order;
    private final boolean denies;

    public RecordingSlot(int order, boolean denies) {
      this.order = order;
      this.denies = denies;
    }

    @Override
    public int order() {
      return order;
    }

    @Override
    public @Nullable BlockException entry(Invocation invocation) {
      events.add("entry " + invocation.resource());
      if (denies && invocation.args().length > 0 && "deny".equals(invocation.args()[0])) {
        return new AuthorityException(invocation.resource(), null, 0);
      }
      return null;
    }

    @Override
    public void admitted(Invocation invocation) {
      events.add("admitted " + invocation.resource());
    }

    @Override
    public void blocked(Invocation invocation, BlockException block) {
      events.add("blocked " + block.ruleKind().tag());
    }

    @Override
    public void exit(Invocation invocation) {
      events.add("exit " + (invocation.error() == null ? "ok" : "error"));
    }
  }

  @Test
  void customSlotRunsAtItsOrderAndSeesEveryPhase() {
    RecordingSlot afterFlow = new RecordingSlot(SlotOrder.FLOW + 1, false);
    Weir weir = Weir.builder().slot(afterFlow).rules(RuleSet.of(FlowRule.qps("r", 1))).build();

    try (Entry entry = weir.entry("r", EntryType.OUT, 1, "allow")) {
      entry.recordError(new RuntimeException());
    }
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    assertThat(afterFlow.events).containsExactly("entry r", "admitted r", "exit error");
  }

  @Test
  void customSlotRefusalIsThrownAndEarlierSlotsUndo() {
    RecordingSlot before = new RecordingSlot(SlotOrder.STATISTICS + 1, false);
    RecordingSlot denying = new RecordingSlot(SlotOrder.DEGRADE + 1, true);
    Weir weir = Weir.builder().slot(before).slot(denying).rules(RuleSet.of(FlowRule.qps("r", 1))).build();

    BlockException refused = null;
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, "deny")) {
      // not reached
    } catch (BlockException e) {
      refused = e;
    }
    assertThat(refused).isInstanceOf(AuthorityException.class);
    assertThat(before.events).containsExactly("entry r", "blocked authority");
    assertThat(weir.statistics("r").totalBlocked(RuleKind.AUTHORITY)).isEqualTo(1);
    assertThat(Calls.admitted(weir, "r", 1)).as("the flow permit was refunded").isEqualTo(1);
  }

  @Test
  void slotsRegisteredWithServiceLoaderJoinTheChain() throws Exception {
    // The registration lives apart (service-slot/META-INF/services), so that only engines built
    // with this class loader get the slot: every other test's engine has the built-in chain only.
    java.net.URL root = getClass().getClassLoader().getResource("service-slot/");
    try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {root},
        getClass().getClassLoader())) {
      ServiceSlot.CALLS.set(0);
      Weir weir = Weir.builder().classLoader(loader).build();
      Calls.admitted(weir, "r", 3);
      assertThat(ServiceSlot.CALLS.get()).isEqualTo(3);

      ServiceSlot.CALLS.set(0);
      Weir without = Weir.builder().classLoader(loader).loadServiceSlots(false).build();
      Calls.admitted(without, "r", 3);
      assertThat(ServiceSlot.CALLS.get()).isZero();

      Weir plain = Weir.builder().build();
      Calls.admitted(plain, "r", 3);
      assertThat(ServiceSlot.CALLS.get()).as("the default class loader has no registration").isZero();
    }
  }
}

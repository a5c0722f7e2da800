package dev.weir.internal.limit;

import dev.weir.rule.FlowGrade;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * {@code strategy: related}: refuses calls of this resource while another resource is at its
 * count (its passes in the last second, or its calls inside). It only reads the other resource's
 * live statistics; those calls are not checked by this rule, so this is a yielding signal, not an
 * atomic bound.
 */
public final class RelatedLimiter extends FlowLimiter {

  private final Function<String, @Nullable RelatedTraffic> traffic;
  private final String related;
  private final FlowGrade grade;
  private final double count;

  /**
   * @param traffic the statistics of a resource by name, null when it has none (yet)
   */
  public RelatedLimiter(Function<String, @Nullable RelatedTraffic> traffic, String related, FlowGrade grade, double count) {
    this.traffic = traffic;
    this.related = related;
    this.grade = grade;
    this.count = count;
  }

  @Override
  public long tryAcquire(int permits, long now) {
    @Nullable RelatedTraffic node = traffic.apply(related);
    long used = node == null ? 0 : grade == FlowGrade.QPS ? node.passQps(now) : node.activeCalls();
    return used + (grade == FlowGrade.QPS ? permits : 1) > count ? refused(0) : 0;
  }
}

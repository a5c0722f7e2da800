package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterCounter;
import dev.weir.internal.limit.FlowLimiter;

/**
 * What a call admitted by a counter of several limits ({@link dev.weir.cluster.ClusterClient#counterOfAll})
 * holds, so that it can be settled ({@code Entry.settle}): the settlement is one command on every
 * limit of the counter, as the decision was. It admits nothing itself (the group's decision does)
 * and gives nothing back on a refund or a release, as a store admission never does.
 */
public final class GroupSettlement extends FlowLimiter {

  private final ClusterGuard guard;
  private final ClusterCounter counter;
  private final UnsentDebt unsent = new UnsentDebt();

  public GroupSettlement(ClusterGuard guard, ClusterCounter counter) {
    this.guard = guard;
    this.counter = counter;
  }

  /** Never asked: the group decides; a call reaching here is refused. */
  @Override
  public long tryAcquire(int permits, long now) {
    return refused(0);
  }

  /** The token of a call the group's counter admitted with {@code decision}, to hold with this. */
  public static long token(dev.weir.cluster.ClusterDecision decision) {
    return ClusterFlowLimiter.storeToken(decision);
  }

  @Override
  public void settle(long delta, long token, long now) {
    if (ClusterFlowLimiter.storeAdmitted(token) && token != ClusterFlowLimiter.STORE_TOKEN) {
      guard.settle(counter, token, delta, now, unsent);
    }
  }
}

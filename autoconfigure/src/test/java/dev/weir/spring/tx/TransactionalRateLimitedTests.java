package dev.weir.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.spring.tx.TransactionsTestApplication.Checkout;
import dev.weir.spring.tx.TransactionsTestApplication.HandlerCalls;
import dev.weir.spring.tx.TransactionsTestApplication.Orders;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code @RateLimited} together with {@code @Transactional}, on a real transaction manager and
 * database: what is committed, what the caller gets, and that no commit fails with
 * {@code UnexpectedRollbackException} after a handler answered.
 */
@SpringBootTest(classes = TransactionsTestApplication.class, properties = {
    "spring.config.name=none",
    "weir.flow[0].resource=tx.inner", "weir.flow[0].count=0",
    "weir.flow[1].resource=tx.outer.refused", "weir.flow[1].count=0",
    "weir.flow[2].resource=tx.outer", "weir.flow[2].count=1000",
    "weir.flow[3].resource=tx.inner.open", "weir.flow[3].count=1000"})
class TransactionalRateLimitedTests {

  @Autowired
  Orders orders;

  @Autowired
  Checkout checkout;

  @Autowired
  JdbcTemplate jdbc;

  @Autowired
  HandlerCalls handlerCalls;

  @BeforeEach
  void emptyTables() {
    jdbc.update("delete from steps");
    handlerCalls.inTransaction.clear();
  }

  private List<String> committed() {
    return jdbc.queryForList("select name from steps order by name", String.class);
  }

  @Test
  void ownRefusalOpensNoTransaction() {
    assertThat(orders.placeRefused("a")).isEqualTo("busy a");
    assertThat(handlerCalls.inTransaction).as("the handler answered outside any transaction").containsExactly(false);
    assertThat(committed()).isEmpty();
  }

  @Test
  void nestedRefusalRollsBackTheMethodsWorkAndTheHandlerAnswers() {
    assertThat(orders.place("a")).isEqualTo("busy a");
    assertThat(handlerCalls.inTransaction).as("its transaction had ended").containsExactly(false);
    assertThat(committed()).as("the order written before the refusal is rolled back").isEmpty();
  }

  @Test
  void nestedRefusalInAJoinedTransactionReachesItsOwner() {
    assertThatThrownBy(() -> checkout.checkout("b")).as("not an UnexpectedRollbackException at commit")
        .isInstanceOf(FlowException.class)
        .satisfies(refusal -> assertThat(((FlowException) refusal).resource()).isEqualTo("tx.inner"));
    assertThat(handlerCalls.inTransaction).as("no handler answers for a transaction that must roll back")
        .isEmpty();
    assertThat(committed()).isEmpty();
  }

  @Test
  void nestedRefusalInAJoinedTransactionReachesItsOwnerWhenATemplateBeganIt() {
    assertThatThrownBy(() -> checkout.checkoutByTemplate("g")).isInstanceOf(FlowException.class);
    assertThat(handlerCalls.inTransaction).isEmpty();
    assertThat(committed()).isEmpty();
  }

  @Test
  void nestedRefusalInATransactionOfItsOwnLetsTheCallerCommit() {
    assertThat(checkout.checkoutSeparately("c")).isEqualTo("busy c");
    assertThat(handlerCalls.inTransaction).as("the caller's transaction, resumed").containsExactly(true);
    assertThat(committed()).containsExactly("checkout c");
  }

  @Test
  void nestedRefusalCrossingNoTransactionBoundaryIsHandledAndTheCallerCommits() {
    assertThat(checkout.checkoutWithoutOrderTransaction("d")).isEqualTo("busy d");
    assertThat(handlerCalls.inTransaction).containsExactly(true);
    assertThat(committed()).as("the handler answered inside the caller's transaction, which commits")
        .containsExactly("checkout d", "ordered d");
  }

  @Test
  void failureInAJoinedTransactionReachesItsOwnerToo() {
    assertThat(orders.placeFailing("e")).as("in a transaction of its own, the fallback answers").isEqualTo("later e");
    assertThat(committed()).isEmpty();

    assertThatThrownBy(() -> checkout.checkoutFailing("f")).isInstanceOf(IllegalStateException.class)
        .hasMessage("warehouse down for f");
    assertThat(handlerCalls.inTransaction).containsExactly(false);
    assertThat(committed()).isEmpty();
  }
}
